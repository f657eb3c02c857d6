// the cuda backend's entry points in a build without nvcc: never usable.
#include "grn_solver.h"

grnStatus grn_cuda_usable(void) { return grnERR_UNAVAILABLE; }

const grnBackendOps* grn_cuda_backend(void) { return NULL; }

const char* grn_cuda_info(void) {
  return "cuda backend not compiled into this build (nvcc not found, or MJGRANULAR_CUDA=OFF)";
}
