// coupled bodies: the `bodies` key, the shapes of their geoms and the kinematic drive. Each step
// the solver sees every collidable geom of a coupled body in its start-of-step pose, moving rigidly
// with the body's velocity, and the impulses the grains take from it come back into the body's
// wrench slot (its body id).
//
// Which velocity: advance runs inside mj_step after the integrator, when d->qvel already holds the
// step's end velocity while the kinematics (geom poses, cdof) are still those of the step's start.
// MuJoCo's semi-implicit Euler moves qpos over the step with exactly that end velocity, so the
// grains see the body sweep from its start pose to (to first order) its end pose, and they see the
// granular force of the previous step already in the velocity. mj_objectVelocity would give the
// start-of-step velocity (d->cvel), a full step behind.
#include "bodies.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// 1 if body b has a geom that collides with something
static int has_collision_geom(const mjModel* m, int b) {
  int first = m->body_geomadr[b], num = m->body_geomnum[b];
  for (int g = first; g < first + num; g++) {
    if (mjg_geom_collides(m, g)) return 1;
  }
  return 0;
}

int mjg_bodies_select(const mjModel* m, int instance, int* coupled, char* msg, int size) {
  if (msg && size > 0) msg[0] = 0;
  memset(coupled, 0, m->nbody * sizeof(int));
  const char* value = mj_getPluginConfig(m, instance, "bodies");
  const char* p = value;
  while (p && *p && isspace((unsigned char)*p)) p++;

  // default: every body but the world with a collidable geom
  if (!p || !*p) {
    for (int b = 1; b < m->nbody; b++) coupled[b] = has_collision_geom(m, b);
    return 0;
  }

  // the named bodies
  while (*p) {
    const char* end = p;
    while (*end && !isspace((unsigned char)*end)) end++;
    int len = (int)(end - p);
    char* name = (char*)malloc(len + 1);
    if (!name) {
      if (msg && size > 0) snprintf(msg, size, MJG_PLUGIN_NAME ": out of memory");
      return -1;
    }
    memcpy(name, p, len);
    name[len] = 0;
    int b = mj_name2id(m, mjOBJ_BODY, name);
    if (b <= 0) {
      if (msg && size > 0) {
        snprintf(msg, size, MJG_PLUGIN_NAME ": config key 'bodies' = '%s': %s '%s'", value,
                 b == 0 ? "the world body's geoms are always fixed boundaries, it cannot couple:"
                        : "no body named", name);
      }
      free(name);
      return -1;
    }
    free(name);
    coupled[b] = 1;
    p = end;
    while (*p && isspace((unsigned char)*p)) p++;
  }
  return 0;
}

void mjg_bodies_meshes(const mjModel* m, const int* coupled, int* need) {
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    int first = m->body_geomadr[b], num = m->body_geomnum[b];
    for (int g = first; g < first + num; g++) {
      if (m->geom_type[g] == mjGEOM_MESH && mjg_geom_collides(m, g) && m->geom_dataid[g] >= 0) {
        need[m->geom_dataid[g]] = 1;
      }
    }
  }
}

int mjg_bodies_init(const mjModel* m, const mjgConfig* cfg, const int* coupled,
                    const mjgMeshGrids* grids, mjgBodies* out) {
  memset(out, 0, sizeof(*out));
  out->nbody = m->nbody;
  int ng = m->ngeom ? m->ngeom : 1;
  out->coupled = (int*)calloc(m->nbody, sizeof(int));
  out->geom = (int*)calloc(ng, sizeof(int));
  out->shape = (grnShape*)calloc(ng, sizeof(grnShape));
  out->cvel = (mjtNum*)calloc(6 * (size_t)m->nbody, sizeof(mjtNum));
  if (!out->coupled || !out->geom || !out->shape || !out->cvel) {
    mjg_bodies_free(out);
    return -1;
  }
  memcpy(out->coupled, coupled, m->nbody * sizeof(int));

  // every collidable geom of a coupled body that can touch grains, in geom order
  for (int b = 1; b < m->nbody; b++) {
    if (!coupled[b]) continue;
    int first = m->body_geomadr[b], num = m->body_geomnum[b];
    for (int g = first; g < first + num; g++) {
      if (!mjg_geom_collides(m, g)) continue;
      grnShape* s = out->shape + out->ngeom;
      if (!mjg_geom_shape(m, g, grids, s)) {
        out->nskipped++;
        continue;
      }
      s->body = b;
      out->geom[out->ngeom++] = g;
    }
  }
  return 0;
}

void mjg_bodies_free(mjgBodies* b) {
  if (!b) return;
  free(b->coupled);
  free(b->geom);
  free(b->shape);
  free(b->cvel);
  memset(b, 0, sizeof(*b));
}

void mjg_bodies_cvel(const mjModel* m, const mjData* d, const mjtNum* qvel, mjtNum* cvel) {
  // bodies come after their parents: cvel = cvel(parent) + sum over the body's dofs cdof qvel
  mju_zero(cvel, 6);
  for (int b = 1; b < m->nbody; b++) {
    mjtNum* v = cvel + 6 * b;
    mju_copy(v, cvel + 6 * m->body_parentid[b], 6);
    int first = m->body_dofadr[b], num = m->body_dofnum[b];
    for (int j = first; j < first + num && first >= 0; j++) {
      mju_addToScl(v, d->cdof + 6 * j, qvel[j], 6);
    }
  }
}

int mjg_bodies_shapes(const mjModel* m, const mjData* d, mjgBodies* b, grnShape* out, int max) {
  int n = 0;
  for (int k = 0; k < b->ngeom && n < max; k++) {
    int g = b->geom[k], body = m->geom_bodyid[g];
    grnShape* s = out + n++;
    *s = b->shape[k];

    // pose of the geom and the body's centre of mass
    const mjtNum* com = d->xipos + 3 * body;
    for (int i = 0; i < 3; i++) {
      s->pos[i] = (float)d->geom_xpos[3 * g + i];
      s->com[i] = (float)com[i];
    }
    for (int i = 0; i < 9; i++) s->mat[i] = (float)d->geom_xmat[9 * g + i];
  }
  mjg_bodies_velocity(m, d, b, d->qvel, out, n);
  return n;
}

void mjg_bodies_velocity(const mjModel* m, const mjData* d, mjgBodies* b, const mjtNum* qvel,
                         grnShape* shapes, int n) {
  if (n == 0) return;
  mjg_bodies_cvel(m, d, qvel, b->cvel);
  for (int k = 0; k < b->ngeom && k < n; k++) {
    int body = m->geom_bodyid[b->geom[k]];

    // velocity at the centre of mass: cvel's linear part is at the root's subtree com
    const mjtNum* v = b->cvel + 6 * body;
    const mjtNum* c = d->subtree_com + 3 * m->body_rootid[body];
    mjtNum arm[3], lin[3];
    mju_sub3(arm, d->xipos + 3 * body, c);
    mju_cross(lin, v, arm);
    mju_addTo3(lin, v + 3);
    for (int i = 0; i < 3; i++) {
      shapes[k].angvel[i] = (float)v[i];
      shapes[k].linvel[i] = (float)lin[i];
    }
  }
}
