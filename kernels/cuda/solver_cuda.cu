// cuda backend: device memory, copies, and the substep as a list of phase launches (the kernels
// are in kernels.cu). the grains live on the device from set_grains to get_grains; per substep
// only the shapes go in, and the bodies' wrenches and four flags come out. every cuda call is
// checked and turned into a status; none exits.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "../grn_collide.h"
#include "../grn_solver.h"
#include "../grn_sorted.h"
#include "grn_cuda.h"

// large copies between the host's pageable memory (a plugin's state) and the device go through
// two page-locked halves of this size, the bus filling or emptying one while the host copies the
// other: from pageable memory the driver stages each copy itself, without that overlap
#define GRN_CUDA_STAGE_BYTES ((size_t)8 << 20)

typedef struct grnCuda_ {
  int device;                 // cuda device the arrays live on
  cudaStream_t stream;        // every copy and launch of this solver, in order
  grnData d;                  // grain arrays in device memory
  size_t bytes;               // device bytes allocated
  size_t pinned_bytes;        // page-locked host bytes allocated
  grnShape* shapes;           // device: shapes at the substep's pose               (max_shapes)
  grnShape* shapes_host;      // page-locked staging for shapes                     (max_shapes)
  int grid_cap;               // capacity of grids and grid_views
  grnGridView* grids;         // device: views of the sdf grids                     (grid_cap)
  grnGridView* grid_views;    // host copies of those views (device value pointers) (grid_cap)
  double* wrench_part;        // device: per-block wrench partials   (max_bodies x blocks x 6)
  double* out;                // device: wrench (max_bodies x 6), then overflow, nonfinite,
                              // nbr_overflow (int) and the largest squared displacement (bits)
  double* out_host;           // page-locked copy of out
  void* stage[2];             // page-locked halves of the large copies' staging (STAGE_BYTES
                              // each), for solvers with an array of two halves or more
  cudaEvent_t staged[2];      // the last copy through each half, on the stream
  float* body_mob;            // device: the bodies' mobilities                  (max_bodies x 36)
  double* impulse;            // device: this iterate's wrench per body          (max_bodies x 6)
  long long mob_version;      // s->mob_version of the mobilities on the device
  size_t out_bytes;           // bytes of out
  void* scan;                 // device: workspace of the pair-count scan           (scan_bytes)
  size_t scan_bytes;          // its size
  int lists_valid;            // the neighbour lists fit and were built from the current grains
  float moved2;               // largest squared displacement of a grain since the lists' build
} grnCuda;

//---------------------------------- errors --------------------------------------------------------

// status of a failed cuda call, recorded with the call and cuda's words for grn_status_message;
// clears the error so later checks see only their own
static grnStatus cuda_fail(cudaError_t err, const char* call) {
  cudaGetLastError();
  grnStatus st;
  switch (err) {
    case cudaSuccess: return grnOK;
    case cudaErrorMemoryAllocation: st = grnERR_MEMORY; break;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorDevicesUnavailable: st = grnERR_NO_DEVICE; break;
    default: st = grnERR_DEVICE;
  }
  char text[200];
  snprintf(text, sizeof(text), "%.60s: %.100s (%.30s)", call, cudaGetErrorString(err),
           cudaGetErrorName(err));
  grn_set_device_error(st, text);
  return st;
}

// the name of a cuda call in its failure message: the function, without its arguments
static const char* cuda_call_name(const char* call, char* buf, size_t size) {
  size_t n = strcspn(call, "(");
  snprintf(buf, size, "%.*s", (int)(n < size ? n : size - 1), call);
  return buf;
}

// return the status of a failed cuda call from the enclosing function
#define GRN_CUDA_TRY(call)                                                    \
  do {                                                                        \
    cudaError_t grn_err_ = (call);                                            \
    if (grn_err_ != cudaSuccess) {                                            \
      char grn_name_[64];                                                     \
      return cuda_fail(grn_err_, cuda_call_name(#call, grn_name_, sizeof(grn_name_))); \
    }                                                                         \
  } while (0)

// the solver's device made current for one backend call, the caller's restored after it (a
// host thread may drive solvers on several devices, and its own cuda code keeps its device)
class grnDeviceScope {
 public:
  explicit grnDeviceScope(int device) {
    err_ = cudaGetDevice(&previous_);
    if (err_ == cudaSuccess && previous_ != device) {
      err_ = cudaSetDevice(device);
      changed_ = err_ == cudaSuccess;
    }
  }
  ~grnDeviceScope() {
    if (changed_) cudaSetDevice(previous_);
  }
  cudaError_t status() const { return err_; }

 private:
  int previous_ = 0;
  bool changed_ = false;
  cudaError_t err_;
};

// the enclosing backend call runs on g's device; returns the status when it cannot be made current
#define GRN_CUDA_ON_DEVICE(g)                    \
  grnDeviceScope grn_scope_((g)->device);       \
  GRN_CUDA_TRY(grn_scope_.status())

//---------------------------------- usability -----------------------------------------------------

// what a first look at the cuda driver and device found; computed once per process
typedef struct grnCudaProbe_ {
  grnStatus status;           // grnOK when usable
  char info[512];             // the device, or why not
} grnCudaProbe;

static grnCudaProbe cuda_probe_run(void) {
  grnCudaProbe p;
  p.status = grnERR_NO_DEVICE;
  int driver = 0, runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaError_t err = cudaDriverGetVersion(&driver);

  // a driver new enough for the runtime linked into this build
  if (err != cudaSuccess || driver == 0) {
    snprintf(p.info, sizeof(p.info), "no cuda driver (libcuda.so.1 not found)");
    cudaGetLastError();
    return p;
  }
  if (driver / 1000 < runtime / 1000) {
    snprintf(p.info, sizeof(p.info),
             "cuda driver %d.%d is older than the cuda %d.%d runtime of this build; update the "
             "nvidia driver", driver / 1000, driver % 1000 / 10, runtime / 1000,
             runtime % 1000 / 10);
    return p;
  }

  // a device
  int count = 0;
  err = cudaGetDeviceCount(&count);
  if (err == cudaErrorInsufficientDriver) {
    snprintf(p.info, sizeof(p.info),
             "cuda driver %d.%d is too old for the cuda %d.%d runtime of this build",
             driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    cudaGetLastError();
    return p;
  }
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0)) {
    snprintf(p.info, sizeof(p.info), "no cuda device");
    cudaGetLastError();
    return p;
  }
  if (err != cudaSuccess) {
    snprintf(p.info, sizeof(p.info), "cuda initialisation failed: %s", cudaGetErrorString(err));
    cudaGetLastError();
    return p;
  }
  int device = 0;
  cudaDeviceProp prop;
  err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess) {
    snprintf(p.info, sizeof(p.info), "cuda device query failed: %s", cudaGetErrorString(err));
    cudaGetLastError();
    return p;
  }
  int mode = cudaComputeModeDefault;
  cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device);
  if (mode == cudaComputeModeProhibited) {
    snprintf(p.info, sizeof(p.info), "cuda device %d (%.96s) is in prohibited compute mode", device,
             prop.name);
    return p;
  }

  // code for it: machine code for its architecture, or ptx the driver can compile
  err = grn_cuda_check_image();
  if (err != cudaSuccess) {
    snprintf(p.info, sizeof(p.info),
             "cuda device %d (%.96s, compute capability %d.%d) cannot run this build's kernels "
             "(%s); rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d%d", device, prop.name,
             prop.major, prop.minor, cudaGetErrorString(err), prop.major, prop.minor);
    cudaGetLastError();
    return p;
  }

  p.status = grnOK;
  snprintf(p.info, sizeof(p.info), "cuda device %d: %.96s (compute capability %d.%d, %.1f GiB, "
           "driver %d.%d)", device, prop.name, prop.major, prop.minor,
           prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), driver / 1000, driver % 1000 / 10);
  return p;
}

// the probe, run by the first caller (c++ initialises function statics once, thread-safely)
static const grnCudaProbe* cuda_probe(void) {
  static const grnCudaProbe probe = cuda_probe_run();
  return &probe;
}

grnStatus grn_cuda_usable(void) { return cuda_probe()->status; }

const char* grn_cuda_info(void) { return cuda_probe()->info; }

//---------------------------------- lifetime ------------------------------------------------------

static void cuda_destroy(grnSolver* s) {
  grnCuda* g = (grnCuda*)s->impl;
  if (!g) return;
  // errors are ignored here: after a device fault these all fail, and there is nothing to undo
  grnDeviceScope scope(g->device);
  if (g->stream) cudaStreamSynchronize(g->stream);
  for (int a = 0; a < grn_nsolver_arrays; a++) {
    void* p = *grn_array_field(&g->d, grn_solver_arrays + a);
    if (p) cudaFree(p);
  }
  void* arrays[] = {g->scan, g->shapes, g->grids, g->wrench_part, g->out, g->body_mob,
                    g->impulse};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
    if (arrays[i]) cudaFree(arrays[i]);
  }
  for (int i = 0; i < g->grid_cap; i++) {
    if (g->grid_views[i].values) cudaFree((void*)g->grid_views[i].values);
  }
  if (g->shapes_host) cudaFreeHost(g->shapes_host);
  if (g->out_host) cudaFreeHost(g->out_host);
  for (int h = 0; h < 2; h++) {
    if (g->stage[h]) cudaFreeHost(g->stage[h]);
    if (g->staged[h]) cudaEventDestroy(g->staged[h]);
  }
  if (g->stream) cudaStreamDestroy(g->stream);
  cudaGetLastError();
  free(g->grid_views);
  free(g);
  s->impl = NULL;
}

// a zeroed device array of bytes (at least one) into *ptr, counted
static grnStatus cuda_alloc(grnCuda* g, void** ptr, size_t bytes) {
  bytes = bytes ? bytes : 1;
  cudaError_t err = cudaMalloc(ptr, bytes);
  if (err != cudaSuccess) {
    *ptr = NULL;
    return cuda_fail(err, "cudaMalloc");
  }
  g->bytes += bytes;
  GRN_CUDA_TRY(cudaMemsetAsync(*ptr, 0, bytes, g->stream));
  return grnOK;
}

static grnStatus cuda_create_arrays(grnSolver* s, grnCuda* g) {
  grnData* d = &g->d;
  size_t cap = (size_t)s->params.capacity;
  size_t nbody = s->params.max_bodies > 0 ? (size_t)s->params.max_bodies : 0;
  size_t nshape = s->params.max_shapes > 0 ? (size_t)s->params.max_shapes : 1;
  d->cap = (int)cap;
  d->hash_size = (unsigned)s->params.hash_size;
  // pairs: as many as the slots (a pair fills one or two), the most the cpu backend grows to, so
  // that no pair is ever dropped and both backends solve the same pairs without the host
  // reading the count mid-substep; none for solvers without pairs
  d->cp_cap = grn_solves_pairs(&s->params) ? (int)(GRN_MAX_PAIRS * cap) : 0;
  // one workspace for the pair counts' scan and the sorted broadphase's
  g->scan_bytes = grn_cuda_scan_bytes((int)cap + 1);
  if (s->params.broadphase == grnBROADPHASE_SORTED) {
    size_t bytes = grn_cuda_scan_bytes((int)d->hash_size + 1);
    if (bytes > g->scan_bytes) g->scan_bytes = bytes;
  }
  g->out_bytes = 6 * nbody * sizeof(double) + 4 * sizeof(int);

  // every array of the tables (those of no length, another model's or one loop's without it,
  // stay NULL), then the backend's own
  size_t largest = 0;
  for (int a = 0; a < grn_nsolver_arrays; a++) {
    const grnArrayDesc* desc = grn_solver_arrays + a;
    size_t count = grn_unit_count(desc->unit, d, (int)nbody, &s->params);
    if (count == 0) continue;
    size_t bytes = count * desc->width * desc->size;
    if (bytes > largest) largest = bytes;
    grnStatus st = cuda_alloc(g, grn_array_field(d, desc), bytes);
    if (st != grnOK) return st;
  }
  struct { void** ptr; size_t bytes; } arrays[] = {
    {&g->scan, g->scan_bytes},
    {(void**)&g->shapes, nshape * sizeof(grnShape)},
    {(void**)&g->wrench_part, nbody * GRN_CUDA_WRENCH_BLOCKS * 6 * sizeof(double)},
    {(void**)&g->out, g->out_bytes},
    {(void**)&g->body_mob, 36 * nbody * sizeof(float)},
    {(void**)&g->impulse, 6 * nbody * sizeof(double)},
  };
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
    grnStatus st = cuda_alloc(g, arrays[i].ptr, arrays[i].bytes);
    if (st != grnOK) return st;
  }
  // the flags after the wrench in out
  d->overflow = (int*)(g->out + 6 * nbody);
  d->nonfinite = d->overflow + 1;
  d->nbr_overflow = d->overflow + 2;

  // page-locked staging on the host
  void* host = NULL;
  GRN_CUDA_TRY(cudaMallocHost(&host, nshape * sizeof(grnShape)));
  g->shapes_host = (grnShape*)host;
  g->pinned_bytes += nshape * sizeof(grnShape);
  host = NULL;
  GRN_CUDA_TRY(cudaMallocHost(&host, g->out_bytes));
  g->out_host = (double*)host;
  g->pinned_bytes += g->out_bytes;
  for (int h = 0; largest >= 2 * GRN_CUDA_STAGE_BYTES && h < 2; h++) {
    GRN_CUDA_TRY(cudaMallocHost(&g->stage[h], GRN_CUDA_STAGE_BYTES));
    g->pinned_bytes += GRN_CUDA_STAGE_BYTES;
    GRN_CUDA_TRY(cudaEventCreateWithFlags(&g->staged[h], cudaEventDisableTiming));
  }
  GRN_CUDA_TRY(cudaStreamSynchronize(g->stream));
  return grnOK;
}

// the params' device, checked: it exists, takes work and runs this build's kernels
static grnStatus cuda_check_device(int device) {
  int count = 0;
  GRN_CUDA_TRY(cudaGetDeviceCount(&count));
  char text[200];
  if (device >= count) {
    snprintf(text, sizeof(text), "cuda device %d asked for; this machine has %d (0 to %d)", device,
             count, count - 1);
    grn_set_device_error(grnERR_NO_DEVICE, text);
    return grnERR_NO_DEVICE;
  }
  int mode = cudaComputeModeDefault;
  GRN_CUDA_TRY(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device));
  if (mode == cudaComputeModeProhibited) {
    snprintf(text, sizeof(text), "cuda device %d is in prohibited compute mode", device);
    grn_set_device_error(grnERR_NO_DEVICE, text);
    return grnERR_NO_DEVICE;
  }
  return grnOK;
}

static grnStatus cuda_create(grnSolver* s) {
  grnStatus st = cuda_check_device(s->params.device);
  if (st != grnOK) return st;
  grnCuda* g = (grnCuda*)calloc(1, sizeof(grnCuda));
  if (!g) return grnERR_MEMORY;
  s->impl = g;
  g->device = s->params.device;
  {
    grnDeviceScope scope(g->device);
    cudaError_t err = scope.status();
    if (err == cudaSuccess) err = grn_cuda_check_image();
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    if (err != cudaSuccess) g->stream = NULL;
    st = err == cudaSuccess ? cuda_create_arrays(s, g) : cuda_fail(err, "cuda_create");
  }
  if (st != grnOK) cuda_destroy(s);  // create cleans up after itself
  return st;
}

//---------------------------------- grains and grids ----------------------------------------------

static grnStatus cuda_set_grains(grnSolver* s, int n, const float* pos, const float* vel) {
  grnCuda* g = (grnCuda*)s->impl;
  size_t bytes = 3 * (size_t)n * sizeof(float);
  GRN_CUDA_ON_DEVICE(g);
  if (n > 0) {
    GRN_CUDA_TRY(cudaMemcpyAsync(g->d.pos, pos, bytes, cudaMemcpyHostToDevice, g->stream));
    if (vel) {
      GRN_CUDA_TRY(cudaMemcpyAsync(g->d.vel, vel, bytes, cudaMemcpyHostToDevice, g->stream));
    } else {
      GRN_CUDA_TRY(cudaMemsetAsync(g->d.vel, 0, bytes, g->stream));
    }
  }
  if (n > 0) GRN_CUDA_TRY(cudaMemsetAsync(g->d.angvel, 0, bytes, g->stream));
  GRN_CUDA_TRY(grn_cuda_reset_orientations(&g->d, n, g->stream));
  // a new count comes in the caller's order (granular.c puts the same count in the solver's)
  if (n != g->d.n) GRN_CUDA_TRY(grn_cuda_caller_order(&g->d, n, g->stream));
  // a new configuration: no contacts to warm start from
  GRN_CUDA_TRY(cudaMemsetAsync(g->d.npair, 0, (size_t)g->d.cap * sizeof(int), g->stream));
  GRN_CUDA_TRY(cudaMemsetAsync(g->d.nshape, 0, (size_t)g->d.cap * sizeof(int), g->stream));
  GRN_CUDA_TRY(cudaStreamSynchronize(g->stream));
  g->d.n = n;
  g->lists_valid = 0;
  return grnOK;
}

// the bytes of chunk k of a staged copy of this many bytes
static size_t stage_chunk(size_t bytes, size_t k) {
  size_t rest = bytes - k * GRN_CUDA_STAGE_BYTES;
  return rest < GRN_CUDA_STAGE_BYTES ? rest : GRN_CUDA_STAGE_BYTES;
}

// 1 when a copy of this many bytes goes through the staging halves (two chunks or more)
static int staged_copy(const grnCuda* g, size_t bytes) {
  return g->stage[0] && bytes >= 2 * GRN_CUDA_STAGE_BYTES;
}

static grnStatus cuda_write(grnSolver* s, const grnArrayDesc* a, size_t first, const void* host,
                            size_t bytes) {
  grnCuda* g = (grnCuda*)s->impl;
  GRN_CUDA_ON_DEVICE(g);
  char* dev = (char*)*grn_array_field(&g->d, a) + first;
  if (!staged_copy(g, bytes)) {
    GRN_CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream));
  } else {
    // chunk k into half k % 2 once the bus has taken chunk k - 2 out of it (and nothing an
    // earlier call left on the stream still reads the halves)
    GRN_CUDA_TRY(cudaStreamSynchronize(g->stream));
    for (size_t k = 0; k * GRN_CUDA_STAGE_BYTES < bytes; k++) {
      const int h = (int)(k % 2);
      const size_t at = k * GRN_CUDA_STAGE_BYTES, len = stage_chunk(bytes, k);
      if (k >= 2) GRN_CUDA_TRY(cudaEventSynchronize(g->staged[h]));
      memcpy(g->stage[h], (const char*)host + at, len);
      GRN_CUDA_TRY(cudaMemcpyAsync(dev + at, g->stage[h], len, cudaMemcpyHostToDevice,
                                   g->stream));
      GRN_CUDA_TRY(cudaEventRecord(g->staged[h], g->stream));
    }
  }
  GRN_CUDA_TRY(cudaStreamSynchronize(g->stream));
  return grnOK;
}

static grnStatus cuda_read(const grnSolver* s, const grnArrayDesc* a, size_t first, void* host,
                           size_t bytes) {
  grnCuda* g = (grnCuda*)s->impl;
  GRN_CUDA_ON_DEVICE(g);
  const char* dev = (const char*)*grn_array_field(&g->d, a) + first;
  if (!staged_copy(g, bytes)) {
    GRN_CUDA_TRY(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, g->stream));
    GRN_CUDA_TRY(cudaStreamSynchronize(g->stream));
    return grnOK;
  }
  // chunk k out to half k % 2 (the host emptied it of chunk k - 2 in the step before), then
  // chunk k - 1 copied on from its half while chunk k crosses the bus
  const size_t chunks = (bytes + GRN_CUDA_STAGE_BYTES - 1) / GRN_CUDA_STAGE_BYTES;
  for (size_t k = 0; k <= chunks; k++) {
    if (k < chunks) {
      const int h = (int)(k % 2);
      GRN_CUDA_TRY(cudaMemcpyAsync(g->stage[h], dev + k * GRN_CUDA_STAGE_BYTES,
                                   stage_chunk(bytes, k), cudaMemcpyDeviceToHost, g->stream));
      GRN_CUDA_TRY(cudaEventRecord(g->staged[h], g->stream));
    }
    if (k > 0) {
      const int h = (int)((k - 1) % 2);
      GRN_CUDA_TRY(cudaEventSynchronize(g->staged[h]));
      memcpy((char*)host + (k - 1) * GRN_CUDA_STAGE_BYTES, g->stage[h],
             stage_chunk(bytes, k - 1));
    }
  }
  return grnOK;
}

// room for at least count grid views, on the device and in the host copy
static grnStatus cuda_reserve_grids(grnCuda* g, int count) {
  if (count <= g->grid_cap) return grnOK;
  int cap = g->grid_cap ? 2 * g->grid_cap : 8;
  if (cap < count) cap = count;
  grnGridView* views = (grnGridView*)realloc(g->grid_views, cap * sizeof(grnGridView));
  if (!views) return grnERR_MEMORY;
  memset(views + g->grid_cap, 0, (cap - g->grid_cap) * sizeof(grnGridView));
  g->grid_views = views;
  grnGridView* grids = NULL;
  GRN_CUDA_TRY(cudaMalloc((void**)&grids, cap * sizeof(grnGridView)));
  if (g->grids) {
    cudaError_t err = cudaStreamSynchronize(g->stream);  // no kernel still reads the old views
    if (err == cudaSuccess) err = cudaFree(g->grids);
    if (err != cudaSuccess) {
      cudaFree(grids);
      return cuda_fail(err, "cudaFree of the old grid views");
    }
  }
  g->bytes += (size_t)(cap - g->grid_cap) * sizeof(grnGridView);
  g->grids = grids;
  g->grid_cap = cap;
  return grnOK;
}

static grnStatus cuda_add_grid(grnSolver* s, int id) {
  grnCuda* g = (grnCuda*)s->impl;
  const grnGridView* host = s->grids + id;
  size_t bytes = (size_t)host->nx * host->ny * host->nz * sizeof(float);
  GRN_CUDA_ON_DEVICE(g);
  grnStatus st = cuda_reserve_grids(g, id + 1);
  if (st != grnOK) return st;

  // the values, then the view of them at index id (the device array is re-sent whole: grids
  // are few and added once)
  float* values = NULL;
  GRN_CUDA_TRY(cudaMalloc((void**)&values, bytes));
  grnGridView view = *host;
  view.values = values;
  g->grid_views[id] = view;
  cudaError_t err = cudaMemcpyAsync(values, host->values, bytes, cudaMemcpyHostToDevice, g->stream);
  if (err == cudaSuccess) {
    err = cudaMemcpyAsync(g->grids, g->grid_views, (size_t)(id + 1) * sizeof(grnGridView),
                          cudaMemcpyHostToDevice, g->stream);
  }
  if (err == cudaSuccess) err = cudaStreamSynchronize(g->stream);
  if (err != cudaSuccess) {
    g->grid_views[id].values = NULL;
    cudaFree(values);
    return cuda_fail(err, "copying a distance grid to the device");
  }
  g->bytes += bytes;
  return grnOK;
}

//---------------------------------- substep -------------------------------------------------------

static grnStatus cuda_substep(grnSolver* s) {
  grnCuda* g = (grnCuda*)s->impl;
  grnData* d = &g->d;
  const grnConsts* k = &s->consts;
  cudaStream_t stream = g->stream;
  int nbody = s->params.max_bodies, iterations = s->params.iterations;
  GRN_CUDA_ON_DEVICE(g);
  cudaGetLastError();  // a stale error from other code must not fail this substep

  // shapes at this substep's pose in (shapes_host is free: the last substep waited for its copy)
  d->shapes = g->shapes;
  d->nshapes = s->nshapes;
  d->grids = g->grids;
  d->nclump = s->nclump;
  if (s->nshapes > 0) {
    size_t bytes = (size_t)s->nshapes * sizeof(grnShape);
    memcpy(g->shapes_host, s->shapes_now, bytes);
    GRN_CUDA_TRY(cudaMemcpyAsync(g->shapes, g->shapes_host, bytes, cudaMemcpyHostToDevice,
                                 stream));
  }

  // the bodies' mobilities when they changed (implicit coupling)
  d->body_mob = NULL;
  if (s->mobile && grn_bodies_answer_iterates(k)) {
    if (g->mob_version != s->mob_version) {
      GRN_CUDA_TRY(cudaMemcpyAsync(g->body_mob, s->body_mob, 36 * (size_t)nbody * sizeof(float),
                                   cudaMemcpyHostToDevice, stream));
      g->mob_version = s->mob_version;
    }
    d->body_mob = g->body_mob;
  }

  // wrench and flags cleared
  GRN_CUDA_TRY(cudaMemsetAsync(g->out, 0, g->out_bytes, stream));

  // neighbour lists rebuilt when a grain may have come within the cutoff of one not listed
  grnConsts kc = *k;
  kc.lists = !g->lists_valid || g->moved2 > k->moved2;

  // last substep's contacts become the warm start
  grn_swap_contacts(d);
  // the grains into the order of the sorted list, which is then built
  int built = 0;
  if (kc.lists && grn_sorted_keeps_order(&kc)) {
    GRN_CUDA_TRY(grn_cuda_sorted_reorder(d, &kc, g->scan, g->scan_bytes, stream));
    built = 1;
  }

  // the model's phases in order (grn_phases.h), one launch each
  grnPhaseTable table = grn_phase_table(&kc);
  unsigned* moved2 = (unsigned*)(d->overflow + 3);
  int first = 0, iteration = 0;
  for (int e = 0; e < table.count; e++) {
    grnPhase phase = table.phase[e];
    switch (phase) {
      case grnPHASE_BROADPHASE:
        if (kc.lists && !built) {
          GRN_CUDA_TRY(grn_cuda_broadphase(d, &kc, kc.inv_list_cell, g->scan, g->scan_bytes,
                                           stream));
        }
        break;
      case grnPHASE_NUMBER:
        GRN_CUDA_TRY(grn_cuda_number_pairs(d, g->scan, g->scan_bytes, stream));
        break;
      case grnPHASE_BODY_CONTACTS:
        if (d->body_mob) {
          GRN_CUDA_TRY(grn_cuda_body_response(d, &kc, nbody, 1, g->wrench_part, g->impulse,
                                              stream));
        }
        break;
      case grnPHASE_ITERATE:
        first = e;
        break;
      case grnPHASE_NEXT_ITERATE:
        // the bodies answer each iterate the next one reads
        grn_swap_iterates(d);
        if (++iteration < iterations) {
          if (d->body_mob) {
            GRN_CUDA_TRY(grn_cuda_body_response(d, &kc, nbody, 0, g->wrench_part, g->impulse,
                                                stream));
          }
          e = first;
        }
        break;
      case grnPHASE_WRENCH:
        GRN_CUDA_TRY(grn_cuda_wrench(d, &kc, nbody, g->wrench_part, g->out, stream));
        break;
      default:
        GRN_CUDA_TRY(grn_cuda_phase(phase, d, &kc, moved2, stream));
    }
  }

  // wrench and flags out
  GRN_CUDA_TRY(cudaMemcpyAsync(g->out_host, g->out, g->out_bytes, cudaMemcpyDeviceToHost,
                               stream));
  GRN_CUDA_TRY(cudaStreamSynchronize(stream));
  for (int j = 0; j < 6 * nbody; j++) s->wrench_sum[j] += g->out_host[j];
  const int* flags = (const int*)(g->out_host + 6 * (nbody > 0 ? nbody : 0));
  if (kc.lists) g->lists_valid = !flags[2];
  memcpy(&g->moved2, flags + 3, sizeof(float));
  return flags[1] ? grnERR_NONFINITE : grnOK;
}

//---------------------------------- queries -------------------------------------------------------

// the broadphase built on the device, then the same pair listing as the cpu backend on a host
// copy
static grnStatus cuda_find_pairs(grnSolver* s, int* pairs, int max, int* npairs) {
  grnCuda* g = (grnCuda*)s->impl;
  grnData* d = &g->d;
  const grnConsts* k = &s->consts;
  int n = d->n;
  *npairs = 0;
  if (n == 0) return grnOK;
  GRN_CUDA_ON_DEVICE(g);
  GRN_CUDA_TRY(grn_cuda_broadphase(d, k, k->inv_cell, g->scan, g->scan_bytes, g->stream));

  // host copies of what the neighbour walk reads: positions, radii, the caller's index of each
  // grain, which clump each grain is a sphere of and its clump's first sphere and type
  // (grn_never_touch), the broadphase's arrays
  grnData h;
  memset(&h, 0, sizeof(h));
  h.n = n;
  // (the solver's clump count: the device data's is brought up to date at the next substep only,
  // and the pairs may be asked for before any)
  h.nclump = s->nclump;
  h.cap = d->cap;
  h.hash_size = d->hash_size;
  h.cem = s->cem;
  size_t nc = k->clumps ? (size_t)s->nclump : 0, ng = k->clumps ? (size_t)n : 0;
  struct { void** host; const void* device; size_t bytes; } copy[] = {
    {(void**)&h.pos, d->pos, 3 * (size_t)n * sizeof(float)},
    {(void**)&h.rad, d->rad, (size_t)n * sizeof(float)},
    {(void**)&h.uid, d->uid, d->uid ? (size_t)n * sizeof(int) : 0},
    {(void**)&h.elem_clump, d->elem_clump, ng * sizeof(int)},
    {(void**)&h.clump_first, d->clump_first, nc * sizeof(int)},
    {(void**)&h.clump_type, d->clump_type, nc * sizeof(int)},
  };
  const int ncopy = (int)(sizeof(copy) / sizeof(copy[0]));
  grnStatus st = grnOK;
  cudaError_t err = cudaSuccess;
  for (int a = 0; a < ncopy && st == grnOK && err == cudaSuccess; a++) {
    if (copy[a].bytes == 0) continue;
    *copy[a].host = malloc(copy[a].bytes);
    if (!*copy[a].host) {
      st = grnERR_MEMORY;
    } else {
      err = cudaMemcpyAsync(*copy[a].host, copy[a].device, copy[a].bytes,
                            cudaMemcpyDeviceToHost, g->stream);
    }
  }
  for (int a = 0; a < grn_nbroadphase_arrays && st == grnOK && err == cudaSuccess; a++) {
    const grnArrayDesc* desc = grn_broadphase_arrays + a;
    size_t bytes = grn_unit_count(desc->unit, d, 0, &s->params) * desc->width * desc->size;
    if (bytes == 0) continue;
    void** field = grn_array_field(&h, desc);
    *field = malloc(bytes);
    if (!*field) {
      st = grnERR_MEMORY;
    } else {
      err = cudaMemcpyAsync(*field, *grn_array_field(d, desc), bytes, cudaMemcpyDeviceToHost,
                            g->stream);
    }
  }
  cudaError_t sync = cudaStreamSynchronize(g->stream);  // no copy still writes the buffers
  if (err == cudaSuccess) err = sync;
  if (err != cudaSuccess && st == grnOK) st = cuda_fail(err, "copying the broadphase to the host");

  // each pair once, as (i < j), in order of i then j
  if (st == grnOK) st = grn_list_pairs(&h, k, pairs, max, npairs);
  for (int a = 0; a < ncopy; a++) free(*copy[a].host);
  for (int a = 0; a < grn_nbroadphase_arrays; a++) {
    free(*grn_array_field(&h, grn_broadphase_arrays + a));
  }
  return st;
}

static size_t cuda_memory_bytes(const grnSolver* s) {
  const grnCuda* g = (const grnCuda*)s->impl;
  return g->bytes + g->pinned_bytes + sizeof(grnCuda) +
         (size_t)g->grid_cap * sizeof(grnGridView);
}

static const grnBackendOps grn_cuda_ops = {
  cuda_create, cuda_destroy, cuda_set_grains, cuda_write, cuda_read, cuda_add_grid,
  cuda_substep, cuda_find_pairs, cuda_memory_bytes,
};

const grnBackendOps* grn_cuda_backend(void) { return &grn_cuda_ops; }
