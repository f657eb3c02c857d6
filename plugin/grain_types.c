// grain types from MJCF meshes. The mass properties come from the mesh's triangles, exactly
// (kernels/mesh_mass.h), not from the spheres, which underfill it by a fifth or more. MuJoCo's
// compiler stores mesh_vert in float, recentred and turned into the frame of the inertia it
// computed itself (mesh_pos, mesh_quat undo that), which follows the mesh's `inertia` attribute
// (a shell, the convex hull) and is not necessarily the solid's; so the body frame is found again
// from mesh_vert, and the clump is fitted in mesh_vert's frame and moved into the body frame.
#include "grain_types.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cem_fields.h"
#include "config.h"
#include "geoms.h"
#include "mesh_mass.h"
#include "sdf_mesh.h"
#include "shared_cache.h"

// least grid margin around a mesh's bounding box, in cells: nodes outside the surface on every
// side, so the fit measures the surface it misses everywhere (as the fits in kernels/README.md)
#define MJG_CLUMP_MARGIN_CELLS 2

// margin [m] of the grid a clump is fitted on at spacing cell: at least half the smallest extent of
// the mesh's bounding box, which no point inside is deeper than, so that every node inside lies in
// the band of exact distances (sdf_mesh.h). beyond the band distances are upper bounds, up to 0.9
// cell too deep on a 2 x 3 x 1 box, and a sphere of that radius would reach out of the mesh. whole
// cells, so the nodes fall where they would at the least margin
static float grid_margin(const float* vert, int nvert, float cell) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int v = 0; v < nvert; v++) {
    for (int i = 0; i < 3; i++) {
      lo[i] = fminf(lo[i], vert[3 * v + i]);
      hi[i] = fmaxf(hi[i], vert[3 * v + i]);
    }
  }
  float depth = 0.5f * fminf(hi[0] - lo[0], fminf(hi[1] - lo[1], hi[2] - lo[2]));
  return cell * fmaxf(MJG_CLUMP_MARGIN_CELLS, ceilf(depth / cell));
}

// the largest distance of the vertices from c [m]
static double vertex_reach(const float* vert, int nvert, const double c[3]) {
  double reach = 0;
  for (int v = 0; v < nvert; v++) {
    double d[3] = {vert[3 * v] - c[0], vert[3 * v + 1] - c[1], vert[3 * v + 2] - c[2]};
    reach = fmax(reach, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
  }
  return reach;
}

// the type of mesh id: mass properties, then spheres fitted on the mesh's grid; 0, or -1 with the
// cause in why
static int build_type(const mjModel* m, int id, double density, int clump_spheres,
                      mjgGrainType* t, char* why, int why_size) {
  const float* vert = m->mesh_vert + 3 * (size_t)m->mesh_vertadr[id];
  const int* face = m->mesh_face + 3 * (size_t)m->mesh_faceadr[id];
  int nvert = m->mesh_vertnum[id], nface = m->mesh_facenum[id];
  t->mesh = id;

  // the solid's mass properties and principal frame
  grnMassProps mp;
  grnMeshStatus ms = grn_mesh_mass(vert, nvert, face, nface, density, &mp);
  if (ms != grnMESH_OK) {
    snprintf(why, why_size, "%s", grn_mesh_status_string(ms));
    return -1;
  }
  t->volume = mp.volume;
  t->mass = mp.mass;
  memcpy(t->inertia, mp.principal, sizeof(t->inertia));
  memcpy(t->pos, mp.com, sizeof(t->pos));
  memcpy(t->quat, mp.quat, sizeof(t->quat));

  // the grid: its spacing from the mesh's size, so every mesh is fitted alike whatever its scale
  float cell = (float)(cbrt(mp.volume) / MJG_CLUMP_CELLS_PER_SIZE);
  float margin = grid_margin(vert, nvert, cell);
  double nodes = mjg_mesh_grid_nodes(vert, nvert, cell, margin);
  if (!(nodes <= GRN_SDF_MAX_NODES)) {
    snprintf(why, why_size, "a grid of %d cells per cube root of its volume (cell %g m) would "
             "have %.3g nodes, more than the limit %d: the mesh is spread thin over its bounding "
             "box", MJG_CLUMP_CELLS_PER_SIZE, cell, nodes, GRN_SDF_MAX_NODES);
    return -1;
  }
  char cause[256] = "";
  const grnGrid* grid = mjg_mesh_grid_acquire(vert, nvert, face, nface, cell, margin, cause,
                                              sizeof(cause));
  if (!grid) {
    snprintf(why, why_size, "no signed distance grid: %s", cause);
    return -1;
  }
  t->cell = grid->cell;

  // the spheres, in the mesh's frame
  t->sphere = (float*)malloc(4 * (size_t)clump_spheres * sizeof(float));
  grnStatus st = t->sphere ? grn_clump_fit(grid, clump_spheres, 0, t->sphere, &t->fit, cause,
                                           sizeof(cause))
                           : grnERR_MEMORY;
  mjg_mesh_grid_release(grid);
  if (st == grnERR_MEMORY) {
    snprintf(why, why_size, "out of memory for its clump of spheres");
    return -1;
  }
  if (st != grnOK) {
    snprintf(why, why_size, "no clump of spheres on a grid of %d cells per cube root of its "
             "volume (%s); the mesh is too thin for its volume", MJG_CLUMP_CELLS_PER_SIZE, cause);
    return -1;
  }
  t->nsphere = t->fit.count;

  // into the body frame; the bound reaches the farthest sphere's surface
  t->bound = vertex_reach(vert, nvert, mp.com);
  for (int s = 0; s < t->nsphere; s++) {
    float* c = t->sphere + 4 * s;
    double x[3] = {c[0], c[1], c[2]}, b[3];
    double d[3] = {x[0] - mp.com[0], x[1] - mp.com[1], x[2] - mp.com[2]};
    t->bound = fmax(t->bound, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + c[3]);
    grn_mesh_to_body(&mp, x, b);
    for (int j = 0; j < 3; j++) c[j] = (float)b[j];
  }
  return 0;
}

int mjg_grain_types_build(const mjModel* m, const char* const* names, int nmesh,
                          double density, int clump_spheres, mjgGrainTypes* out, char* msg,
                          int msg_size) {
  memset(out, 0, sizeof(*out));
  if (msg && msg_size > 0) msg[0] = 0;
  char why[512] = "";
  if (!m || nmesh < 0 || (nmesh && !names)) {
    snprintf(why, sizeof(why), "no model or mesh names");
  } else if (!(density > 0 && isfinite(density))) {
    snprintf(why, sizeof(why), "density %g is not positive and finite", density);
  } else if (clump_spheres < 1 || clump_spheres > GRN_CLUMP_MAX_SPHERES) {
    snprintf(why, sizeof(why), "%d spheres per clump is outside 1 .. %d", clump_spheres,
             GRN_CLUMP_MAX_SPHERES);
  } else if (!(out->type = (mjgGrainType*)calloc(nmesh ? nmesh : 1, sizeof(mjgGrainType)))) {
    snprintf(why, sizeof(why), "out of memory for %d grain types", nmesh);
  }
  if (why[0]) {
    if (msg && msg_size > 0) snprintf(msg, msg_size, MJG_PLUGIN_NAME ": grain types: %s", why);
    return -1;
  }

  for (int i = 0; i < nmesh; i++) {
    const char* name = names[i] ? names[i] : "";
    int id = mj_name2id(m, mjOBJ_MESH, name), repeat = -1;
    for (int j = 0; j < i; j++) {
      if (out->type[j].mesh == id) repeat = j;
    }
    if (id < 0) {
      snprintf(why, sizeof(why), "no mesh named '%s' in the model", name);
    } else if (repeat >= 0) {
      char buf[32];
      snprintf(why, sizeof(why), "mesh '%s' named twice, as grain types %d and %d",
               mjg_mesh_name(m, id, buf, sizeof(buf)), repeat, i);
    } else {
      out->ntype++;
      char cause[400] = "", buf[32];
      if (build_type(m, id, density, clump_spheres, out->type + i, cause, sizeof(cause)) < 0) {
        snprintf(why, sizeof(why), "grain mesh '%s' (%d vertices, %d faces): %s",
                 mjg_mesh_name(m, id, buf, sizeof(buf)), m->mesh_vertnum[id],
                 m->mesh_facenum[id], cause);
      }
    }
    if (why[0]) {
      if (msg && msg_size > 0) snprintf(msg, msg_size, MJG_PLUGIN_NAME ": %s", why);
      mjg_grain_types_free(out);
      return -1;
    }
  }
  return 0;
}

double mjg_grain_equal_radius(double volume) { return cbrt(3 * volume / (4 * M_PI)); }

int mjg_grain_mesh_size(const mjModel* m, int id, double* reach, double* equal, char* why,
                        int why_size) {
  const float* vert = m->mesh_vert + 3 * (size_t)m->mesh_vertadr[id];
  const int* face = m->mesh_face + 3 * (size_t)m->mesh_faceadr[id];
  grnMassProps mp;
  grnMeshStatus ms = grn_mesh_mass(vert, m->mesh_vertnum[id], face, m->mesh_facenum[id], 1, &mp);
  if (ms != grnMESH_OK) {
    char buf[32];
    snprintf(why, why_size, "grain mesh '%s': %s", mjg_mesh_name(m, id, buf, sizeof(buf)),
             grn_mesh_status_string(ms));
    return -1;
  }
  *reach = vertex_reach(vert, m->mesh_vertnum[id], mp.com);
  *equal = mjg_grain_equal_radius(mp.volume);
  return 0;
}

// type t as a sphere of radius r at density
static int sphere_type(double r, double density, mjgGrainType* t) {
  memset(t, 0, sizeof(*t));
  t->mesh = -1;
  t->volume = 4 * M_PI / 3 * r * r * r;
  t->mass = density * t->volume;
  for (int i = 0; i < 3; i++) t->inertia[i] = 0.4 * t->mass * r * r;
  t->quat[0] = 1;
  t->bound = r;
  t->nsphere = 1;
  t->sphere = (float*)calloc(4, sizeof(float));
  if (!t->sphere) return -1;
  t->sphere[3] = (float)r;
  return 0;
}

// shape_model cem: each mesh type's solver spheres led by its bound (a sphere at the centre of
// mass of radius its bound), where the fields' contacts meet; -1 when out of memory
static int lead_with_bounds(mjgGrainTypes* types) {
  int total = 0;
  for (int k = 0; k < types->ntype; k++) total += types->type[k].nsphere + 1;
  types->bounded = (float*)malloc(4 * (size_t)total * sizeof(float));
  if (!types->bounded) return -1;
  float* at = types->bounded;
  for (int k = 0; k < types->ntype; k++) {
    const mjgGrainType* t = types->type + k;
    if (t->mesh < 0) continue;
    at[0] = at[1] = at[2] = 0;
    at[3] = (float)t->bound;
    memcpy(at + 4, t->sphere, 4 * (size_t)t->nsphere * sizeof(float));
    types->clump[k].nsphere = t->nsphere + 1;
    types->clump[k].spheres = at;
    types->radius = fmaxf(types->radius, at[3]);
    at += 4 * (t->nsphere + 1);
  }
  return 0;
}

int mjg_grain_types_make(const mjModel* m, int instance, const mjgConfig* cfg, mjgGrainTypes* out,
                         char* msg, int msg_size) {
  // the meshes first, in the order named, then every type in its place
  const char* names[MJG_MAX_GRAIN_TYPES];
  int nmesh = 0;
  for (int k = 0; k < cfg->ntype; k++) {
    int id = cfg->type_mesh[k];
    if (id >= 0) names[nmesh++] = m->names + m->name_meshadr[id];
  }
  mjgGrainTypes meshes;
  char why[MJG_MSG_SIZE - 64];
  if (mjg_grain_types_build(m, names, nmesh, cfg->density, cfg->clump_spheres, &meshes, why,
                            sizeof(why))) {
    const char* prefix = MJG_PLUGIN_NAME ": ";
    const char* cause = strncmp(why, prefix, strlen(prefix)) ? why : why + strlen(prefix);
    const char* shape = mj_getPluginConfig(m, instance, "shape");
    snprintf(msg, msg_size, MJG_PLUGIN_NAME ": config key 'shape' = '%s': %s",
             shape ? shape : "", cause);
    return -1;
  }
  memset(out, 0, sizeof(*out));
  out->type = (mjgGrainType*)calloc(cfg->ntype, sizeof(mjgGrainType));
  out->clump = (grnClumpType*)calloc(cfg->ntype, sizeof(grnClumpType));
  int fail = !out->type || !out->clump;
  for (int k = 0, mesh = 0; k < cfg->ntype && !fail; k++, out->ntype++) {
    mjgGrainType* t = out->type + k;
    if (cfg->type_mesh[k] >= 0) {
      *t = meshes.type[mesh];
      meshes.type[mesh++].sphere = NULL;  // moved
    } else {
      fail = sphere_type(cfg->radius, cfg->density, t);
    }
    grnClumpType* c = out->clump + k;
    c->nsphere = t->nsphere;
    c->spheres = t->sphere;
    c->mass = (float)t->mass;
    for (int i = 0; i < 3; i++) c->inertia[i] = (float)t->inertia[i];
    for (int s = 0; s < t->nsphere; s++) out->radius = fmaxf(out->radius, t->sphere[4 * s + 3]);
    out->bound = fmax(out->bound, t->bound);
  }
  mjg_grain_types_free(&meshes);
  if (!fail && cfg->shape_model == mjgSHAPE_CEM) fail = lead_with_bounds(out);
  if (fail) {
    mjg_grain_types_free(out);
    snprintf(msg, msg_size, MJG_PLUGIN_NAME ": out of memory for %d grain types", cfg->ntype);
    return -1;
  }
  const char* path = mj_getPluginConfig(m, instance, "cem_fields");
  if (cfg->shape_model == mjgSHAPE_CEM &&
      mjg_cem_fields_load(m, path ? path : "", out, why, sizeof(why))) {
    mjg_grain_types_free(out);
    snprintf(msg, msg_size, MJG_PLUGIN_NAME ": config key 'cem_fields' = '%s': %s",
             path ? path : "", why);
    return -1;
  }
  return 0;
}

uint64_t mjg_grain_types_hash(const mjgGrainTypes* types) {
  if (!types) return 0;
  uint64_t h = mjg_fnv1a(MJG_FNV1A_BASIS, &types->ntype, sizeof(int));
  for (int k = 0; k < types->ntype; k++) {
    const grnClumpType* c = types->clump + k;
    h = mjg_fnv1a(h, &c->nsphere, sizeof(int));
    h = mjg_fnv1a(h, c->spheres, 4 * (size_t)c->nsphere * sizeof(float));
    h = mjg_fnv1a(h, &c->mass, sizeof(float));
    h = mjg_fnv1a(h, c->inertia, sizeof(c->inertia));
  }
  if (types->cem) h = mjg_fnv1a(h, types->cem, (size_t)types->cem_floats * sizeof(float));
  return h ? h : 1;  // 0 means spheres
}

// the lines reported so far in this process, by their hashes (FNV-1a); past the table's size
// lines repeat rather than being lost
#define MJG_REPORTED_MAX 256
static uint64_t g_reported[MJG_REPORTED_MAX];
static int g_nreported = 0;
static pthread_mutex_t g_report_lock = PTHREAD_MUTEX_INITIALIZER;

// 1 the first time this line is seen in the process
static int first_report(const char* line) {
  uint64_t h = mjg_fnv1a(MJG_FNV1A_BASIS, line, strlen(line));
  pthread_mutex_lock(&g_report_lock);
  int seen = 0;
  for (int i = 0; i < g_nreported && !seen; i++) seen = g_reported[i] == h;
  if (!seen && g_nreported < MJG_REPORTED_MAX) g_reported[g_nreported++] = h;
  pthread_mutex_unlock(&g_report_lock);
  return !seen;
}

void mjg_grain_types_report(const mjModel* m, const mjgGrainTypes* types) {
  for (int k = 0; k < types->ntype; k++) {
    const mjgGrainType* t = types->type + k;
    if (t->mesh < 0) continue;
    char line[512], buf[32];
    snprintf(line, sizeof(line), MJG_PLUGIN_NAME ": grain mesh '%s': %d spheres; volume "
             "deviation %.1f%%, surface distance %.1f%% mean and %.1f%% most of its size %.3g m; "
             "mass %.3g kg, bounding radius %.3g m\n", mjg_mesh_name(m, t->mesh, buf, sizeof(buf)),
             t->nsphere, 100 * t->fit.volume_deviation, 100 * t->fit.surface_mean,
             100 * t->fit.surface_max, t->fit.size, t->mass, t->bound);
    if (first_report(line)) fputs(line, stderr);
  }
}

double mjg_grain_top(const mjgGrainType* type, const mjtNum pos[3], const mjtNum quat[4]) {
  double top = -INFINITY;
  for (int s = 0; s < type->nsphere; s++) {
    const float* c = type->sphere + 4 * s;
    mjtNum body[3] = {c[0], c[1], c[2]}, world[3];
    mju_rotVecQuat(world, body, quat);
    top = fmax(top, pos[2] + world[2] + c[3]);
  }
  return top;
}

void mjg_grain_types_free(mjgGrainTypes* types) {
  if (!types) return;
  for (int i = 0; i < types->ntype; i++) free(types->type[i].sphere);
  free(types->type);
  free(types->clump);
  free(types->bounded);
  free(types->cem);
  memset(types, 0, sizeof(*types));
}
