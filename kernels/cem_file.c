// reading fields files (cem_file.h) and packing them into the solver's field array (grn_cem.h).
#include "cem_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grn_cem.h"

// the file as bytes with a read position; a failed read sets why once and stops the rest
typedef struct Reader_ {
  const unsigned char* bytes;
  size_t size, at;
  const char* path;
  char* why;
  int why_size;
  int failed;
} Reader;

static int fail(Reader* r, const char* cause) {
  if (!r->failed) snprintf(r->why, r->why_size, "%s: at byte %zu: %s", r->path, r->at, cause);
  r->failed = 1;
  return -1;
}

static int take(Reader* r, void* out, size_t n) {
  if (r->failed) return -1;
  if (r->size - r->at < n) return fail(r, "the file ends early");
  memcpy(out, r->bytes + r->at, n);
  r->at += n;
  return 0;
}

// a uint32 in [lo, hi] as an int
static int take_count(Reader* r, int lo, int hi, const char* what, int* out) {
  uint32_t v = 0;
  if (take(r, &v, sizeof(v))) return -1;
  if (v < (uint32_t)lo || v > (uint32_t)hi) {
    char cause[128];
    snprintf(cause, sizeof(cause), "%s %u is outside %d .. %d", what, v, lo, hi);
    return fail(r, cause);
  }
  *out = (int)v;
  return 0;
}

static int take_floats(Reader* r, float* out, size_t n) {
  if (take(r, out, n * sizeof(float))) return -1;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(out[i])) return fail(r, "a number is not finite");
  }
  return 0;
}

// the numbers of net in the file: per layer its weights and biases
static int net_numbers(const grnCemNet* net) {
  int count = 0;
  for (int l = 0; l < net->nlayer; l++) count += net->width[l + 1] * (net->width[l] + 1);
  return count;
}

// a net with in inputs and out outputs
static int take_net(Reader* r, int in, int out, grnCemNet* net) {
  if (take_count(r, GRN_CEM_MIN_LAYERS, GRN_CEM_MAX_LAYERS, "a net's layer count", &net->nlayer)) {
    return -1;
  }
  for (int l = 0; l <= net->nlayer; l++) {
    if (take_count(r, 1, GRN_CEM_MAX_WIDTH, "a layer's width", net->width + l)) return -1;
  }
  if (net->width[0] != in || net->width[net->nlayer] != out) {
    return fail(r, "a net's inputs or outputs are not those of its field");
  }
  net->nnumber = net_numbers(net);
  net->numbers = (float*)malloc((size_t)net->nnumber * sizeof(float));
  if (!net->numbers) return fail(r, "out of memory");
  return take_floats(r, net->numbers, (size_t)net->nnumber);
}

static int parse(Reader* r, grnCemFile* f) {
  char magic[8];
  if (take(r, magic, sizeof(magic))) return -1;
  if (!memcmp(magic, "MJGCEM01", 8)) {
    return fail(r, "fields of the 9-wide net input (MJGCEM01): refit them with python -m "
                   "mjgranular.cem fit");
  }
  if (memcmp(magic, "MJGCEM02", 8)) return fail(r, "not a fields file (MJGCEM02)");
  if (take_count(r, 1, 1 << 16, "the type count", &f->ntype)) return -1;
  if (take_count(r, 1, 1 << 20, "the pair count", &f->npair)) return -1;
  f->name = calloc((size_t)f->ntype, sizeof(*f->name));
  f->fingerprint = (uint64_t*)calloc((size_t)f->ntype, sizeof(uint64_t));
  f->bound = (float*)calloc((size_t)f->ntype, sizeof(float));
  f->pair = (grnCemPair*)calloc((size_t)f->npair, sizeof(grnCemPair));
  if (!f->name || !f->fingerprint || !f->bound || !f->pair) return fail(r, "out of memory");
  for (int t = 0; t < f->ntype; t++) {
    if (take(r, f->name[t], GRN_CEM_NAME_SIZE) || take(r, f->fingerprint + t, 8) ||
        take_floats(r, f->bound + t, 1)) {
      return -1;
    }
    if (memchr(f->name[t], 0, GRN_CEM_NAME_SIZE) == NULL) {
      return fail(r, "a type's name is not NUL-terminated");
    }
  }
  for (int p = 0; p < f->npair; p++) {
    grnCemPair* q = f->pair + p;
    if (take_count(r, 0, f->ntype - 1, "a pair's first type", &q->a) ||
        take_count(r, q->a, f->ntype - 1, "a pair's second type", &q->b) ||
        take_floats(r, &q->scale, 1) || take_net(r, GRN_CEM_INPUTS, 1, &q->distance) ||
        take_net(r, GRN_CEM_INPUTS, 2, &q->arm)) {
      return -1;
    }
    if (!(q->scale > 0)) return fail(r, "a pair's length scale is not positive");
  }
  if (r->at != r->size) return fail(r, "bytes follow the last pair");
  return 0;
}

int grn_cem_file_read(const char* path, grnCemFile* out, char* why, int why_size) {
  memset(out, 0, sizeof(*out));
  FILE* fp = fopen(path, "rb");
  if (!fp) {
    snprintf(why, why_size, "%s: cannot be opened", path);
    return -1;
  }
  unsigned char* bytes = NULL;
  size_t size = 0, cap = 0;
  int ok = 1;
  for (;;) {
    if (size == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      unsigned char* grown = (unsigned char*)realloc(bytes, cap);
      if (!grown) { ok = 0; break; }
      bytes = grown;
    }
    size_t got = fread(bytes + size, 1, cap - size, fp);
    size += got;
    if (got == 0) break;
  }
  ok = ok && !ferror(fp);
  fclose(fp);
  Reader r = {bytes, size, 0, path, why, why_size, 0};
  int st = ok ? parse(&r, out) : fail(&r, "cannot be read");
  free(bytes);
  if (st) grn_cem_file_free(out);
  return st;
}

void grn_cem_file_free(grnCemFile* f) {
  for (int p = 0; f->pair && p < f->npair; p++) {
    free(f->pair[p].distance.numbers);
    free(f->pair[p].arm.numbers);
  }
  free(f->pair);
  free(f->name);
  free(f->fingerprint);
  free(f->bound);
  memset(f, 0, sizeof(*f));
}

long long grn_cem_pack_net(const grnCemNet* net, float* out, long long at) {
  long long next = at + 2 + net->nlayer;
  if (out) {
    out[at] = (float)net->nlayer;
    for (int l = 0; l <= net->nlayer; l++) out[at + 1 + l] = (float)net->width[l];
  }
  const float* layer = net->numbers;
  for (int l = 0; l < net->nlayer; l++) {
    int in = net->width[l], n_out = net->width[l + 1];
    if (out) {
      float* w = out + next;
      memcpy(w, layer, (size_t)(n_out * in) * sizeof(float));
      for (int o = 0; o < n_out; o++) {
        for (int k = 0; k < in; k++) w[n_out * in + k * n_out + o] = layer[o * in + k];
      }
      memcpy(w + 2 * n_out * in, layer + n_out * in, (size_t)n_out * sizeof(float));
    }
    next += 2 * n_out * in + n_out;
    layer += n_out * in + n_out;
  }
  return next;
}

// the file's pair of its types a and b (either order), -1 when it has none
static int find_pair(const grnCemFile* f, int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  for (int p = 0; p < f->npair; p++) {
    if (f->pair[p].a == lo && f->pair[p].b == hi) return p;
  }
  return -1;
}

long long grn_cem_pack(const grnCemFile* f, int ntype, const int* file_type,
                       const grnCemFrame* frame, float* out) {
  long long table = 1 + (long long)GRN_CEM_TYPE_FLOATS * ntype;
  long long at = table + (long long)ntype * ntype;
  if (out) out[0] = (float)ntype;
  for (int t = 0; t < ntype && out; t++) {
    float* rec = out + 1 + GRN_CEM_TYPE_FLOATS * t;
    memcpy(rec, frame[t].pos, sizeof(frame[t].pos));
    memcpy(rec + 3, frame[t].quat, sizeof(frame[t].quat));
    rec[7] = frame[t].radius;
    rec[8] = file_type[t] >= 0 ? 1.0f : 0.0f;
  }
  for (int a = 0; a < ntype; a++) {
    for (int b = a; b < ntype; b++) {
      long long offset = -1;
      if (file_type[a] >= 0 && file_type[b] >= 0) {
        int p = find_pair(f, file_type[a], file_type[b]);
        if (p < 0) return -1;
        const grnCemPair* q = f->pair + p;
        offset = at;
        if (out) {
          out[at] = q->scale;
          // the solver type whose mesh frame the nets read: the file's first type's
          out[at + 1] = (float)(file_type[a] == q->a ? a : b);
        }
        at = grn_cem_pack_net(&q->distance, out, at + 2);
        at = grn_cem_pack_net(&q->arm, out, at);
      }
      if (out) out[table + a * ntype + b] = out[table + b * ntype + a] = (float)offset;
    }
  }
  return at;
}
