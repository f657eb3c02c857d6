// grains drawn into an mjvScene as spheres of their radii read from plugin_state (mesh grains as
// their meshes, in their poses), coloured as key
// 'color' says: by height (dark to light sand), by speed or by rim speed of their spin (cold blue
// to hot red) or in one sand colour. Never
// past the scene's geom budget: when the budget is short, every k-th grain is drawn so the whole
// bed still shows, and one warning per mjData says so.
#include <math.h>

#include "state.h"
#include "terrain.h"

// speed (and rim speed) range when color_range is not given: [0, max(fastest drawn grain, this)],
// so that a bed at rest does not show its creep as hot grains
#define MJG_SPEED_SPAN_MIN 0.05   // [m/s]

//---------------------------------- colour ramps --------------------------------------------------

// piecewise-linear ramp through n colours at evenly spaced stops; s in [0, 1]
static void ramp(const float (*stops)[3], int n, float s, float rgba[4]) {
  float x = s * (n - 1);
  int k = (int)x;
  if (k > n - 2) k = n - 2;
  float f = x - k;
  for (int i = 0; i < 3; i++) rgba[i] = stops[k][i] + f * (stops[k + 1][i] - stops[k][i]);
  rgba[3] = 1;
}

// colour of a grain at ramp position s in [0, 1] for a colouring: every channel of the height
// ramp rises with s (lighter higher up); along the speed ramp red rises and blue falls (hotter)
static void grain_colour(mjgColor color, float s, float rgba[4]) {
  static const float height[2][3] = {{0.45f, 0.30f, 0.15f}, {0.92f, 0.76f, 0.46f}};
  static const float speed[3][3] = {{0.10f, 0.25f, 0.75f}, {0.80f, 0.65f, 0.40f},
                                    {0.95f, 0.20f, 0.05f}};
  static const float sand[3] = {0.80f, 0.65f, 0.40f};
  if (color == mjgCOLOR_HEIGHT) {
    ramp(height, 2, s, rgba);
  } else if (color == mjgCOLOR_SPEED || color == mjgCOLOR_SPIN) {
    ramp(speed, 3, s, rgba);
  } else {
    for (int i = 0; i < 3; i++) rgba[i] = sand[i];
    rgba[3] = 1;
  }
}

// the grain arrays of an instance's plugin_state
typedef struct mjgGrainViews_ {
  const mjtNum *pos, *vel, *angvel, *radius;
} mjgGrainViews;

// the value a colouring reads from grain i: height [m], speed or rim speed |w| r [m/s]
static double grain_value(mjgColor color, const mjgGrainViews* g, int i) {
  if (color == mjgCOLOR_SPEED) return mju_norm3(g->vel + 3 * i);
  if (color == mjgCOLOR_SPIN) return mju_norm3(g->angvel + 3 * i) * g->radius[i];
  return g->pos[3 * i + 2];
}

// values at the ends of the ramp: color_range when given, else from the grains drawn
static void value_range(const mjgConfig* cfg, const mjgGrainViews* g, int n, int stride,
                        double range[2]) {
  if (cfg->has_color_range) {
    range[0] = cfg->color_range[0];
    range[1] = cfg->color_range[1];
    return;
  }
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < n; i += stride) {
    double v = grain_value(cfg->color, g, i);
    if (!isfinite(v)) continue;
    lo = fmin(lo, v);
    hi = fmax(hi, v);
  }
  if (cfg->color == mjgCOLOR_SPEED || cfg->color == mjgCOLOR_SPIN) {
    lo = 0;
    hi = fmax(hi, MJG_SPEED_SPAN_MIN);
  }
  if (!(hi > lo)) hi = lo + 1;  // one value, or none: all at the low end
  range[0] = lo;
  range[1] = hi;
}

//---------------------------------- drawing -------------------------------------------------------

// grain i as a geom: a sphere of its radius, or a mesh grain's mesh. The grain's frame is its
// type's body frame, which lies at pos, quat in the mesh's vertex frame, so the mesh is drawn at
// the grain's pose composed with the inverse of that one
static void grain_geom(const mjgTerrain* t, const mjtNum* state, int i, const float rgba[4],
                       mjvGeom* geom) {
  const mjtNum* p = mjg_state_pos((mjtNum*)state, t->cap) + 3 * i;
  mjtNum r = mjg_state_radius((mjtNum*)state, t->cap)[i];
  mjtNum k = t->clumps ? mjg_state_type((mjtNum*)state, t->cap)[i] : -1;
  const mjgGrainType* type = k >= 0 && k < t->clumps->ntype ? t->clumps->type + (int)k : NULL;
  if (!type || type->mesh < 0) {
    mjtNum size[3] = {r, r, r};
    mjv_initGeom(geom, mjGEOM_SPHERE, size, p, NULL, rgba);
    return;
  }
  mjtNum grain[4], body[4], mesh[4], mat[9], offset[3], pos[3];
  mju_copy4(grain, mjg_state_orient((mjtNum*)state, t->cap) + 4 * i);
  mju_normalize4(grain);
  mju_negQuat(body, type->quat);
  mju_mulQuat(mesh, grain, body);
  mju_quat2Mat(mat, mesh);
  mju_mulMatVec3(offset, mat, type->pos);
  mju_sub3(pos, p, offset);
  mjtNum size[3] = {1, 1, 1};
  mjv_initGeom(geom, mjGEOM_MESH, size, pos, mat, rgba);
  geom->dataid = 2 * type->mesh;  // mujoco's renderer: 2 id the mesh, 2 id + 1 its convex hull
}

void mjg_terrain_visualize(const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn,
                           int instance) {
  mjgTerrain* t = (mjgTerrain*)d->plugin_data[instance];
  if (!t) return;
  mjtNum* state = d->plugin_state + m->plugin_stateadr[instance];
  const mjtNum* pos = mjg_state_pos(state, t->cap);
  mjgGrainViews g = {pos, mjg_state_vel(state, t->cap), mjg_state_angvel(state, t->cap),
                     mjg_state_radius(state, t->cap)};
  mjtNum count = state[MJG_STATE_COUNT];
  if (!(count > 0 && count <= t->cap)) return;
  int n = (int)count;

  // grains that fit: every stride-th when the scene is short
  int room = scn->maxgeom - scn->ngeom;
  if (room <= 0) return;
  int stride = (n + room - 1) / room;
  if (stride > 1 && !t->capped) {
    t->capped = 1;
    mju_warning(MJG_PLUGIN_NAME ": the scene holds %d more geoms, drawing 1 in %d of %d grains; "
                "raise maxgeom to see them all", room, stride, n);
  }

  // values at the ends of the colour ramp
  double range[2];
  value_range(&t->cfg, &g, n, stride, range);
  double span = range[1] - range[0];

  // one sphere per grain, its colour clamped to the ends of the ramp
  for (int i = 0; i < n && scn->ngeom < scn->maxgeom; i += stride) {
    const mjtNum* p = pos + 3 * i;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    double s = (grain_value(t->cfg.color, &g, i) - range[0]) / span;
    float rgba[4];
    grain_colour(t->cfg.color, (float)(s > 0 ? (s < 1 ? s : 1) : 0), rgba);
    mjvGeom* geom = scn->geoms + scn->ngeom;
    grain_geom(t, state, i, rgba, geom);
    geom->category = mjCAT_DECOR;
    geom->objtype = mjOBJ_UNKNOWN;
    geom->objid = -1;
    scn->ngeom++;
  }
}
