// the cost of one contact from configuration-space fields (grn_cem_contact: the distance net
// with its input gradient and the arm net) against the narrowphase of two clumps of n spheres
// (every sphere pair's distance, and the contact frame of those that overlap), per pair of grains.
//
//   bench_cem FIELDS [--pairs 200000] [--cube HALF]
// FIELDS: a fields file (python -m mjgranular.cem fit); its first pair is timed, at random poses
// of the second grain within the pair's length scale of the first. the clumps: n spheres of
// radius 0.3 L at random places within 0.2 L of their centre, the same poses. one thread.
// --cube HALF: the first pair is a cube of half side HALF [m] with itself (its mesh frame the
// cube's, axis-aligned about its centre): its contacts as grn_cem_contact gives them on the
// resting configurations of tests/kernels/cube_rest.h (face on face, corner on face) against the
// exact ones. errors in degrees and in units of the equal-volume radius.
#define _DEFAULT_SOURCE  // clock_gettime, M_PI
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cem_file.h"
#include "cube_rest.h"
#include "grn_cem.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// uniform in [-1, 1), from a 64-bit xorshift
static double uniform(unsigned long long* s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) / (double)(1ull << 52) - 1;
}

static grnQuat random_turn(unsigned long long* s) {
  grnQuat q = grn_quat((float)uniform(s), (float)uniform(s), (float)uniform(s),
                       (float)uniform(s));
  return grn_quat_normalize(q);
}

// errors of one kind of configuration: sums and largest
typedef struct Errors_ {
  int n;
  double angle, angle_max, depth, depth_max, point, point_max;
} Errors;

static void add_error(Errors* e, const float* fields, grnVec3 xb, grnQuat qb, grnVec3 normal,
                      double depth, const grnVec3* at, double radius) {
  grnCemContact c = grn_cem_contact(fields, 0, grn_v3(0, 0, 0), grn_quat(1, 0, 0, 0), 0, xb, qb, 0);
  double cosine = -grn_dot(c.n, normal);
  double angle = acos(cosine > 1 ? 1 : cosine < -1 ? -1 : cosine) * 180 / M_PI;
  double dd = fabs(c.depth - depth) / radius;
  e->n++;
  e->angle += angle;
  e->angle_max = fmax(e->angle_max, angle);
  e->depth += dd;
  e->depth_max = fmax(e->depth_max, dd);
  if (at) {
    double miss = grn_norm(grn_sub(c.point, *at)) / radius;
    e->point += miss;
    e->point_max = fmax(e->point_max, miss);
  }
}

// the cube's resting configurations (see the top)
static void cube_contacts(const float* fields, double h) {
  double radius = 2 * h * cbrt(3 / (4 * M_PI));
  Errors face = {0}, corner = {0};
  for (int k = 0; k < CUBE_REST_COUNT; k++) {
    CubeRest rest = cube_rest(h, k);
    add_error(rest.corner ? &corner : &face, fields, rest.x, rest.q, rest.normal, rest.depth,
              rest.corner ? &rest.point : NULL, radius);
  }
  printf("cube of half side %g m, r_eq %.4g m: exact contacts against the fields'\n", h, radius);
  printf("| configurations | count | normal, mean / max [deg] | depth, mean / max [r_eq] | "
         "corner point, mean / max [r_eq] |\n|---|---|---|---|---|\n");
  printf("| face on face | %d | %.1f / %.1f | %.3f / %.3f | |\n", face.n, face.angle / face.n,
         face.angle_max, face.depth / face.n, face.depth_max);
  printf("| corner on face | %d | %.1f / %.1f | %.3f / %.3f | %.3f / %.3f |\n", corner.n,
         corner.angle / corner.n, corner.angle_max, corner.depth / corner.n, corner.depth_max,
         corner.point / corner.n, corner.point_max);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_cem FIELDS [--pairs N]\n");
    return 2;
  }
  int npair = 200000;
  double cube = 0;
  for (int i = 2; i + 1 < argc; i++) {
    if (!strcmp(argv[i], "--pairs")) npair = atoi(argv[++i]);
    if (!strcmp(argv[i], "--cube")) cube = atof(argv[++i]);
  }
  grnCemFile f;
  char why[512];
  if (grn_cem_file_read(argv[1], &f, why, sizeof(why))) {
    fprintf(stderr, "bench_cem: %s\n", why);
    return 1;
  }
  // the first pair's types as solver types 0 and 1 (one type: 0 with itself)
  int ntype = f.pair[0].a == f.pair[0].b ? 1 : 2;
  int file_type[2] = {f.pair[0].a, f.pair[0].b};
  grnCemFrame frame[2] = {{{0, 0, 0}, {1, 0, 0, 0}, 0.5f * f.bound[f.pair[0].a]},
                          {{0, 0, 0}, {1, 0, 0, 0}, 0.5f * f.bound[f.pair[0].b]}};
  long long count = grn_cem_pack(&f, ntype, file_type, frame, NULL);
  float* fields = count > 0 ? (float*)malloc((size_t)count * sizeof(float)) : NULL;
  if (!fields) {
    fprintf(stderr, "bench_cem: the first pair's types lack fields with each other\n");
    return 1;
  }
  grn_cem_pack(&f, ntype, file_type, frame, fields);
  float len = f.pair[0].scale;
  const grnCemNet* net = &f.pair[0].distance;
  printf("fields of '%s' and '%s': distance net", f.name[f.pair[0].a], f.name[f.pair[0].b]);
  for (int l = 0; l <= net->nlayer; l++) printf("%s%d", l ? "-" : " ", net->width[l]);
  printf(", %lld floats for the pair\n", count);
  if (cube > 0) cube_contacts(fields, cube);

  // random poses of the second grain, and the sum of a result so nothing is optimised away
  unsigned long long seed = 88172645463325252ull;
  grnVec3* x = (grnVec3*)malloc((size_t)npair * sizeof(grnVec3));
  grnQuat* q = (grnQuat*)malloc((size_t)npair * sizeof(grnQuat));
  for (int k = 0; k < npair; k++) {
    x[k] = grn_v3((float)(len * uniform(&seed)), (float)(len * uniform(&seed)),
                  (float)(len * uniform(&seed)));
    q[k] = random_turn(&seed);
  }
  double sum = 0, t0 = now();
  for (int k = 0; k < npair; k++) {
    grnCemContact c = grn_cem_contact(fields, 0, grn_v3(0, 0, 0), grn_quat(1, 0, 0, 0),
                                      ntype - 1, x[k], q[k], 0);
    sum += c.depth;
  }
  double cem_ns = 1e9 * (now() - t0) / npair;
  printf("fields: %.0f ns per pair of grains\n", cem_ns);

  // clumps of n spheres: all n x n sphere pairs' distances, the overlapping ones' frames
  for (int n = 4; n <= 16; n *= 2) {
    float local[16][3], r = 0.3f * len;
    for (int e = 0; e < n; e++) {
      for (int a = 0; a < 3; a++) local[e][a] = (float)(0.2 * len * uniform(&seed));
    }
    t0 = now();
    for (int k = 0; k < npair; k++) {
      grnVec3 pa[16], pb[16];
      for (int e = 0; e < n; e++) {
        pa[e] = grn_load3(local[e]);
        pb[e] = grn_add(x[k], grn_quat_rotate(q[k], grn_load3(local[e])));
      }
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
          grnVec3 d = grn_sub(pa[i], pb[j]);
          float d2 = grn_dot(d, d);
          if (d2 < 4 * r * r) {
            float dist = sqrtf(d2);
            grnVec3 nrm = grn_scale(d, 1.0f / dist);
            sum += (2 * r - dist) + nrm.x;
          }
        }
      }
    }
    printf("clumps of %2d spheres: %.0f ns per pair of grains (%d sphere pairs)\n", n,
           1e9 * (now() - t0) / npair, n * n);
  }
  printf("(checksum %g)\n", sum);
  free(x);
  free(q);
  free(fields);
  grn_cem_file_free(&f);
  return 0;
}
