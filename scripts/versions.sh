# the one place where pinned versions live; sourced by the scripts and read by CMakeLists.txt.
# pyproject.toml, which pip reads alone, repeats the mujoco and scikit-build-core pins
# (tests/python/test_package.py holds them equal)
# MuJoCo is the mujoco-core wheel: the bindings, libmujoco.so.X.Y.Z and its headers, all the plugin
# and its python use (the `mujoco` wheel adds MuJoCo Studio alone); installed with its rendering
# extra (glfw, PyOpenGL) as `mujoco` would. 4.0.1, not 4.0.0: 4.0.0's sparse Cholesky gives the
# Newton solver a wrong factor in branched trees of nv >= 60 (tests/python/test_package.py shows
# it), and `mujoco` 4.0.0, the newest `mujoco`, requires mujoco-core 4.0.0
MJGRANULAR_MUJOCO_PACKAGE=mujoco-core
MJGRANULAR_MUJOCO_VERSION=4.0.1
MJGRANULAR_PY_PACKAGES="numpy==2.3.5 pytest==9.2.0 pillow==12.0.0 imageio-ffmpeg==0.8.1 gymnasium==1.4.0 ray==2.60.0"
# the Franka Panda of the excavation scene (scripts/examples/panda.py), installed without
# dependencies: MuJoCo Menagerie's package (downloads the robot from the Menagerie's GitHub
# release on first use) and gym-hil, whose wheel ships a copy of the Menagerie Panda (for
# machines without GitHub)
MJGRANULAR_PANDA_PY_PACKAGES="mujoco-menagerie==2026.10.4 gym-hil==0.1.14"
# the build backend of pyproject.toml, for setup.sh's editable install of the package
MJGRANULAR_BUILD_PY_PACKAGES="scikit-build-core==1.1.2"
# only scripts/bench.sh and scripts/excavate.sh need these (plots)
MJGRANULAR_BENCH_PY_PACKAGES="matplotlib==3.11.2"
