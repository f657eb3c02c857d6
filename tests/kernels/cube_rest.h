// the configurations two equal cubes rest in, with their exact contacts: one set for the test
// (CemCube.RestingContactsAreTheCubesOwn) and the bench (bench_cem --cube), in plain C for both.
// cube a at the origin unturned, each cube's frame at its centre along its edges. face on face: b
// on each face of a, shifted across it by (0, 0), (0.3, 0) and (0.2, -0.4) half sides, spun about
// the normal by 0, 20 and 45 degrees (the normal the face's); corner on face: b's corner (1, 1, 1)
// straight down onto a's top at three places, spun by 0 and 30 degrees (the normal +z, the point
// the corner's, halfway into the overlap). each touching, then overlapping by 2% of a side.
#ifndef MJGRANULAR_TESTS_CUBE_REST_H_
#define MJGRANULAR_TESTS_CUBE_REST_H_

#include <math.h>

#include "grn_math.h"
#include "grn_rigid.h"

enum {
  CUBE_REST_FACES = 6 * 3 * 3 * 2,  // faces x shifts x spins x depths
  CUBE_REST_CORNERS = 3 * 2 * 2,    // places x spins x depths
  CUBE_REST_COUNT = CUBE_REST_FACES + CUBE_REST_CORNERS
};

typedef struct CubeRest_ {
  grnVec3 x;         // b's centre in a's frame
  grnQuat q;         // b's orientation in a's frame
  grnVec3 normal;    // the exact contact normal, from a toward b
  double depth;      // the exact overlap
  int corner;        // 1: corner on face, 0: face on face
  grnVec3 point;     // corner on face: the exact contact point (face on face: a patch, 0)
  double across[2];  // where on a's face, in half sides: the shift or the corner's place
  double spin;       // the turn about the normal [deg]
} CubeRest;

// a turn by angle about a unit axis, and the turn that takes unit u onto unit v
static inline grnQuat cube_rest_turn(grnVec3 axis, double angle) {
  float s = (float)sin(angle / 2);
  return grn_quat((float)cos(angle / 2), axis.x * s, axis.y * s, axis.z * s);
}
static inline grnQuat cube_rest_turn_onto(grnVec3 u, grnVec3 v) {
  grnVec3 c = grn_cross(u, v);
  float s = grn_norm(c);
  if (s < 1e-7f) {
    return grn_dot(u, v) > 0 ? grn_quat(1, 0, 0, 0) : cube_rest_turn(grn_v3(1, 0, 0), M_PI);
  }
  return cube_rest_turn(grn_scale(c, 1 / s), atan2(s, grn_dot(u, v)));
}

// configuration k (0 <= k < CUBE_REST_COUNT) of cubes of half side h: the face on face ones
// first, by face, shift, spin, then depth; then the corner on face ones by place, spin, depth
static inline CubeRest cube_rest(double h, int k) {
  static const grnVec3 faces[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0},
                                   {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  static const double shifts[3][2] = {{0, 0}, {0.3, 0}, {0.2, -0.4}}, face_spins[3] = {0, 20, 45};
  static const double places[3][2] = {{0, 0}, {0.5, -0.3}, {-0.6, 0.6}}, corner_spins[2] = {0, 30};
  double depth = (k % 2) * 0.02 * 2 * h;
  if (k < CUBE_REST_FACES) {
    const double* shift = shifts[k / 6 % 3];
    double spin = face_spins[k / 2 % 3];
    grnQuat onto = cube_rest_turn_onto(grn_v3(0, 0, 1), faces[k / 18]);
    grnVec3 local = grn_v3((float)(shift[0] * h), (float)(shift[1] * h), (float)(2 * h - depth));
    CubeRest c = {grn_quat_rotate(onto, local),
                  grn_quat_mul(onto, cube_rest_turn(grn_v3(0, 0, 1), spin * M_PI / 180)),
                  faces[k / 18], depth, 0, grn_v3(0, 0, 0), {shift[0], shift[1]}, spin};
    return c;
  }
  int j = k - CUBE_REST_FACES;
  const double* place = places[j / 4];
  double spin = corner_spins[j / 2 % 2];
  float s3 = sqrtf(3.0f);
  grnQuat down = cube_rest_turn_onto(grn_v3(1 / s3, 1 / s3, 1 / s3), grn_v3(0, 0, -1));
  grnVec3 x = grn_v3((float)(place[0] * h), (float)(place[1] * h), (float)(h + s3 * h - depth));
  CubeRest c = {x, grn_quat_mul(cube_rest_turn(grn_v3(0, 0, 1), spin * M_PI / 180), down),
                grn_v3(0, 0, 1), depth, 1, grn_v3(x.x, x.y, (float)(h - depth / 2)),
                {place[0], place[1]}, spin};
  return c;
}

#endif  // MJGRANULAR_TESTS_CUBE_REST_H_
