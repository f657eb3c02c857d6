# the cuda backend: compiled whenever nvcc is found and MJGRANULAR_CUDA is on, else kernels/
# builds a stub that says it is unavailable. sets MJGRANULAR_HAVE_CUDA. included from the top
# level, since enable_language must run in the directory common to every target that links it.
set(MJGRANULAR_HAVE_CUDA OFF)
if(NOT MJGRANULAR_CUDA)
  message(STATUS "CUDA backend off: MJGRANULAR_CUDA is OFF")
  return()
endif()

include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "CUDA backend off: nvcc not found (set CUDACXX or CMAKE_CUDA_COMPILER to a "
                 "CUDA toolkit's nvcc to build it)")
  return()
endif()

# machine code for ampere (8.0, 8.6), ada (8.9) and hopper (9.0), plus 9.0 ptx that the driver
# compiles at load for newer gpus (blackwell); -DCMAKE_CUDA_ARCHITECTURES=... overrides
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80-real 86-real 89-real 90-real 90-virtual)
endif()
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_FLAGS_RELEASE "-O3 -DNDEBUG")
# the runtime is linked statically, so libmjgranular.so needs only the nvidia driver
set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

set(MJGRANULAR_HAVE_CUDA ON)
message(STATUS "CUDA backend on: nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
               "architectures ${CMAKE_CUDA_ARCHITECTURES}")
