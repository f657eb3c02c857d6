# instrumentation of every c and c++ target, for the two checks CI runs besides the tests:
# - MJGRANULAR_SANITIZE (scripts/sanitize.sh): AddressSanitizer and UndefinedBehaviorSanitizer,
#   halting at the first report
# - MJGRANULAR_FUZZ (scripts/fuzz.sh, clang): the same, plus libFuzzer's coverage feedback; the
#   fuzz targets (tests/fuzz/) link libFuzzer's main
# Included after cmake/FindMuJoCoWheel.cmake (it marks the mujoco target), before the targets.
if(NOT MJGRANULAR_SANITIZE AND NOT MJGRANULAR_FUZZ)
  return()
endif()
if(MJGRANULAR_HAVE_CUDA)
  message(FATAL_ERROR "MJGRANULAR_SANITIZE and MJGRANULAR_FUZZ need the cuda backend off: "
                      "-DMJGRANULAR_CUDA=OFF")
endif()
# float-cast-overflow: a float out of an integer's range converted to it, undefined behaviour that
# gcc's -fsanitize=undefined leaves out
set(_mjg_sanitizers address,undefined,float-cast-overflow)
if(MJGRANULAR_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "MJGRANULAR_FUZZ needs clang: CC=clang CXX=clang++")
  endif()
  set(_mjg_sanitizers fuzzer-no-link,address,undefined)
endif()
# -g: reports name files and lines
set(_mjg_flags -fsanitize=${_mjg_sanitizers} -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${_mjg_flags}>")
add_link_options(-fsanitize=address,undefined)
# mujoco/mjsan.h (included by mujoco.h) sees __SANITIZE_ADDRESS__ and turns every mj_markStack /
# mj_freeStack into a call to mj__markStack / mj__freeStack, which only a libmujoco itself built
# with asan exports; the wheel's exports mj_markStack alone, so a sanitized plugin would fail to
# load ("undefined symbol: mj__markStack"). Whoever includes mujoco's headers compiles without the
# macro; asan still instruments the code (the macro only announces it). This works with gcc only:
# clang also asks __has_feature(address_sanitizer), which no flag undoes, so the sanitized plugin
# is built by gcc (the fuzz targets call neither function)
set_property(TARGET mujoco APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
             "$<$<COMPILE_LANGUAGE:C,CXX>:-U__SANITIZE_ADDRESS__>")
message(STATUS "instrumented: -fsanitize=${_mjg_sanitizers}")
