// fuzz target for the bed-file reader (plugin/bedfile.c): the input is a bed file's bytes, read
// as a terrain's config and init read it: mjg_bedfile_info, then mjg_bedfile_read at the file's
// own radius, at the capacity key count defaults to and at a larger one, for both contact models.
// The reader takes a path: the bytes go into a memory file (memfd) named by /proc/self/fd.
// Seeds (corpus_bedfile/): beds of 6 settled grains saved by save_bed
// (scripts/mjgranular/bedfile.py) in format version 2, projected jacobi and dem with their
// contacts, one without, and a version 1 file made from the first (its grains and the contact
// arrays version 1 has); v3_pj_contacts: 4 grains that have turned, in version 3.
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bedfile.h"

// stop with the input's finding when a promise of bedfile.h does not hold
static void require(int ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "fuzz_bedfile: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create("mjg_bed", 0);
    require(fd >= 0, "no memory file");
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  }
  require(!ftruncate(fd, 0) && pwrite(fd, data, size, 0) == (ssize_t)size, "cannot write");

  mjgBedFileInfo info;
  char why[256] = "";
  if (mjg_bedfile_info(path, &info, why, sizeof(why))) {
    require(why[0], "a refusal without a cause");
    return 0;
  }
  int caps[2] = {info.n > 0 ? info.n : 1, info.n + 3};
  for (int c = 0; c < 2; c++) {
    for (int model = grnMODEL_PJ; model <= grnMODEL_DEM; model++) {
      mjgBed bed;
      why[0] = 0;
      // the kind of terrain the header asks for (a fuzzed fingerprint is as good as a real one)
      mjgBedKind kind = {info.radius, info.radius, info.spheres, info.ntype, info.types_hash};
      if (mjg_bedfile_read(path, caps[c], &kind, (grnModel)model, &bed, why, sizeof(why))) {
        require(why[0], "a refusal without a cause");
        continue;
      }
      // a bed that loads: the header's grains, finite, radii in (0, radius]; the contact state
      // kept only for the model that wrote it
      require(bed.n == info.n && bed.cap == caps[c] && (int)bed.model == model, "wrong sizes");
      for (int i = 0; i < 3 * bed.n; i++) {
        require(isfinite(bed.pos[i]) && isfinite(bed.vel[i]) && isfinite(bed.angvel[i]),
                "a grain not finite");
      }
      for (int i = 0; i < bed.n; i++) {
        require(bed.radius[i] > 0 && bed.radius[i] <= (float)info.radius, "a radius out of range");
        require(bed.type[i] >= 0 && bed.type[i] < info.ntype, "a type out of range");
        const mjtNum* q = bed.orient + 4 * i;
        require(grn_is_orientation(q[0], q[1], q[2], q[3]), "an orientation not unit");
      }
      require(!bed.contacts == !(info.has_contacts && info.model == model), "contacts kept wrong");
      mjg_bed_free(&bed);
    }
  }
  return 0;
}
