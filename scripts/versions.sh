# the one place where pinned versions live; sourced by the scripts and read by CMakeLists.txt
MJGRANULAR_MUJOCO_VERSION=4.0.0
MJGRANULAR_PY_PACKAGES="numpy==2.3.5 pytest==9.2.0 pillow==12.0.0 imageio-ffmpeg==0.8.1 gymnasium==1.4.0"
# only scripts/bench.sh needs these (plots)
MJGRANULAR_BENCH_PY_PACKAGES="matplotlib==3.11.2"
