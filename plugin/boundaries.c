// static boundaries: world-body geoms become fixed solver shapes in their MJCF pose, the `domain`
// key becomes a box container. Grain-wall friction follows MuJoCo's rule for a contact pair, the
// larger of the two coefficients (granular `friction` and the geom's sliding friction).
#include "boundaries.h"

#include <math.h>
#include <string.h>

int mjg_boundaries_max(const mjModel* m) {
  return m->body_geomnum[0] + 1;
}

// a solver shape at rest in a given world pose
static void shape_at_rest(grnShape* s, int type, const mjtNum pos[3], const mjtNum mat[9],
                          double friction) {
  memset(s, 0, sizeof(*s));
  s->type = type;
  for (int i = 0; i < 3; i++) {
    s->pos[i] = (float)pos[i];
    s->com[i] = (float)pos[i];
  }
  for (int i = 0; i < 9; i++) s->mat[i] = (float)mat[i];
  s->friction = (float)friction;
  s->body = -1;
  s->grid = -1;
}

// solver shape type and size of a geom; 0 when the geom type has no closed-form distance
static int geom_shape(int type, const mjtNum* size, int* out_type, float out_size[3],
                      float* rbound) {
  float a = (float)size[0], b = (float)size[1], c = (float)size[2];
  out_size[0] = a;
  out_size[1] = b;
  out_size[2] = c;
  switch (type) {
    case mjGEOM_PLANE:
      *out_type = grnSHAPE_PLANE;
      *rbound = 0;  // unbounded half-space
      return 1;
    case mjGEOM_SPHERE:
      *out_type = grnSHAPE_SPHERE;
      *rbound = a;
      return 1;
    case mjGEOM_CAPSULE:
      *out_type = grnSHAPE_CAPSULE;
      *rbound = a + b;
      return 1;
    case mjGEOM_ELLIPSOID:
      *out_type = grnSHAPE_ELLIPSOID;
      *rbound = fmaxf(a, fmaxf(b, c));
      return 1;
    case mjGEOM_CYLINDER:
      *out_type = grnSHAPE_CYLINDER;
      *rbound = sqrtf(a * a + b * b);
      return 1;
    case mjGEOM_BOX:
      *out_type = grnSHAPE_BOX;
      *rbound = sqrtf(a * a + b * b + c * c);
      return 1;
    default:
      return 0;
  }
}

int mjg_boundaries_static(const mjModel* m, const mjgConfig* cfg, grnShape* out, int max,
                          int* nskipped) {
  int n = 0, skipped = 0;

  // world-body geoms that collide with something
  int first = m->body_geomadr[0], num = m->body_geomnum[0];
  for (int g = first; g < first + num && n < max; g++) {
    if (m->geom_contype[g] == 0 && m->geom_conaffinity[g] == 0) continue;
    int type;
    float size[3], rbound;
    if (!geom_shape(m->geom_type[g], m->geom_size + 3 * g, &type, size, &rbound)) {
      skipped++;
      continue;
    }
    mjtNum mat[9];
    mju_quat2Mat(mat, m->geom_quat + 4 * g);
    double friction = fmax(cfg->friction, m->geom_friction[3 * g]);
    shape_at_rest(out + n, type, m->geom_pos + 3 * g, mat, friction);
    memcpy(out[n].size, size, sizeof(size));
    out[n].rbound = rbound;
    n++;
  }

  // the domain: grains kept inside its box
  if (cfg->has_domain && n < max) {
    mjtNum centre[3], eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 3; i++) centre[i] = 0.5 * (cfg->domain[i] + cfg->domain[3 + i]);
    shape_at_rest(out + n, grnSHAPE_BOXINSIDE, centre, eye, cfg->friction);
    for (int i = 0; i < 3; i++) out[n].size[i] = (float)(0.5 * (cfg->domain[3 + i] - cfg->domain[i]));
    out[n].rbound = 0;
    n++;
  }

  if (nskipped) *nskipped = skipped;
  return n;
}
