// exits 0 when the cuda backend is usable here, 77 (ctest's skip code) when not, saying why
#include <stdio.h>

#include "granular.h"
#include "grn_solver.h"

int main(void) {
  if (grn_cuda_usable() == grnOK) return 0;
  printf("skipped: no usable cuda device: %s\n", grn_cuda_info());
  return 77;
}
