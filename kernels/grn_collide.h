// narrowphase: the contacts of one grain, against other grains through its neighbour list (built
// from the broadphase's buckets) and against the shapes through their signed distance functions.
#ifndef MJGRANULAR_GRN_COLLIDE_H_
#define MJGRANULAR_GRN_COLLIDE_H_

#include "grn_cem.h"
#include "grn_data.h"
#include "grn_hash.h"

// cell of grain i in a hash of cells 1 / inv_cell wide, stored for the build and the walk
GRN_HD void grn_compute_cell(const grnData* d, int i, float inv_cell) {
  const float* p = d->pos + 3 * i;
  d->cell[3 * i + 0] = grn_cell_coord(p[0], inv_cell);
  d->cell[3 * i + 1] = grn_cell_coord(p[1], inv_cell);
  d->cell[3 * i + 2] = grn_cell_coord(p[2], inv_cell);
}

// bucket of cell (cx, cy, cz): in row order over the grains' box of cells with the sorted
// broadphase (the only one with a box, grn_sorted.h), else hashed
GRN_HD unsigned grn_cell_bucket(const grnData* d, int cx, int cy, int cz) {
  return d->cell_box ? grn_box_cell(cx, cy, cz, d->cell_box, d->hash_size) :
                       grn_hash_cell(cx, cy, cz, d->hash_size);
}

// bucket of grain i's cell
GRN_HD unsigned grn_grain_bucket(const grnData* d, int i) {
  const int* ci = d->cell + 3 * i;
  return grn_cell_bucket(d, ci[0], ci[1], ci[2]);
}

// contact distance of grains of radii ri and rj: touching plus the speculative margin (a share of
// their mean radius)
GRN_HD float grn_pair_cutoff(const grnConsts* c, float ri, float rj) {
  float sum = ri + rj;
  return sum + 0.5f * c->margin * sum;
}

// whether a grain at xj of radius rj is closer to grain i (at xi, radius ri) than their contact
// distance plus extra
GRN_HD int grn_within_reach(const grnConsts* c, grnVec3 xi, float ri, float extra, grnVec3 xj,
                            float rj) {
  grnVec3 r = grn_sub(xi, xj);
  float cut = grn_pair_cutoff(c, ri, rj) + extra;
  return grn_dot(r, r) < cut * cut;
}

// grain j, the count-th found, into out[0], out[stride], ... (at most max), as grn_grain_neighbors
// keeps them
GRN_HD void grn_keep_neighbor(const grnData* d, const grnConsts* c, int j, int count, int* out,
                              size_t stride, int max) {
  int uj = grn_uid(d, j);
  if (count < max) {
    // insertion by index, or at the end
    int k = count;
    while (c->ordered && k > 0 && grn_uid(d, out[(k - 1) * stride]) > uj) {
      out[k * stride] = out[(k - 1) * stride];
      k--;
    }
    out[k * stride] = j;
  } else if (c->ordered && max > 0 && uj < grn_uid(d, out[(max - 1) * stride])) {
    // full: the largest index makes room, so the max smallest are kept whatever the order they
    // come in
    int k = max - 1;
    while (k > 0 && grn_uid(d, out[(k - 1) * stride]) > uj) {
      out[k * stride] = out[(k - 1) * stride];
      k--;
    }
    out[k * stride] = j;
  }
}

// the sorted list's entries [lo, hi) (grn_sorted.h) whose cells lie in row (cy, cz) between x
// cells x0 and x1, closer to grain i (at xi, radius ri) than the contact distance plus extra, kept
// as grn_grain_neighbors keeps them; returns the new count
GRN_HD int grn_walk_sorted(const grnData* d, const grnConsts* c, float extra, int i, grnVec3 xi,
                           float ri, int lo, int hi, int x0, int x1, int cy, int cz, int* out,
                           size_t stride, int max, int count) {
  for (int e = lo; e < hi; e++) {
    const int* cj = d->sorted_cell + 3 * e;
    const float* xj = d->sorted_pos + 4 * e;
    int j = d->sorted[e];
    if (j == i || cj[0] < x0 || cj[0] > x1 || cj[1] != cy || cj[2] != cz) continue;
    if (!grn_within_reach(c, xi, ri, extra, grn_load3(xj), xj[3])) continue;
    if (grn_never_touch(d, c, i, j)) continue;
    grn_keep_neighbor(d, c, j, count++, out, stride, max);
  }
  return count;
}

// grains closer to grain i than each pair's contact distance plus extra (0: contacts; c->skin:
// the neighbour lists; cells at least c->cutoff + extra wide): walk the 27 neighbouring cells'
// buckets, a linked list (hash) or a range of the sorted list (sorted, grn_sorted.h), and keep
// grains whose own cell is the visited one (so hash collisions never give duplicates). the first
// max found go to out[0], out[stride], ...; returns how many there are in all. with c->ordered
// they are the max smallest indices, sorted, so results depend neither on the order the hash
// lists were built in (which threads racing on the atomic insertion vary) nor on the broadphase;
// otherwise the first max the walk meets, in that order. the sorted list's positions are those
// at its build: the walk runs in the substep of a build only (lists that did not fit are rebuilt
// every substep, grn_grain_contacts)
GRN_HD int grn_grain_neighbors(const grnData* d, const grnConsts* c, float extra, int i,
                               int* out, size_t stride, int max) {
  grnVec3 xi = grn_load3(d->pos + 3 * i);
  const int* ci = d->cell + 3 * i;
  float ri = grn_radius(d, i);
  int count = 0;
  for (int dz = -1; dz <= 1; dz++) {
    for (int dy = -1; dy <= 1; dy++) {
      int cy = ci[1] + dy, cz = ci[2] + dz;
      if (c->broadphase == grnBROADPHASE_SORTED) {
        // a row's three cells are three consecutive buckets, one range of the list, but where
        // the table's size wraps between them
        unsigned b0 = grn_cell_bucket(d, ci[0] - 1, cy, cz);
        if (grn_cell_bucket(d, ci[0] + 1, cy, cz) == b0 + 2) {
          count = grn_walk_sorted(d, c, extra, i, xi, ri, d->bucket_start[b0],
                                  d->bucket_start[b0 + 3], ci[0] - 1, ci[0] + 1, cy, cz, out,
                                  stride, max, count);
          continue;
        }
        for (int cx = ci[0] - 1; cx <= ci[0] + 1; cx++) {
          unsigned b = grn_cell_bucket(d, cx, cy, cz);
          count = grn_walk_sorted(d, c, extra, i, xi, ri, d->bucket_start[b],
                                  d->bucket_start[b + 1], cx, cx, cy, cz, out, stride, max,
                                  count);
        }
        continue;
      }
      for (int cx = ci[0] - 1; cx <= ci[0] + 1; cx++) {
        for (int j = d->head[grn_cell_bucket(d, cx, cy, cz)]; j >= 0; j = d->next[j]) {
          const int* cj = d->cell + 3 * j;
          if (j == i || cj[0] != cx || cj[1] != cy || cj[2] != cz) continue;
          if (!grn_within_reach(c, xi, ri, extra, grn_load3(d->pos + 3 * j), grn_radius(d, j)) ||
              grn_never_touch(d, c, i, j)) {
            continue;
          }
          grn_keep_neighbor(d, c, j, count++, out, stride, max);
        }
      }
    }
  }
  return count;
}

// slot of partner j among grain i's previous contacts, from slot *m on; -1 if none. ordered lists
// are merged (*m advances past smaller partners, so a sorted sweep over j costs one pass; a
// partner found at *m is passed too, as the next, larger j would pass it); others are searched
// whole
GRN_HD int grn_prev_pair_slot(const grnData* d, const grnConsts* c, int i, int j, int* m) {
  int cap = d->cap, nprev = d->npair_prev[i];
  if (c->ordered) {
    // the contact kept from the last substep, the common case: found without reading uids
    if (*m < nprev && d->pair_prev[GRN_PAIR_SLOT(*m, i, cap)] == j) return (*m)++;
    int uj = grn_uid(d, j);
    while (*m < nprev && grn_uid(d, d->pair_prev[GRN_PAIR_SLOT(*m, i, cap)]) < uj) (*m)++;
    return *m < nprev && d->pair_prev[GRN_PAIR_SLOT(*m, i, cap)] == j ? *m : -1;
  }
  for (int k = 0; k < nprev; k++) {
    if (d->pair_prev[GRN_PAIR_SLOT(k, i, cap)] == j) return k;
  }
  return -1;
}

// grain i's neighbour list in nbr, and the step between its entries (*step): on the gpu entry by
// entry across the grains (a warp's reads coalesce), on the cpu grain by grain (a grain's list in
// adjacent cache lines, which the filter of every substep reads)
GRN_HD int* grn_nbr_list(const grnData* d, const grnConsts* c, int i, size_t* step) {
#ifdef __CUDACC__
  *step = (size_t)d->cap;
  return d->nbr + i;
#else
  *step = 1;
  return d->nbr + (size_t)i * (size_t)c->neighbors;
#endif
}

// neighbour list of grain i: the grains within the reach, from a hash of list cells
GRN_HD void grn_build_neighbors(const grnData* d, const grnConsts* c, int i) {
  size_t step;
  int* list = grn_nbr_list(d, c, i, &step);
  int found = grn_grain_neighbors(d, c, c->skin, i, list, step, c->neighbors);
  d->nnbr[i] = found <= c->neighbors ? found : -1;
  if (found > c->neighbors) d->nbr_overflow[0] = 1;
  grn_store3(d->nbr_pos + 3 * i, grn_load3(d->pos + 3 * i));
}

// squared displacement of grain i since its neighbour list was built
GRN_HD float grn_neighbors_moved2(const grnData* d, int i) {
  grnVec3 r = grn_sub(grn_load3(d->pos + 3 * i), grn_load3(d->nbr_pos + 3 * i));
  return grn_dot(r, r);
}

// grains closer than their contact distance to grain i, as grn_grain_neighbors finds them: its
// neighbour list filtered by distance (the result keeps the list's order; the entry past the last
// found may be written too), or a walk of the list hash where the list did not fit
GRN_HD int grn_grain_contacts(const grnData* d, const grnConsts* c, int i, int* out,
                              size_t stride, int max) {
  int nn = d->nnbr[i];
  if (nn < 0) return grn_grain_neighbors(d, c, 0, i, out, stride, max);
  grnVec3 xi = grn_load3(d->pos + 3 * i);
  float ri = grn_radius(d, i);
  size_t step;
  const int* nbr = grn_nbr_list(d, c, i, &step);
  int count = 0;
  for (int k = 0; k < nn; k++) {
    int j = nbr[k * step];
    grnVec3 r = grn_sub(xi, grn_load3(d->pos + 3 * j));
    float cut = grn_pair_cutoff(c, ri, grn_radius(d, j));
    // written before the test and kept by counting it: whether a neighbour touches is a branch
    // no predictor learns (with it the filter took five times as long on a 10k dem pour)
    if (count < max) out[count * stride] = j;
    count += grn_dot(r, r) < cut * cut;
  }
  return count;
}

// the geometry of the contact of grain i with grain j: unit normal from j toward i, depth
// (penetration > 0, gap < 0), and each grain's distance to the common contact point, which splits
// the centre distance in the ratio of the radii (so both feel the force at one point and angular
// momentum is kept exactly)
typedef struct grnPairFrame_ {
  grnVec3 n;                  // unit normal, from j toward i
  float depth;                // ri + rj - distance [m]
  float arm_i, arm_j;         // distances from each centre to the contact point [m]
} grnPairFrame;

// (ui, uj: the grains' indices in the caller's order, grn_uid)
GRN_HD grnPairFrame grn_pair_frame_uid(const grnData* d, int i, int j, int ui, int uj) {
  grnPairFrame f;
  grnVec3 r = grn_sub(grn_load3(d->pos + 3 * i), grn_load3_at(d->pos, 3 * j));
  float dist = grn_norm(r), ri = grn_radius(d, i), rj = grn_radius(d, j), sum = ri + rj;
  // coincident centres: +z from the lower index's side, -z from the other's (the two grains of a
  // pair still see opposite normals)
  f.n = grn_select3(dist > 0, grn_scale(r, 1.0f / dist),
                    grn_v3(0, 0, ui < uj ? 1.0f : -1.0f));
  f.depth = sum - dist;
  f.arm_i = ri * dist / sum;
  f.arm_j = rj * dist / sum;
  return f;
}
GRN_HD grnPairFrame grn_pair_frame(const grnData* d, int i, int j) {
  return grn_pair_frame_uid(d, i, j, grn_uid(d, i), grn_uid(d, j));
}

// relative velocity of grain i's contact point against grain j's, and their relative angular
// velocity, from each grain's velocity v and angular velocity w, the normal n (toward i) and each
// centre's distance to the contact point
GRN_HD void grn_contact_velocity(grnVec3 vi, grnVec3 wi, grnVec3 vj, grnVec3 wj, grnVec3 n,
                                 float arm_i, float arm_j, grnVec3* u, grnVec3* w) {
  grnVec3 spin = grn_add(grn_scale(wi, arm_i), grn_scale(wj, arm_j));
  *u = grn_sub(grn_sub(vi, vj), grn_cross(spin, n));
  *w = grn_sub(wi, wj);
}

// effective radius of two grains: r_i r_j / (r_i + r_j) [m]
GRN_HD float grn_pair_reff(const grnData* d, int i, int j) {
  float ri = grn_radius(d, i), rj = grn_radius(d, j);
  return ri * rj / (ri + rj);
}

// the effective radius that scales the rolling and torsional bounds of grain i's contact with
// grain j: grn_pair_reff, none where a grain does not rotate alone (a clump of several spheres
// resists rolling by its shape)
GRN_HD float grn_pair_roll_reff(const grnData* d, const grnConsts* c, int i, int j) {
  if (c->clumps && !(grn_rotates_alone(d, i) && grn_rotates_alone(d, j))) return 0.0f;
  return grn_pair_reff(d, i, j);
}

// torque of an impulse p acting on a grain at arm from its centre opposite the normal n
// (n points toward the grain): (-arm n) x p
GRN_HD grnVec3 grn_contact_torque(grnVec3 n, float arm, grnVec3 p) {
  return grn_scale(grn_cross(n, p), -arm);
}

// 1 when the law leaves the rolling and torsional state of grain-grain contacts zero without
// reading it: dem without those bounds (its springs are then held at zero, grn_dem_contact). then
// neither carried nor stored (half of a contact's law state): the arrays keep the zeros they were
// made with, and a contact state set into the solver leaves them (grn_set_contacts)
GRN_HD int grn_pair_rot_unread(const grnConsts* c) {
  return c->model == grnMODEL_DEM && c->rolling == 0 && c->torsional == 0;
}

// the contact law's state of slot `to` in units of `unit` (grnUNIT_PAIR_SLOT or _SHAPE_SLOT):
// that of the previous substep's slot `from` times sign (-1: the partner's slot of the contact,
// whose vectors are opposite), or zero (from < 0: a new contact); but what the law does not read
// (grn_pair_rot_unread)
GRN_HD void grn_carry_law_state(const grnData* d, const grnConsts* c, int unit, size_t to,
                                long long from, float sign) {
  const float* unread = grn_pair_rot_unread(c) ? d->pair_rot : NULL;
#define GRN_CARRY(type, name, width, u, what)                                                 \
  if (u == unit && d->name != unread) {                                                       \
    for (int e = 0; e < width; e++) {                                                         \
      d->name[width * to + e] = from >= 0 ? sign * d->name##_prev[width * (size_t)from + e] : 0; \
    }                                                                                         \
  }
  GRN_LAW_STATE(GRN_CARRY)
#undef GRN_CARRY
}

// grain-grain contacts of grain i into its contact slots, each with the law's state of the same
// contact in the last substep (a contact new this substep starts from zero). dem: a contact only
// the partner held (grain i had no slot left for it) takes the partner's springs, negated, so
// the two copies agree again. keep: a list that is last substep's slot for slot (the same
// partners in the same slots) leaves its state in the _prev arrays, which the law then reads
// (most substeps, most grains: no copy); returns 1 when it did
GRN_HD int grn_collide_grains(const grnData* d, const grnConsts* c, int i, int keep) {
  int cap = d->cap;
  // found into a local list (the sorting shifts stay out of the strided slots), then the slots
  int partner[GRN_MAX_PAIRS];
  int found = grn_grain_contacts(d, c, i, partner, 1, GRN_MAX_PAIRS);
  int count = found < GRN_MAX_PAIRS ? found : GRN_MAX_PAIRS;
  int kept = keep && count == d->npair_prev[i];
  for (int k = 0; k < count; k++) kept &= partner[k] == d->pair_prev[GRN_PAIR_SLOT(k, i, cap)];
  int m = 0;
  for (int k = 0; k < count; k++) {
    size_t slot = GRN_PAIR_SLOT(k, i, cap);
    int j = partner[k];
    d->pair[slot] = j;
    if (kept) continue;
    int prev = grn_prev_pair_slot(d, c, i, j, &m);
    long long from = prev >= 0 ? (long long)GRN_PAIR_SLOT(prev, i, cap) : -1;
    float sign = 1.0f;
    if (from < 0 && c->model == grnMODEL_DEM) {
      // a contact only the partner held: its springs (dem's law state is all vectors)
      int first = 0, mirror = grn_prev_pair_slot(d, c, j, i, &first);
      if (mirror >= 0) {
        from = (long long)GRN_PAIR_SLOT(mirror, j, cap);
        sign = -1.0f;
      }
    }
    grn_carry_law_state(d, c, grnUNIT_PAIR_SLOT, slot, from, sign);
  }
  d->npair[i] = count;
  if (found > count) d->overflow[0] = 1;
  return kept;
}

// velocity of a shape's body at a world point
GRN_HD grnVec3 grn_shape_point_velocity(const grnShape* s, grnVec3 p) {
  grnVec3 w = grn_load3(s->angvel);
  return grn_add(grn_load3(s->linvel), grn_cross(w, grn_sub(p, grn_load3(s->com))));
}

// relative velocity of the contact point of a grain (velocity v, angular velocity w, radius r)
// against the shape's point sv, n the normal from the shape toward the grain
GRN_HD grnVec3 grn_shape_contact_velocity(grnVec3 v, grnVec3 w, float r, grnVec3 n, grnVec3 sv) {
  return grn_sub(grn_sub(v, grn_scale(grn_cross(w, n), r)), sv);
}

// the lengths of a shape's rolling and torsional bounds against grain i: the shape's own
// (mujoco's friction[2], friction[1]), or where negative as rough as the grains; none where the
// grain does not rotate alone (a sphere of a clump of several)
GRN_HD void grn_shape_roll_lengths(const grnShape* sh, const grnData* d, const grnConsts* c,
                                   int i, float* roll, float* tors) {
  float r = grn_radius(d, i);
  *roll = sh->roll_friction >= 0 ? sh->roll_friction : c->rolling * r;
  *tors = sh->spin_friction >= 0 ? sh->spin_friction : c->torsional * r;
  if (c->clumps && !grn_rotates_alone(d, i)) *roll = *tors = 0;
}

// grain-shape contact slot `from` of a grain moved to its slot `to`
GRN_HD void grn_move_shape_slot(const grnData* d, size_t to, size_t from) {
  d->sc_shape[to] = d->sc_shape[from];
  grn_store3(d->sc_normal + 3 * to, grn_load3(d->sc_normal + 3 * from));
  d->sc_depth[to] = d->sc_depth[from];
  grn_store3(d->sc_vel + 3 * to, grn_load3(d->sc_vel + 3 * from));
}

// grain-shape contacts of grain i, for every shape closer than the speculative margin, in shape
// order, each with the law's state of the last substep's contact with the same shape; keep and
// the result as grn_collide_grains'. more than fit: the deepest (a grain pressed into a wall
// among coplanar pieces of a floor keeps the wall, where the first found would not)
GRN_HD int grn_collide_shapes(const grnData* d, const grnConsts* c, int i, int keep) {
  grnVec3 x = grn_load3(d->pos + 3 * i);
  float r = grn_radius(d, i), margin = c->margin * r;
  int count = 0, cap = d->cap, nprev = d->nshape_prev[i];
  // a bound is no surface: its clump's spheres meet the shapes
  int nshapes = grn_cem_bound(d, c, i) ? 0 : d->nshapes;
  for (int s = 0; s < nshapes; s++) {
    const grnShape* sh = d->shapes + s;
    grnVec3 rel = grn_sub(x, grn_load3(sh->pos));
    float reach = sh->rbound + r + margin;
    if (sh->rbound > 0 && grn_dot(rel, rel) > reach * reach) continue;
    // a plane's distance is its frame's z (grn_sdf_plane): a far plane leaves before the rest of
    // its frame is computed
    if (sh->type == grnSHAPE_PLANE && grn_mulmat_t_z(sh->mat, rel) - r >= margin) continue;
    grnVec3 grad;
    float dist = grn_sdf_shape(sh, d->grids, grn_mulmat_t(sh->mat, rel), &grad) - r;
    if (dist >= margin) continue;
    if (count == GRN_MAX_SHAPE_CONTACTS) {
      d->overflow[0] = 1;
      // the shallowest (the last of equals) leaves if this one is deeper; the rest move up
      int out = 0;
      for (int k = 1; k < count; k++) {
        if (d->sc_depth[GRN_SHAPE_SLOT(k, i, cap)] <= d->sc_depth[GRN_SHAPE_SLOT(out, i, cap)]) {
          out = k;
        }
      }
      if (!(-dist > d->sc_depth[GRN_SHAPE_SLOT(out, i, cap)])) continue;
      for (int k = out; k + 1 < count; k++) {
        grn_move_shape_slot(d, GRN_SHAPE_SLOT(k, i, cap), GRN_SHAPE_SLOT(k + 1, i, cap));
      }
      count--;
    }
    size_t slot = GRN_SHAPE_SLOT(count, i, cap);
    grnVec3 nrm = grn_mulmat(sh->mat, grad);
    grnVec3 point = grn_sub(x, grn_scale(nrm, r));
    d->sc_shape[slot] = s;
    grn_store3(d->sc_normal + 3 * slot, nrm);
    d->sc_depth[slot] = -dist;
    grn_store3(d->sc_vel + 3 * slot, grn_shape_point_velocity(sh, point));
    count++;
  }
  int kept = keep && count == nprev;
  for (int k = 0; kept && k < count; k++) {
    kept = d->sc_shape_prev[GRN_SHAPE_SLOT(k, i, cap)] == d->sc_shape[GRN_SHAPE_SLOT(k, i, cap)];
  }
  for (int k = 0; k < count && !kept; k++) {
    size_t slot = GRN_SHAPE_SLOT(k, i, cap);
    long long prev = -1;
    for (int m = 0; m < nprev; m++) {
      if (d->sc_shape_prev[GRN_SHAPE_SLOT(m, i, cap)] == d->sc_shape[slot]) {
        prev = (long long)GRN_SHAPE_SLOT(m, i, cap);
      }
    }
    grn_carry_law_state(d, c, grnUNIT_SHAPE_SLOT, slot, prev, 1.0f);
  }
  d->nshape[i] = count;
  d->ncontact[i] = count + d->npair[i];
  return kept;
}

// which of a grain's law state grn_collide_grain left in the _prev arrays
typedef struct grnKept_ {
  int pairs;                  // its grain-grain contacts' (pair_lin_prev, pair_rot_prev)
  int shapes;                 // its grain-shape contacts' (sc_lin_prev, sc_rot_prev)
} grnKept;

// all contacts of grain i (narrowphase, model-free): its neighbour list first when the lists are
// rebuilt this substep, then grains, then shapes. keep: the state of contact lists unchanged
// since the last substep left where it is (grn_collide_grains), for a law that reads it from
// there; 0: every slot's state carried into the current arrays
GRN_HD grnKept grn_collide_grain(const grnData* d, const grnConsts* c, int i, int keep) {
  if (c->lists) grn_build_neighbors(d, c, i);
  grnKept kept;
  kept.pairs = grn_collide_grains(d, c, i, keep);
  kept.shapes = grn_collide_shapes(d, c, i, keep);
  return kept;
}

#endif  // MJGRANULAR_GRN_COLLIDE_H_
