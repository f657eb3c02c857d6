// grains drawn into an mjvScene as spheres coloured by height, read from plugin_state; never past
// the scene's geom budget (when the budget is short, every k-th grain is drawn so the whole bed
// still shows).
#include <math.h>

#include "state.h"
#include "terrain.h"

// sand colour ramp from the lowest grain (dark, damp) to the highest (light, dry)
static void height_colour(float h, float rgba[4]) {
  static const float lo[3] = {0.45f, 0.30f, 0.15f}, hi[3] = {0.92f, 0.76f, 0.46f};
  for (int i = 0; i < 3; i++) rgba[i] = lo[i] + h * (hi[i] - lo[i]);
  rgba[3] = 1;
}

void mjg_terrain_visualize(const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn,
                           int instance) {
  mjgTerrain* t = (mjgTerrain*)d->plugin_data[instance];
  if (!t) return;
  mjtNum* state = d->plugin_state + m->plugin_stateadr[instance];
  const mjtNum* pos = mjg_state_pos(state, t->cap);
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

  // height range of the drawn grains
  double zlo = INFINITY, zhi = -INFINITY;
  for (int i = 0; i < n; i += stride) {
    zlo = fmin(zlo, pos[3 * i + 2]);
    zhi = fmax(zhi, pos[3 * i + 2]);
  }
  double span = zhi - zlo > 1e-9 ? zhi - zlo : 1;

  // one sphere per grain
  mjtNum size[3] = {t->cfg.radius, t->cfg.radius, t->cfg.radius};
  for (int i = 0; i < n && scn->ngeom < scn->maxgeom; i += stride) {
    const mjtNum* p = pos + 3 * i;
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) continue;
    float rgba[4];
    height_colour((float)((p[2] - zlo) / span), rgba);
    mjvGeom* g = scn->geoms + scn->ngeom;
    mjv_initGeom(g, mjGEOM_SPHERE, size, p, NULL, rgba);
    g->category = mjCAT_DECOR;
    g->objtype = mjOBJ_UNKNOWN;
    g->objid = -1;
    scn->ngeom++;
  }
}
