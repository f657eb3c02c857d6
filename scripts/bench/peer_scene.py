"""The settling scene that mjgranular, LIGGGHTS and LAMMPS all run (peers.py): its grains, its
box, the peers' contact model, the initial grains as a LAMMPS/LIGGGHTS read_data file, and the
measures of a final state.

One place for these numbers, so that every code runs the same scene and every final state is
measured the same way; repose.py, silo.py, grain_shapes.py and scripts/gpu_check.sh borrow them.
"""

import math

import numpy as np

# ---- the scene --------------------------------------------------------------------------------

RADIUS = 0.005           # grain radius [m] (mjgranular's default)
DENSITY = 2500.0         # grain density [kg/m^3] (mjgranular's default)
FRICTION = 0.5           # coulomb coefficient, grain-grain and grain-wall (mjgranular's default)
GRAVITY = 9.81           # [m/s^2]
BED_DEPTH = 0.10         # settled bed depth the box is sized for [m]
BED_PACKING = 0.60       # packing fraction assumed when sizing the box
INIT_PACKING = 0.30      # packing fraction of the random initial grains (below 0.38, where
                         # random sequential addition jams)

# ---- the peers' contact model (hertz-mindlin with tangential history) ----------------------------

YOUNG = 5e6              # young's modulus [Pa]: the soft value of the liggghts examples
POISSON = 0.3
RESTITUTION = 0.3        # normal coefficient of restitution (of a head-on impact: mjgranular's
                         # dem damping; liggghts is given the e_L of the same damping, peer_law.py)
PEER_DT = 1e-4           # peers' timestep [s] (see rayleigh_time; ~16% of it), and mjgranular dem's
SKIN = 0.0025            # neighbour list skin [m] (a quarter diameter)
WALL_YOUNG_FACTOR = 1000.0  # liggghts' walls are atom type 2 with this many times the grains' E
                         # (same poisson, friction, restitution): a grain on a wall then has
                         # E* = E / (1 - nu^2) / 1.001, as against mjgranular's rigid walls
DEM_LAW = "hertz"        # mjgranular dem's law: hertz-mindlin with tangential history
ROLLING = 0.0            # rolling resistance of mjgranular dem: none, as the peers' input has none
                         # (liggghts' rolling_friction off)
TORSIONAL = 0.0          # torsional resistance of mjgranular dem: none (no liggghts counterpart)

# the runs of the settling scene: mjgranular's models, then the peers (key: display name)
CODE_NAMES = {"mjgranular": "mjgranular PJ", "mjgranular-dem": "mjgranular DEM",
              "liggghts": "LIGGGHTS", "lammps": "LAMMPS"}
MODEL_CODES = {"pj": "mjgranular", "dem": "mjgranular-dem"}

SEED = 20240611


def grain_volume():
  return 4.0 / 3.0 * math.pi * RADIUS ** 3


def grain_mass():
  return DENSITY * grain_volume()


def rayleigh_time():
  """rayleigh wave time of a grain, the usual dem timestep scale [s]."""
  shear = YOUNG / (2 * (1 + POISSON))
  return math.pi * RADIUS * math.sqrt(DENSITY / shear) / (0.1631 * POISSON + 0.8766)


def hertz_time(speed):
  """duration of a hertz impact of two grains at relative speed [s]."""
  e_eff = YOUNG / (2 * (1 - POISSON ** 2))
  r_eff, m_eff = RADIUS / 2, grain_mass() / 2
  return 2.87 * (m_eff ** 2 / (r_eff * e_eff ** 2 * speed)) ** 0.2


def box_width(n):
  """side of the square box for n grains [m]."""
  return math.sqrt(n * grain_volume() / (BED_PACKING * BED_DEPTH))


def write_lammps_data(path, pos, w, height):
  """a read_data file for atom_style sphere (lammps) / granular (liggghts):
  id type diameter density x y z. the grains are type 1; type 2 is liggghts' walls' material."""
  n = len(pos)
  with open(path, "w") as f:
    f.write("mjgranular settling benchmark: %d grains\n\n%d atoms\n2 atom types\n\n" % (n, n))
    f.write("%.9g %.9g xlo xhi\n%.9g %.9g ylo yhi\n0 %.9g zlo zhi\n\nAtoms\n\n"
            % (-w / 2, w / 2, -w / 2, w / 2, height))
    ids = np.arange(1, n + 1)
    rows = np.column_stack([ids, np.ones(n), np.full(n, 2 * RADIUS), np.full(n, DENSITY), pos])
    np.savetxt(f, rows, fmt=["%d", "%d", "%.6g", "%.6g", "%.9g", "%.9g", "%.9g"])


# ---- sanity figures -----------------------------------------------------------------------------

def sanity(pos, vel, w):
  """bed height (mean of the column tops over the core), packing fraction in the bed core (grain
  centres counted in a box over the middle half of the width and the middle half of the height),
  largest and mean residual speed."""
  d = 2 * RADIUS
  core = 0.25 * w
  inner = (np.abs(pos[:, 0]) < 0.5 * w - 3 * d) & (np.abs(pos[:, 1]) < 0.5 * w - 3 * d)
  # column tops on a 3-diameter grid away from the walls
  cx = np.floor((pos[inner, 0] + 0.5 * w) / (3 * d)).astype(int)
  cy = np.floor((pos[inner, 1] + 0.5 * w) / (3 * d)).astype(int)
  key = cx * 100000 + cy
  order = np.argsort(key)
  ks, zs = key[order], pos[inner, 2][order]
  starts = np.r_[0, np.nonzero(np.diff(ks))[0] + 1]
  tops = np.maximum.reduceat(zs, starts) + RADIUS
  height = float(np.median(tops))
  zlo, zhi = 0.25 * height, 0.75 * height
  in_core = ((np.abs(pos[:, 0]) < core) & (np.abs(pos[:, 1]) < core) &
             (pos[:, 2] > zlo) & (pos[:, 2] < zhi))
  packing = float(in_core.sum() * grain_volume() / ((2 * core) ** 2 * (zhi - zlo)))
  speed = np.linalg.norm(vel, axis=1)
  return {"bed_height": height, "packing": packing, "vmax": float(speed.max()),
          "vmean": float(speed.mean()), "core_grains": int(in_core.sum())}
