// static boundaries: world-body geoms become fixed solver shapes in their MJCF pose, the `domain`
// key becomes six inward-facing planes (one contact per face, so a grain in a corner rests on
// all the faces it touches). A geom's friction is its own MJCF friction triple, as its condim
// uses it (geoms.c); the domain's faces are as rough as the grains.
#include "boundaries.h"

#include <math.h>

int mjg_boundaries_max(const mjModel* m) {
  return m->body_geomnum[0] + 6;
}

void mjg_boundaries_meshes(const mjModel* m, int* need) {
  int first = m->body_geomadr[0], num = m->body_geomnum[0];
  for (int g = first; g < first + num; g++) {
    if (m->geom_type[g] == mjGEOM_MESH && mjg_geom_collides(m, g) && m->geom_dataid[g] >= 0) {
      need[m->geom_dataid[g]] = 1;
    }
  }
}

// shape s placed at rest in a world pose
static void place_at_rest(grnShape* s, const mjtNum pos[3], const mjtNum mat[9]) {
  for (int i = 0; i < 3; i++) {
    s->pos[i] = (float)pos[i];
    s->com[i] = (float)pos[i];
  }
  for (int i = 0; i < 9; i++) s->mat[i] = (float)mat[i];
}

int mjg_boundaries_static(const mjModel* m, const mjgConfig* cfg, const mjgMeshGrids* grids,
                          grnShape* out, int max, int* nskipped) {
  int n = 0, skipped = 0;

  // world-body geoms that collide with something
  int first = m->body_geomadr[0], num = m->body_geomnum[0];
  for (int g = first; g < first + num && n < max; g++) {
    if (!mjg_geom_collides(m, g)) continue;
    if (!mjg_geom_shape(m, g, grids, out + n)) {
      skipped++;
      continue;
    }
    mjtNum mat[9];
    mju_quat2Mat(mat, m->geom_quat + 4 * g);
    place_at_rest(out + n, m->geom_pos + 3 * g, mat);
    n++;
  }

  // the domain: a plane on each face of its box, solid outside; with a vertical cyclic boundary
  // only the four walls (floor and lid would stop the grains that wrap)
  if (cfg->has_domain && n + 6 <= max) {
    float lo[3], hi[3];
    for (int i = 0; i < 3; i++) {
      lo[i] = (float)cfg->domain[i];
      hi[i] = (float)cfg->domain[3 + i];
    }
    if (cfg->has_cyclic_z) {
      grnShape faces[6];
      grn_box_planes(lo, hi, 0, (float)cfg->friction, faces);
      for (int f = 1; f < 5; f++) out[n++] = faces[f];  // faces[0] is the floor
    } else {
      n += grn_box_planes(lo, hi, 1, (float)cfg->friction, out + n);
    }
  }

  if (nskipped) *nskipped = skipped;
  return n;
}
