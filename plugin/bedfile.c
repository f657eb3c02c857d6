// reading bed files (format in bedfile.h): the header first, checked against the file's size, then
// the grains, each number decoded from little-endian bytes so the format is the same on every host.
#include "bedfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "granular.h"
#include "grn_solver.h"  // grn_contact_offset: the contact arrays a version 1 file holds
#include "input_limits.h"

static const char kMagic[8] = {'M', 'J', 'G', 'B', 'E', 'D', 0, 0};

//---------------------------------- little-endian decoding ----------------------------------------

static uint32_t le32(const unsigned char* b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static float lef32(const unsigned char* b) {
  uint32_t u = le32(b);
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

static double lef64(const unsigned char* b) {
  uint64_t u = (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
  double f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

//---------------------------------- header --------------------------------------------------------

// bytes of contact state of a file of this version with n grains: version 1 ends after sc_lin
static size_t contact_bytes(int version, int n) {
  if (n <= 0) return 0;
  return version == 1 ? grn_contact_offset(grnCONTACT_pair_rot, n) : grn_contact_state_bytes(n);
}

// expected size in bytes of a file with this header
static long long file_bytes(const mjgBedFileInfo* info) {
  static const long long grain_bytes_of_version[] = {0, 24, 40, 56};
  long long n = info->n, grain_bytes = grain_bytes_of_version[info->version];
  return MJG_BEDFILE_HEADER + grain_bytes * n +
         (info->has_contacts ? (long long)contact_bytes(info->version, info->n) : 0);
}

// path opened for reading if it is a regular file; NULL with why. Opened without blocking and
// checked before reading: a FIFO would wait for a writer, a device may never end
static FILE* open_regular(const char* path, char* why, int size) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    snprintf(why, size, "cannot open the file: %s (a relative path is taken from the current "
             "working directory)", strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode) ? "directory" :
                       S_ISFIFO(st.st_mode) ? "FIFO" : "device or socket";
    snprintf(why, size, "is not a regular file (a %s); a bed file is one", kind);
  } else {
    FILE* f = fdopen(fd, "rb");
    if (f) return f;
    snprintf(why, size, "cannot open the file: %s", strerror(errno));
  }
  if (fd >= 0) close(fd);
  return NULL;
}

// open path, read and check its header; the stream is left after the header. NULL with why
static FILE* open_bed(const char* path, mjgBedFileInfo* info, char* why, int size) {
  FILE* f = open_regular(path, why, size);
  if (!f) return NULL;
  unsigned char h[MJG_BEDFILE_HEADER];
  size_t got = fread(h, 1, sizeof(h), f);
  if (got >= 8 && memcmp(h, kMagic, 8)) {
    snprintf(why, size, "not a bed file (it does not start with MJGBED)");
  } else if (got < sizeof(h)) {
    snprintf(why, size, "truncated: %zu bytes, shorter than the %d-byte header", got,
             MJG_BEDFILE_HEADER);
  } else if (le32(h + 8) < 1 || le32(h + 8) > MJG_BEDFILE_VERSION) {
    snprintf(why, size, "format version %u, this plugin reads versions 1 to %d", le32(h + 8),
             MJG_BEDFILE_VERSION);
  } else if (le32(h + 12) & ~1u) {
    snprintf(why, size, "unknown flags 0x%x", le32(h + 12));
  } else if (le32(h + 20) > grnMODEL_PBD) {
    snprintf(why, size, "unknown contact model %u", le32(h + 20));
  } else if ((int32_t)le32(h + 16) < 0) {
    snprintf(why, size, "negative grain count %d", (int32_t)le32(h + 16));
  } else if ((int32_t)le32(h + 16) > GRN_MAX_GRAINS) {
    snprintf(why, size, "holds %d grains, more than the limit %d", (int32_t)le32(h + 16),
             GRN_MAX_GRAINS);
  } else if (!((float)lef64(h + 24) > 0) || !isfinite((float)lef64(h + 24))) {
    // the grains' radii are floats, each in (0, this radius]: none fits under a radius that is
    // not a positive float
    snprintf(why, size, "grain radius %g is not a positive number in float range", lef64(h + 24));
  } else {
    info->version = (int)le32(h + 8);
    info->has_contacts = (int)(le32(h + 12) & 1u);
    info->n = (int32_t)le32(h + 16);
    info->model = (int)le32(h + 20);
    info->radius = lef64(h + 24);

    // the size the header promises
    long long want = file_bytes(info), have = -1;
    if (fseek(f, 0, SEEK_END) == 0) have = ftell(f);
    if (have != want || fseek(f, MJG_BEDFILE_HEADER, SEEK_SET) != 0) {
      snprintf(why, size, "%s: %lld bytes, the header's %d grains%s need %lld",
               have < want ? "truncated" : "too long", have, info->n,
               info->has_contacts ? " with contact state" : "", want);
    } else {
      return f;
    }
  }
  fclose(f);
  return NULL;
}

int mjg_bedfile_info(const char* path, mjgBedFileInfo* info, char* why, int size) {
  FILE* f = open_bed(path, info, why, size);
  if (!f) return -1;
  fclose(f);
  return 0;
}

//---------------------------------- grains --------------------------------------------------------

// read 3 n float32 into out as mjtNum; -1 with why when short or not finite
static int read_vectors(FILE* f, int n, const char* what, mjtNum* out, char* why, int size) {
  enum { kChunk = 4096 };  // grains per read
  unsigned char buf[12 * kChunk];
  for (int first = 0; first < n; first += kChunk) {
    int count = n - first < kChunk ? n - first : kChunk;
    if (fread(buf, 12, count, f) != (size_t)count) {
      snprintf(why, size, "truncated while reading the %s", what);
      return -1;
    }
    for (int i = 0; i < 3 * count; i++) {
      float v = lef32(buf + 4 * i);
      if (!isfinite(v)) {
        snprintf(why, size, "the %s of grain %d is not finite", what, first + i / 3);
        return -1;
      }
      out[3 * first + i] = v;
    }
  }
  return 0;
}

// read n float32 orientations (n x 4) into out; each must be a unit quaternion; -1 with why
static int read_orientations(FILE* f, int n, mjtNum* out, char* why, int size) {
  unsigned char b[16];
  for (int i = 0; i < n; i++) {
    if (fread(b, 16, 1, f) != 1) {
      snprintf(why, size, "truncated while reading the orientations");
      return -1;
    }
    float q[4] = {lef32(b), lef32(b + 4), lef32(b + 8), lef32(b + 12)};
    if (!grn_is_orientation(q[0], q[1], q[2], q[3])) {
      snprintf(why, size, "the orientation of grain %d, (%g, %g, %g, %g), is not a unit "
               "quaternion", i, q[0], q[1], q[2], q[3]);
      return -1;
    }
    for (int k = 0; k < 4; k++) out[4 * i + k] = q[k];
  }
  return 0;
}

// read n float32 radii into out; each must lie in (0, largest] (key radius); -1 with why
static int read_radii(FILE* f, int n, double largest, mjtNum* out, char* why, int size) {
  unsigned char b[4];
  for (int i = 0; i < n; i++) {
    if (fread(b, 4, 1, f) != 1) {
      snprintf(why, size, "truncated while reading the radii");
      return -1;
    }
    float r = lef32(b);
    if (!(r > 0 && r <= largest)) {
      snprintf(why, size, "the radius of grain %d, %g m, is not in (0, %g] (key 'radius')", i, r,
               largest);
      return -1;
    }
    out[i] = r;
  }
  return 0;
}

// read the contact state of n grains (layout for capacity n, of a file of this version) into out,
// laid out for capacity cap; the arrays a version 1 file lacks stay zero
static int read_contacts(FILE* f, int version, int n, int cap, mjtNum* out, char* why,
                         int size) {
  size_t bytes = contact_bytes(version, n);
  unsigned char* raw = (unsigned char*)calloc(grn_contact_state_bytes(n) + 1, 1);
  if (!raw) {
    snprintf(why, size, "out of memory for the contact state of %d grains", n);
    return -1;
  }
  if (fread(raw, 1, bytes, f) != bytes) {
    free(raw);
    snprintf(why, size, "truncated while reading the contact state");
    return -1;
  }
  // every 4-byte number to host order in place (int32 and float32 alike)
  for (size_t i = 0; i < bytes; i += 4) {
    uint32_t u = le32(raw + i);
    memcpy(raw + i, &u, 4);
  }
  grnStatus st = n ? grn_convert_contacts(raw, n, out, cap, n) : grnOK;
  free(raw);
  if (st != grnOK) {
    snprintf(why, size, "the contact state lists more contacts per grain than the solver's slots");
    return -1;
  }
  return 0;
}

// no more than MJG_MAX_GRAINS_PER_CELL grains of the bed in a cube a grain diameter (of the
// largest, radius) wide; -1 with why
static int check_crowding(const mjgBed* bed, double radius, char* why, int size) {
  double corner[3], cell = 2 * radius;
  int most = mjg_bed_crowding(bed, cell, corner);
  if (most < 0) {
    snprintf(why, size, "out of memory for checking %d grains", bed->n);
  } else if (most > MJG_MAX_GRAINS_PER_CELL) {
    snprintf(why, size, "%d grains have their centres in one cube a grain diameter (%g m) wide, "
             "at (%g, %g, %g), more than the limit %d: the bed is not a bed of grains", most, cell,
             corner[0], corner[1], corner[2], MJG_MAX_GRAINS_PER_CELL);
  } else {
    return 0;
  }
  return -1;
}

int mjg_bedfile_read(const char* path, int cap, double radius, grnModel model, mjgBed* bed,
                     char* why, int size) {
  memset(bed, 0, sizeof(*bed));
  mjgBedFileInfo info;
  FILE* f = open_bed(path, &info, why, size);
  if (!f) return -1;
  int fail = 0;
  if (info.n > cap) {
    snprintf(why, size, "holds %d grains, more than the capacity %d (key 'count')", info.n, cap);
    fail = 1;
  } else if (fabs(info.radius - radius) > 1e-6 * radius) {
    snprintf(why, size, "holds grains of radius %.9g m, but key 'radius' is %.9g m", info.radius,
             radius);
    fail = 1;
  } else if (mjg_bed_alloc(bed, cap, 1, info.has_contacts, radius)) {
    snprintf(why, size, "out of memory for %d grains", cap);
    fail = 1;
  }
  if (!fail) {
    fail = read_vectors(f, info.n, "position", bed->pos, why, size) ||
           read_vectors(f, info.n, "velocity", bed->vel, why, size) ||
           (info.version > 1 &&
            read_vectors(f, info.n, "angular velocity", bed->angvel, why, size)) ||
           (info.version > 2 && read_orientations(f, info.n, bed->orient, why, size)) ||
           (info.version > 1 && read_radii(f, info.n, (float)radius, bed->radius, why, size)) ||
           (info.has_contacts &&
            read_contacts(f, info.version, info.n, cap, bed->contacts, why, size));
  }
  fclose(f);
  if (fail) {
    mjg_bed_free(bed);
    return -1;
  }
  // a version 1 or 2 bed keeps mjg_bed_alloc's identity orientations; a version 1 bed: one size,
  // the header's
  for (int i = 0; info.version == 1 && i < info.n; i++) bed->radius[i] = (float)info.radius;
  bed->n = info.n;
  // another model's contact state means nothing to this one
  if (info.model != (int)model) {
    free(bed->contacts);
    bed->contacts = NULL;
  }
  bed->model = model;
  if (check_crowding(bed, radius, why, size)) {
    mjg_bed_free(bed);
    return -1;
  }
  return 0;
}
