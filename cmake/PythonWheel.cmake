# what pip's wheel takes from the build (scikit-build-core installs into the wheel's platlib):
# libmjgranular.so inside the mjgranular package, where mjgranular.plugin_path() looks first.
# the scenes come along as package data through pyproject.toml (wheel.force-include).
install(TARGETS mjgranular LIBRARY DESTINATION mjgranular)
# libmujoco.so.X.Y.Z sits in the mujoco package beside this one; a process that imported mujoco
# already holds it (the soname matches), the rpath only serves a load without that import
set_target_properties(mjgranular PROPERTIES INSTALL_RPATH "$ORIGIN/../mujoco")
