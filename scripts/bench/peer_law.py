"""The contact law of mjgranular's DEM model given to LIGGGHTS, so both run the same law.

Both codes' Hertz-Mindlin law has the same springs (normal 4/3 E* sqrt(R* d) d, tangential
stiffness 8 G* sqrt(R* d), with E* and G* from the same E and Poisson ratio) and the same form of
dashpot, 2 zeta sqrt(S m*) with S the current tangent normal (2 E* sqrt(R* d)) or tangential
stiffness. They differ in how zeta follows from the restitution asked for:

- mjgranular (kernels/dem_material.c, grn_dem_damping_ratio) integrates the head-on impact of its
  own law, the force never pulling, and takes the zeta whose rebound is exactly the restitution e.
- LIGGGHTS (normal_model_hertz.h) uses zeta_L = sqrt(5/6) |beta(e_L)|, beta(e) = ln e /
  sqrt(ln^2 e + pi^2): the linear spring's formula, which for a Hertz contact gives another
  rebound than e_L.

So LIGGGHTS is given the restitution e_L whose zeta_L equals mjgranular's zeta (the inverse of its
formula below); with `limitForce on` (its normal force clamped at zero, as mjgranular's) its
head-on impact then rebounds with mjgranular's e.
"""

import math

SQRT_FIVE_SIXTHS = math.sqrt(5.0 / 6.0)


def liggghts_damping_ratio(restitution):
  """zeta_L = sqrt(5/6) |beta(e)| of LIGGGHTS' hertz model for its coefficientRestitution e."""
  log_e = math.log(restitution)
  return SQRT_FIVE_SIXTHS * abs(log_e) / math.sqrt(log_e ** 2 + math.pi ** 2)


def liggghts_restitution(zeta):
  """the coefficientRestitution e_L for which LIGGGHTS' hertz dashpot has damping ratio zeta
  (below sqrt(5/6), the most LIGGGHTS' formula can give, at e_L -> 0)."""
  b = zeta / SQRT_FIVE_SIXTHS  # |beta|
  if not 0 <= b < 1:
    raise ValueError("damping ratio %g is beyond LIGGGHTS' hertz model (< %.4f)"
                     % (zeta, SQRT_FIVE_SIXTHS))
  return math.exp(-math.pi * b / math.sqrt(1 - b * b))
