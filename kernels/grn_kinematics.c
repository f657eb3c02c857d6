// kinematic drivers: a shape's pose after moving rigidly with its body's velocity.
#include <math.h>
#include <string.h>

#include "grn_solver.h"

// rotation matrix (row-major) of the rotation vector w * tau (rodrigues)
static void rotation_of(const float* w, float tau, float* r) {
  float ax = w[0] * tau, ay = w[1] * tau, az = w[2] * tau;
  float th = sqrtf(ax * ax + ay * ay + az * az);
  if (th < 1e-12f) {
    const float id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(r, id, sizeof(id));
    return;
  }
  float x = ax / th, y = ay / th, z = az / th, c = cosf(th), s = sinf(th), t = 1 - c;
  r[0] = t * x * x + c;     r[1] = t * x * y - s * z; r[2] = t * x * z + s * y;
  r[3] = t * x * y + s * z; r[4] = t * y * y + c;     r[5] = t * y * z - s * x;
  r[6] = t * x * z - s * y; r[7] = t * y * z + s * x; r[8] = t * z * z + c;
}

// out's frame: src's turned by r about the centre of mass com (com, pos and mat written; src
// and out may be the same shape)
static void turn_about(const grnShape* src, const float* r, const float* com, grnShape* out) {
  float rel[3], mat[9];
  for (int i = 0; i < 3; i++) rel[i] = src->pos[i] - src->com[i];
  memcpy(mat, src->mat, sizeof(mat));
  for (int i = 0; i < 3; i++) {
    out->com[i] = com[i];
    out->pos[i] = com[i] + r[3 * i] * rel[0] + r[3 * i + 1] * rel[1] + r[3 * i + 2] * rel[2];
    for (int j = 0; j < 3; j++) {
      out->mat[3 * i + j] =
          r[3 * i] * mat[j] + r[3 * i + 1] * mat[3 + j] + r[3 * i + 2] * mat[6 + j];
    }
  }
}

void grn_shape_at(const grnShape* s, float tau, grnShape* out) {
  *out = *s;
  if (tau == 0) return;
  float r[9], com[3];
  rotation_of(s->angvel, tau, r);
  // com translates at linvel; the frame turns about the com
  for (int i = 0; i < 3; i++) com[i] = s->com[i] + s->linvel[i] * tau;
  turn_about(s, r, com, out);
}

void grn_shape_displace(grnShape* s, const double* disp, const double* twist) {
  float w[3] = {(float)disp[3], (float)disp[4], (float)disp[5]}, r[9], com[3];
  rotation_of(w, 1, r);
  for (int i = 0; i < 3; i++) com[i] = s->com[i] + (float)disp[i];
  turn_about(s, r, com, s);
  for (int i = 0; i < 3; i++) {
    s->linvel[i] += (float)twist[i];
    s->angvel[i] += (float)twist[3 + i];
  }
}
