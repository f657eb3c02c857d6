// mujoco geoms as solver shapes. Primitives map to the solver's closed forms with mujoco's sizes;
// a mesh maps to a grid of signed distances sampled over its bounding box plus a margin, built once
// from the compiled model's vertices and faces. MuJoCo stores those vertices in the geom frame
// (the compiler moves each mesh to its inertial frame and folds the offset into the geom's pose),
// so a mesh grid is in the same frame as the geom's pose in d->geom_xpos, d->geom_xmat.
#include "geoms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdf_mesh.h"
#include "shared_cache.h"

static void free_grid(void* grid) { grn_sdf_mesh_free((grnGrid*)grid); }

// the mesh grids of this process (bodies' meshes, grain types' meshes), shared by every mjData of
// every model whose meshes and spacing are the same (a grid holds up to GRN_SDF_MAX_NODES floats;
// the last 16 released are kept, so that compiling a model and then making its mjData builds them
// once)
static mjgCache g_grids = MJG_CACHE(grnGrid, 16, free_grid);

// what a mesh grid depends on
typedef struct mjgGridInput_ {
  const float* vert;        // vertices in the mesh's frame, the geom frame        (3 nvert)
  const int* face;          // triangles                                           (3 nface)
  int nvert, nface;
  float cell, margin;       // node spacing, margin around the bounding box [m]
} mjgGridInput;

// mjgCacheBuild of the mesh grids
static int build_grid(const void* input, void* grid, char* why, int size) {
  const mjgGridInput* in = (const mjgGridInput*)input;
  grnStatus st = grn_sdf_mesh_build(in->vert, in->nvert, in->face, in->nface, in->cell,
                                    in->margin, (grnGrid*)grid);
  if (st == grnOK) return 0;
  snprintf(why, size, "%s", grn_status_message(st));
  return -1;
}

const grnGrid* mjg_mesh_grid_acquire(const float* vert, int nvert, const int* face, int nface,
                                     float cell, float margin, char* why, int why_size) {
  mjgGridInput in = {vert, face, nvert, nface, cell, margin};
  mjgKey k = {NULL, 0, 0, 0};
  mjg_key_add(&k, &cell, sizeof(cell));
  mjg_key_add(&k, &margin, sizeof(margin));
  mjg_key_int(&k, nvert);
  mjg_key_int(&k, nface);
  mjg_key_add(&k, vert, 3 * (size_t)nvert * sizeof(float));
  mjg_key_add(&k, face, 3 * (size_t)nface * sizeof(int));
  return (const grnGrid*)mjg_cache_acquire(&g_grids, &k, build_grid, &in, why, why_size);
}

void mjg_mesh_grid_release(const grnGrid* grid) { mjg_cache_release(&g_grids, grid); }

long long mjg_mesh_grid_builds(void) { return mjg_cache_builds(&g_grids); }

int mjg_geom_collides(const mjModel* m, int g) {
  return m->geom_contype[g] != 0 || m->geom_conaffinity[g] != 0;
}

double mjg_mesh_margin(const mjgConfig* cfg) {
  grnParams p;
  grn_default_params(&p);
  return cfg->reach * (1 + p.margin) + cfg->sdf_cell;
}

const char* mjg_mesh_name(const mjModel* m, int id, char* buf, int size) {
  const char* name = m->names + m->name_meshadr[id];
  if (name[0]) return name;
  snprintf(buf, size, "#%d", id);
  return buf;
}

double mjg_mesh_grid_nodes(const float* vert, int nvert, double cell, double margin) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < nvert; v++) {
    for (int i = 0; i < 3; i++) {
      lo[i] = fminf(lo[i], vert[3 * v + i]);
      hi[i] = fmaxf(hi[i], vert[3 * v + i]);
    }
  }
  double nodes = 1;
  for (int i = 0; i < 3; i++) nodes *= ceil((hi[i] - lo[i] + 2 * margin) / cell) + 2;
  return nodes;
}

int mjg_mesh_grids_build(const mjModel* m, const mjgConfig* cfg, const int* need,
                         mjgMeshGrids* out, char* msg, int size) {
  memset(out, 0, sizeof(*out));
  if (msg && size > 0) msg[0] = 0;
  int nmesh = m->nmesh;
  out->nmesh = nmesh;
  out->mesh_grid = (int*)malloc((nmesh ? nmesh : 1) * sizeof(int));
  out->mesh_rbound = (float*)calloc(nmesh ? nmesh : 1, sizeof(float));
  out->grid = (const grnGrid**)calloc(nmesh ? nmesh : 1, sizeof(grnGrid*));
  if (!out->mesh_grid || !out->mesh_rbound || !out->grid) {
    mjg_mesh_grids_free(out);
    if (msg && size > 0) snprintf(msg, size, MJG_PLUGIN_NAME ": out of memory for mesh grids");
    return -1;
  }

  float cell = (float)cfg->sdf_cell, margin = (float)mjg_mesh_margin(cfg);
  for (int id = 0; id < nmesh; id++) {
    out->mesh_grid[id] = -1;
    const float* vert = m->mesh_vert + 3 * (size_t)m->mesh_vertadr[id];
    const int* face = m->mesh_face + 3 * (size_t)m->mesh_faceadr[id];
    int nvert = m->mesh_vertnum[id], nface = m->mesh_facenum[id];

    // bounding radius about the geom frame origin (vertices are in the geom frame)
    float r2 = 0;
    for (int v = 0; v < nvert; v++) {
      const float* p = vert + 3 * v;
      r2 = fmaxf(r2, p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    }
    out->mesh_rbound[id] = sqrtf(r2);
    if (!need[id]) continue;

    // a grid too fine for the mesh is a config error; anything else is a bad mesh
    char buf[32];
    const char* name = mjg_mesh_name(m, id, buf, sizeof(buf));
    double nodes = mjg_mesh_grid_nodes(vert, nvert, cell, margin);
    char why[256] = "";
    const grnGrid* grid = NULL;
    if (nodes <= GRN_SDF_MAX_NODES) {
      grid = mjg_mesh_grid_acquire(vert, nvert, face, nface, cell, margin, why, sizeof(why));
    }
    if (!grid) {
      if (msg && size > 0 && nodes > GRN_SDF_MAX_NODES) {
        snprintf(msg, size, MJG_PLUGIN_NAME ": config key 'sdf_cell' = '%g': mesh '%s' needs a "
                 "signed distance grid of %.3g nodes at this spacing, more than the limit %d; "
                 "raise sdf_cell", cfg->sdf_cell, name, nodes, GRN_SDF_MAX_NODES);
      } else if (msg && size > 0) {
        snprintf(msg, size, MJG_PLUGIN_NAME ": mesh '%s' (%d vertices, %d faces) gives no signed "
                 "distance grid: %s", name, nvert, nface, why);
      }
      mjg_mesh_grids_free(out);
      return -1;
    }
    out->grid[out->ngrid] = grid;
    out->mesh_grid[id] = out->ngrid++;
  }
  return 0;
}

grnStatus mjg_mesh_grids_add(const mjgMeshGrids* grids, grnSolver* solver) {
  for (int i = 0; i < grids->ngrid; i++) {
    int id;
    grnStatus st = grn_add_grid(solver, grids->grid[i], &id);
    if (st != grnOK) return st;
    if (id != i) return grnERR_ARG;  // grids must go into a fresh solver
  }
  return grnOK;
}

void mjg_mesh_grids_free(mjgMeshGrids* grids) {
  if (!grids) return;
  for (int i = 0; i < grids->ngrid; i++) mjg_mesh_grid_release(grids->grid[i]);
  free(grids->grid);
  free(grids->mesh_grid);
  free(grids->mesh_rbound);
  memset(grids, 0, sizeof(*grids));
}

int mjg_geom_shape(const mjModel* m, int g, const mjgMeshGrids* grids, grnShape* s) {
  memset(s, 0, sizeof(*s));
  const mjtNum* size = m->geom_size + 3 * g;
  float a = (float)size[0], b = (float)size[1], c = (float)size[2];
  s->size[0] = a;
  s->size[1] = b;
  s->size[2] = c;
  s->mat[0] = s->mat[4] = s->mat[8] = 1;
  // the geom's own friction triple, as mujoco defines it: sliding, then torsional and rolling
  // resistance as lengths [m] (moment bound per unit normal force), each where the geom's condim
  // asks for it (torsional from 4, rolling at 6, as in mujoco); else as rough as the grains
  int condim = m->geom_condim[g];
  s->friction = (float)m->geom_friction[3 * g];
  s->spin_friction = condim >= 4 ? (float)m->geom_friction[3 * g + 1] : -1;
  s->roll_friction = condim >= 6 ? (float)m->geom_friction[3 * g + 2] : -1;
  s->body = -1;
  s->grid = -1;
  switch (m->geom_type[g]) {
    case mjGEOM_PLANE:
      s->type = grnSHAPE_PLANE;
      s->rbound = 0;  // unbounded half-space
      return 1;
    case mjGEOM_SPHERE:
      s->type = grnSHAPE_SPHERE;
      s->rbound = a;
      return 1;
    case mjGEOM_CAPSULE:
      s->type = grnSHAPE_CAPSULE;
      s->rbound = a + b;
      return 1;
    case mjGEOM_ELLIPSOID:
      s->type = grnSHAPE_ELLIPSOID;
      s->rbound = fmaxf(a, fmaxf(b, c));
      return 1;
    case mjGEOM_CYLINDER:
      s->type = grnSHAPE_CYLINDER;
      s->rbound = sqrtf(a * a + b * b);
      return 1;
    case mjGEOM_BOX:
      s->type = grnSHAPE_BOX;
      s->rbound = sqrtf(a * a + b * b + c * c);
      return 1;
    case mjGEOM_MESH: {
      int mesh = m->geom_dataid[g];
      if (!grids || mesh < 0 || mesh >= grids->nmesh || grids->mesh_grid[mesh] < 0) return 0;
      s->type = grnSHAPE_GRID;
      s->grid = grids->mesh_grid[mesh];
      s->size[0] = s->size[1] = s->size[2] = 0;
      s->rbound = grids->mesh_rbound[mesh];
      return 1;
    }
    default:
      return 0;  // height fields, sdf plugin geoms
  }
}
