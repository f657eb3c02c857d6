// the dem law's constants from the grains' material: effective moduli, the hooke stiffness, the
// damping that gives the restitution asked for, and the time a substep must resolve.
#include <math.h>
#include <string.h>

#include "grn_solver.h"

static const double kPi = 3.14159265358979323846;

// the normalised head-on impact of a law: overlap x'' = -(force), force = x + 2 zeta x' (hooke:
// stiffness 1, mass 1) or x^1.5 + 2 zeta sqrt(1.5 x^0.5) x' (hertz: tangent stiffness 1.5 x^0.5),
// never pulling. both are free of the impact speed (hertz after scaling the overlap by the peak
// of an undamped impact), so one restitution belongs to each zeta
static double impact_force(int law, double zeta, double x, double v) {
  if (x <= 0) return 0;
  double f = law == grnLAW_HERTZ ? x * sqrt(x) + 2 * zeta * sqrt(1.5 * sqrt(x)) * v
                                 : x + 2 * zeta * v;
  return f > 0 ? f : 0;
}

// rebound speed over approach speed of the normalised impact, by fourth-order runge-kutta in
// steps of 1e-3 (a contact lasts about 3.2 time units); the crossing of x = 0 interpolated. the
// grains always part: once the dashpot would pull, no force acts and the overlap closes
static double impact_restitution(int law, double zeta) {
  const double h = 1e-3;
  double x = 0, v = 1;  // overlap and its rate, approaching at unit speed
  for (int step = 0; step < 1000000; step++) {
    double k1x = v, k1v = -impact_force(law, zeta, x, v);
    double k2x = v + 0.5 * h * k1v, k2v = -impact_force(law, zeta, x + 0.5 * h * k1x, k2x);
    double k3x = v + 0.5 * h * k2v, k3v = -impact_force(law, zeta, x + 0.5 * h * k2x, k3x);
    double k4x = v + h * k3v, k4v = -impact_force(law, zeta, x + h * k3x, k4x);
    double nx = x + h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    double nv = v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    if (nx <= 0 && step > 0) {
      double s = x / (x - nx);  // share of the step before the crossing
      return -(v + s * (nv - v));
    }
    x = nx;
    v = nv;
  }
  return 0;
}

double grn_dem_damping_ratio(int law, double restitution) {
  if ((law != grnLAW_HERTZ && law != grnLAW_HOOKE) || !(restitution > 0 && restitution <= 1)) {
    return -1;
  }
  if (restitution == 1) return 0;
  // restitution falls with zeta: bracket, then bisect
  double lo = 0, hi = 1;
  while (impact_restitution(law, hi) > restitution && hi < 1e3) hi *= 2;
  for (int it = 0; it < 60; it++) {
    double mid = 0.5 * (lo + hi);
    if (impact_restitution(law, mid) > restitution) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

// the hooke stiffness of params: given, or the spring storing a hertz contact's energy at the
// peak overlap of two grains of the params' radius meeting at 1 m/s (liggghts' hooke rule)
static double hooke_stiffness(const grnParams* p, double estar) {
  if (p->stiffness > 0) return p->stiffness;
  double r = p->radius, reff = 0.5 * r;
  double meff = 0.5 * grn_sphere_mass(p->density, p->radius);
  return 16.0 / 15.0 * sqrt(reff) * estar *
         pow(15.0 * meff / (16.0 * sqrt(reff) * estar), 0.2);
}

double grn_dem_time_scale(const grnParams* p, double radius) {
  double e = p ? p->youngs : 0, nu = p ? p->poisson : 0;
  if (!p || !(radius > 0) || !(e > 0) || !(nu > -1 && nu <= 0.5) || !(p->density > 0)) return 0;
  if (p->law == grnLAW_HOOKE) {
    double meff = 0.5 * p->density * 4.0 / 3.0 * kPi * radius * radius * radius;
    return sqrt(meff / hooke_stiffness(p, e / (2 * (1 - nu * nu))));
  }
  double shear = e / (2 * (1 + nu));
  return kPi * radius * sqrt(p->density / shear) / (0.1631 * nu + 0.8766);
}

void grn_dem_law_consts(const grnParams* p, grnDemLawConsts* out) {
  memset(out, 0, sizeof(*out));
  if (p->model == grnMODEL_PJ) return;
  double e = p->youngs, nu = p->poisson, shear = e / (2 * (1 + nu));
  // one grain's compliance is (1 - nu^2) / E normally and (2 - nu) / G tangentially; two grains
  // add theirs, a rigid shape none. the pbd model's springs are hooke's
  out->law = p->model == grnMODEL_DEM ? p->law : grnLAW_HOOKE;
  out->estar = (float)(e / (2 * (1 - nu * nu)));
  out->gstar = (float)(shear / (2 * (2 - nu)));
  out->estar_wall = (float)(e / (1 - nu * nu));
  out->gstar_wall = (float)(shear / (2 - nu));
  out->stiffness = (float)hooke_stiffness(p, out->estar);
  out->damping = (float)grn_dem_damping_ratio(out->law, p->restitution);
}
