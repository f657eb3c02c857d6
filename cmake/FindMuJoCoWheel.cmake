# locates mujoco's c headers and its versioned shared library (libmujoco.so.X.Y.Z) in the
# python wheel pinned by scripts/versions.sh, unless MUJOCO_INCLUDE_DIR / MUJOCO_LIBRARY are set.
file(STRINGS "${PROJECT_SOURCE_DIR}/scripts/versions.sh" _pin REGEX "^MJGRANULAR_MUJOCO_VERSION=")
string(REGEX REPLACE "^MJGRANULAR_MUJOCO_VERSION=" "" MJGRANULAR_MUJOCO_VERSION "${_pin}")

# pip install (scikit-build-core) builds with the python it runs, which holds the pinned mujoco as
# a build requirement; elsewhere the python of scripts/setup.sh's .venv
if(SKBUILD)
  set(_mj_python "${Python_EXECUTABLE}")
else()
  set(_mj_python "${PROJECT_SOURCE_DIR}/.venv/bin/python")
endif()
set(MUJOCO_PYTHON "${_mj_python}" CACHE FILEPATH
    "python whose mujoco wheel provides headers and library")
# paths found in the wheel before are found again (a new pin replaces the wheel's library), and so
# are paths to a library that is gone; paths the user set are kept
if(MUJOCO_LIBRARY AND (MUJOCO_LIBRARY STREQUAL MJGRANULAR_MUJOCO_WHEEL_LIBRARY
                       OR NOT EXISTS "${MUJOCO_LIBRARY}"))
  unset(MUJOCO_INCLUDE_DIR CACHE)
  unset(MUJOCO_LIBRARY CACHE)
endif()
if(NOT MUJOCO_INCLUDE_DIR OR NOT MUJOCO_LIBRARY)
  if(NOT EXISTS "${MUJOCO_PYTHON}")
    message(FATAL_ERROR "mujoco not found: run scripts/setup.sh, or set MUJOCO_INCLUDE_DIR and "
                        "MUJOCO_LIBRARY")
  endif()
  execute_process(
    COMMAND "${MUJOCO_PYTHON}" -c
            "import mujoco, os; print(os.path.dirname(mujoco.HEADERS_DIR)); print(os.path.dirname(mujoco.__file__))"
    OUTPUT_VARIABLE _mj_out RESULT_VARIABLE _mj_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _mj_rc EQUAL 0)
    message(FATAL_ERROR "python at ${MUJOCO_PYTHON} cannot import mujoco: run scripts/setup.sh")
  endif()
  string(REPLACE "\n" ";" _mj_out "${_mj_out}")
  list(GET _mj_out 0 _mj_inc)
  list(GET _mj_out 1 _mj_pkg)
  file(GLOB _mj_lib "${_mj_pkg}/libmujoco.so.*")
  if(NOT _mj_lib)
    message(FATAL_ERROR "no libmujoco.so.* in ${_mj_pkg}")
  endif()
  list(GET _mj_lib 0 _mj_lib)
  set(MUJOCO_INCLUDE_DIR "${_mj_inc}" CACHE PATH "folder holding mujoco/mujoco.h" FORCE)
  set(MUJOCO_LIBRARY "${_mj_lib}" CACHE FILEPATH "libmujoco shared library" FORCE)
  set(MJGRANULAR_MUJOCO_WHEEL_LIBRARY "${_mj_lib}" CACHE INTERNAL "the library found in the wheel")
endif()
message(STATUS "mujoco: ${MUJOCO_LIBRARY} (pinned ${MJGRANULAR_MUJOCO_VERSION})")

# linked by absolute path (IMPORTED_NO_SONAME would make cmake pass -lmujoco, which finds nothing:
# the wheel has no unversioned symlink); dependents record the library's own soname
# (libmujoco.so.X.Y.Z), so a process that already loaded the wheel's libmujoco shares it
add_library(mujoco SHARED IMPORTED GLOBAL)
set_target_properties(mujoco PROPERTIES
  IMPORTED_LOCATION "${MUJOCO_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${MUJOCO_INCLUDE_DIR}")
