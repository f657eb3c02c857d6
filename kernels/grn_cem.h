// configuration-space contact fields (shape_model cem; issue 19 part 2, the seed's configurational
// element method in 3d): for a pair of mesh grain types, small neural fields over the second
// grain's pose in the first's mesh frame give the pair's signed distance and normal-projected
// moment arms, so two mesh grains meet in one contact evaluated from the fields instead of the
// contacts of their spheres.
//
// in the solver a field grain is a clump whose first sphere is its bound: a sphere about the
// centre of mass that holds the mesh. bounds meet only bounds (the broadphase finds the pairs
// within their bounding spheres; the pairing, the contact slots and their springs are those of
// any pair), the fitted spheres meet only shapes and grains without fields, and a bound meets no
// shape. a bound pair's force is the dem law's on the field's depth, normal and contact point.
//
// the fields arrive as one float array (params.cem_floats, grn_set_cem_fields; counts and indices
// stored as floats, exact below 2^24), laid out as the GRN_CEM_ constants say:
//   [0]                         number of types (the solver's clump types)
//   type t, GRN_CEM_TYPE_FLOATS numbers from 1 + t * GRN_CEM_TYPE_FLOATS: the body frame's origin
//     (centre of mass) in the mesh's frame (3), its orientation there (w x y z), the equal-volume
//     radius [m], 1 for a type with fields (0: its spheres make its contacts)
//   the pair table, ntype x ntype from 1 + ntype * GRN_CEM_TYPE_FLOATS: the offset of the record of
//     types a and b at [a][b] and [b][a]; -1: none
//   a pair record: L (the pair's length scale [m]), the type whose mesh frame the nets' inputs
//     are in (a or b; the other is the second), the distance net, the arm net
//   a net: its affine layers, their widths (layers + 1 numbers), then per layer its weights (out
//     x in, row-major), the same transposed (in x out) and biases (out); silu between layers, none
//     after the last. the forward pass runs down the transposed columns and the backward pass
//     along the rows, so both add one input's share to every output at once (vector lanes)
// a net's input is (t / L, R e_x, R e_y, R^T t / L): the second type's mesh-frame origin t and
// rotation R in the first's mesh frame, and t in the second's (which a net would otherwise have
// to form from products of its inputs); the distance net gives phi / L, phi the seed's signed
// distance [m] (negative: overlap), the arm net (s_a, s_b) / L, the contact point's projections
// on the normal from each mesh frame's origin.
#ifndef MJGRANULAR_GRN_CEM_H_
#define MJGRANULAR_GRN_CEM_H_

#include "grn_data.h"
#include "grn_rigid.h"

#define GRN_CEM_TYPE_FLOATS 9     // floats per type in the field array
#define GRN_CEM_MIN_LAYERS 2      // affine layers of a net, at least (one hidden layer)
#define GRN_CEM_MAX_LAYERS 8      // and at most
#define GRN_CEM_MAX_WIDTH 128     // numbers in one of its layers
#define GRN_CEM_INPUTS 12         // a net's input: t / L, R e_x, R e_y, R^T t / L

// the float at index k of the field array as a count or an index
GRN_HD int grn_cem_int(const float* f, int k) { return (int)f[k]; }

// the types in field array f, and type t's record
GRN_HD int grn_cem_ntype(const float* f) { return grn_cem_int(f, 0); }
GRN_HD const float* grn_cem_type(const float* f, int t) { return f + 1 + GRN_CEM_TYPE_FLOATS * t; }

// the offset of types a and b's pair record, -1 when they have none
GRN_HD int grn_cem_pair_offset(const float* f, int a, int b) {
  int nt = grn_cem_ntype(f);
  return grn_cem_int(f, 1 + GRN_CEM_TYPE_FLOATS * nt + a * nt + b);
}

// floats of the net at net (layer count, widths, weights twice and biases)
GRN_HD int grn_cem_net_floats(const float* net) {
  int nl = grn_cem_int(net, 0), count = 2 + nl;
  for (int l = 0; l < nl; l++) {
    int in = grn_cem_int(net, 1 + l), out = grn_cem_int(net, 2 + l);
    count += 2 * out * in + out;
  }
  return count;
}

// the logistic sigmoid: silu(z) = z sigmoid(z), silu'(z) = sigmoid(z) (1 + z (1 - sigmoid(z)))
GRN_HD float grn_cem_sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

// the net at net on input x (its width[0] numbers) into out (width[last] numbers); with grad,
// when out[0] < grad_below, the gradient of out[0] in x into grad (width[0] numbers): the hidden
// layers' inputs are kept for the backward pass. 1 when it wrote the gradient
GRN_HD int grn_cem_net_eval(const float* net, const float* x, float* out, float* grad,
                            float grad_below) {
  int nl = grn_cem_int(net, 0);
  float z[GRN_CEM_MAX_LAYERS][GRN_CEM_MAX_WIDTH];   // each layer's affine output
  float sg[GRN_CEM_MAX_LAYERS][GRN_CEM_MAX_WIDTH];  // its sigmoid (hidden layers)
  float a[2][GRN_CEM_MAX_WIDTH];                    // the layer's input, ping-pong
  const float* w[GRN_CEM_MAX_LAYERS];               // each layer's weights
  int in0 = grn_cem_int(net, 1);
  for (int k = 0; k < in0; k++) a[0][k] = x[k];
  const float* p = net + 2 + nl;
  for (int l = 0; l < nl; l++) {
    int in = grn_cem_int(net, 1 + l), n_out = grn_cem_int(net, 2 + l);
    const float* wt = p + n_out * in;   // the weights transposed
    const float* bias = wt + n_out * in;
    w[l] = p;
    const float* src = a[l & 1];
    float* dst = a[(l + 1) & 1];
    float* zl = z[l];
    for (int o = 0; o < n_out; o++) zl[o] = bias[o];
    for (int k = 0; k < in; k++) {
      float ak = src[k];
      for (int o = 0; o < n_out; o++) zl[o] += wt[k * n_out + o] * ak;
    }
    for (int o = 0; o < n_out; o++) {
      if (l + 1 < nl) {
        sg[l][o] = grn_cem_sigmoid(zl[o]);
        dst[o] = zl[o] * sg[l][o];
      } else {
        dst[o] = zl[o];
      }
    }
    p = bias + n_out;
  }
  int last = grn_cem_int(net, 1 + nl);
  for (int o = 0; o < last; o++) out[o] = a[nl & 1][o];
  if (!grad || !(out[0] < grad_below)) return 0;
  // backward from out[0]: g holds d out[0] / d (layer l's output)
  float g[2][GRN_CEM_MAX_WIDTH];
  g[0][0] = 1.0f;
  for (int l = nl - 1; l >= 0; l--) {
    int in = grn_cem_int(net, 1 + l), n_out = l == nl - 1 ? 1 : grn_cem_int(net, 2 + l);
    const float* gout = g[(nl - 1 - l) & 1];
    float* gin = g[(nl - l) & 1];
    float dz[GRN_CEM_MAX_WIDTH];
    for (int o = 0; o < n_out; o++) {
      float slope = l + 1 < nl ? sg[l][o] * (1.0f + z[l][o] * (1.0f - sg[l][o])) : 1.0f;
      dz[o] = gout[o] * slope;
    }
    for (int k = 0; k < in; k++) gin[k] = 0;
    for (int o = 0; o < n_out; o++) {
      float d = dz[o];
      for (int k = 0; k < in; k++) gin[k] += w[l][o * in + k] * d;
    }
  }
  for (int k = 0; k < in0; k++) grad[k] = g[nl & 1][k];
  return 1;
}

// a field contact: the normal from the second grain toward the first, the overlap depth and the
// contact point, world [m]
typedef struct grnCemContact_ {
  grnVec3 n;
  float depth;
  grnVec3 point;
} grnCemContact;

// the mesh frame of a grain of type record ty whose body frame is at x turned by q: its
// orientation *qm and origin *o, world
GRN_HD void grn_cem_mesh_frame(const float* ty, grnVec3 x, grnQuat q, grnQuat* qm, grnVec3* o) {
  grnQuat body = grn_load_quat(ty + 3);   // body frame in the mesh frame
  *qm = grn_quat_mul(q, grn_quat(body.w, -body.x, -body.y, -body.z));
  *o = grn_sub(x, grn_quat_rotate(*qm, grn_load3(ty)));
}

// the contact of a grain of type a (body frame at xa, qa) with one of type b (xb, qb) from the
// fields f of the pair (record at offset rec, its nets' inputs in a's mesh frame): the normal
// from b toward a. touching_only: a pair apart gets its depth (<= 0) alone, the normal along the
// line of the mesh origins and the point halfway (neither net's slope nor the arm net evaluated:
// the solver needs no more of a pair that does not touch)
GRN_HD grnCemContact grn_cem_contact_ordered(const float* f, int a, int b, int rec, grnVec3 xa,
                                             grnQuat qa, grnVec3 xb, grnQuat qb,
                                             int touching_only) {
  grnQuat qma, qmb;
  grnVec3 oa, ob;
  grn_cem_mesh_frame(grn_cem_type(f, a), xa, qa, &qma, &oa);
  grn_cem_mesh_frame(grn_cem_type(f, b), xb, qb, &qmb, &ob);
  grnQuat rel = grn_quat_mul(grn_quat(qma.w, -qma.x, -qma.y, -qma.z), qmb);
  grnVec3 t = grn_quat_unrotate(qma, grn_sub(ob, oa));
  grnVec3 cx = grn_quat_rotate(rel, grn_v3(1, 0, 0)), cy = grn_quat_rotate(rel, grn_v3(0, 1, 0));
  grnVec3 cz = grn_cross(cx, cy);
  const float* r = f + rec;
  float len = r[0];
  float x[GRN_CEM_INPUTS] = {t.x / len, t.y / len, t.z / len, cx.x, cx.y, cx.z, cy.x, cy.y, cy.z,
                             grn_dot(cx, t) / len, grn_dot(cy, t) / len, grn_dot(cz, t) / len};
  const float* dist_net = r + 2;
  const float* arm_net = dist_net + grn_cem_net_floats(dist_net);
  float y, gy[GRN_CEM_INPUTS], arm[2];
  int sloped = grn_cem_net_eval(dist_net, x, &y, gy, touching_only ? 0.0f : INFINITY);
  float tlen = grn_norm(t);
  grnVec3 along_t = tlen > 0 ? grn_scale(t, 1.0f / tlen) : grn_v3(0, 0, 1);
  grnCemContact c;
  c.depth = -len * y;
  if (!sloped) {
    c.n = grn_scale(grn_quat_rotate(qma, along_t), -1.0f);
    c.point = grn_add(oa, grn_quat_rotate(qma, grn_scale(t, 0.5f)));
    return c;
  }
  grn_cem_net_eval(arm_net, x, arm, NULL, 0.0f);
  // d phi / d t = d y / d (t / L) + R d y / d (R^T t / L); d phi / d column = L d y / d column;
  // rotating b about its mesh origin by omega changes phi by omega . sum (column x d phi /
  // d column) = (p - t) x n, where (R^T t)_k = column_k . t turns by omega . (column_k x t)
  grnVec3 through_b = grn_add(grn_add(grn_scale(cx, gy[9]), grn_scale(cy, gy[10])),
                              grn_scale(cz, gy[11]));
  grnVec3 g = grn_add(grn_v3(gy[0], gy[1], gy[2]), through_b);
  float glen = grn_norm(g);
  // no gradient (far outside the training band): along the line of the origins
  grnVec3 n = glen > 0 ? grn_scale(g, 1.0f / glen) : along_t;
  grnVec3 m = grn_add(grn_cross(cx, grn_v3(gy[3], gy[4], gy[5])),
                      grn_cross(cy, grn_v3(gy[6], gy[7], gy[8])));
  m = grn_add(grn_scale(m, len), grn_cross(through_b, t));
  m = grn_scale(m, glen > 0 ? 1.0f / glen : 0.0f);
  // the contact point: off the normal through b's origin by the rotation gradient, along it by the
  // mean of the two projected arms
  grnVec3 p = grn_add(t, grn_cross(n, m));
  float along = 0.5f * (len * arm[0] + grn_dot(t, n) + len * arm[1]);
  p = grn_add(grn_sub(p, grn_scale(n, grn_dot(p, n))), grn_scale(n, along));
  c.n = grn_scale(grn_quat_rotate(qma, n), -1.0f);   // the field's normal runs from a toward b
  c.point = grn_add(oa, grn_quat_rotate(qma, p));
  return c;
}

// the contact of grain i (type ti, body frame at xi, qi) with grain j (tj, xj, qj): the normal
// toward i (touching_only as grn_cem_contact_ordered). the pair's nets take their first type's
// grain first (grain i for a pair of one type)
GRN_HD grnCemContact grn_cem_contact(const float* f, int ti, grnVec3 xi, grnQuat qi, int tj,
                                     grnVec3 xj, grnQuat qj, int touching_only) {
  int rec = grn_cem_pair_offset(f, ti, tj);
  if (grn_cem_int(f, rec + 1) == ti) {
    return grn_cem_contact_ordered(f, ti, tj, rec, xi, qi, xj, qj, touching_only);
  }
  grnCemContact c = grn_cem_contact_ordered(f, tj, ti, rec, xj, qj, xi, qi, touching_only);
  c.n = grn_scale(c.n, -1.0f);
  return c;
}

// 1 when grain i is the bound of a clump with fields (its first sphere)
GRN_HD int grn_cem_bound(const grnData* d, const grnConsts* c, int i) {
  if (!c->cem) return 0;
  int k = d->elem_clump[i];
  return d->clump_first[k] == i && grn_cem_type(d->cem, d->clump_type[k])[8] > 0;
}

// 1 when grain i belongs to a clump with fields
GRN_HD int grn_cem_grain(const grnData* d, const grnConsts* c, int i) {
  return c->cem && grn_cem_type(d->cem, d->clump_type[d->elem_clump[i]])[8] > 0;
}

// 1 when grains i and j never touch: spheres of one clump; with fields, a bound and anything but
// a bound, or two spheres of clumps with fields (their bounds meet instead)
GRN_HD int grn_never_touch(const grnData* d, const grnConsts* c, int i, int j) {
  if (!c->clumps) return 0;
  if (d->elem_clump[i] == d->elem_clump[j]) return 1;
  if (!c->cem) return 0;
  int bi = grn_cem_bound(d, c, i), bj = grn_cem_bound(d, c, j);
  if (bi || bj) return bi != bj;
  return grn_cem_grain(d, c, i) && grn_cem_grain(d, c, j);
}

#endif  // MJGRANULAR_GRN_CEM_H_
