// cuda backend: one kernel per phase, one thread per grain, each calling the same per-grain
// function from kernels/*.h that the cpu backend calls; and their launch wrappers.
#include "grn_cuda.h"

#include <cub/device/device_scan.cuh>

#include "../grn_body.h"
#include "../grn_hash.h"
#include "../grn_phases.h"
#include "../grn_sorted.h"

//---------------------------------- kernels -------------------------------------------------------

// index of this thread's grain
__device__ __forceinline__ int grn_thread_index(void) {
  return (int)(blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void grn_k_clear_heads(grnData d) {
  unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < d.hash_size) d.head[b] = -1;
}

// push grain i onto the front of its bucket's list: link to the head seen, then swap it in if
// it is still the head, else retry with the newer head
__global__ void grn_k_hash_insert(grnData d, float inv_cell) {
  int i = grn_thread_index();
  if (i >= d.n) return;
  grn_compute_cell(&d, i, inv_cell);
  int* head = d.head + grn_grain_bucket(&d, i);
  int old = *(volatile int*)head;
  for (;;) {
    d.next[i] = old;
    int seen = atomicCAS(head, old, i);
    if (seen == old) break;
    old = seen;
  }
}

// the sorted broadphase (grn_sorted.h): the box of the grains' cells emptied
__global__ void grn_k_sorted_empty_box(grnData d) { grn_sorted_empty_box(d.cell_box); }

// cell of grain i, and the box widened by its warp's cells (every thread of the warp takes part
// in the shuffles, those past the grains with an empty box)
__global__ void grn_k_sorted_cells(grnData d, float inv_cell) {
  int i = grn_thread_index();
  int box[6];
  grn_sorted_empty_box(box);
  if (i < d.n) {
    grn_compute_cell(&d, i, inv_cell);
    grn_sorted_widen_box(box, d.cell + 3 * i);
  }
  for (int lane = 16; lane > 0; lane /= 2) {
    int other[6];
    for (int a = 0; a < 6; a++) other[a] = __shfl_xor_sync(0xffffffffu, box[a], lane);
    grn_sorted_merge_box(box, other);
  }
  if ((threadIdx.x & 31) == 0) {
    for (int a = 0; a < 3; a++) {
      atomicMin(d.cell_box + a, box[a]);
      atomicMax(d.cell_box + 3 + a, box[3 + a]);
    }
  }
}

// grain i's rank among its bucket's grains
__global__ void grn_k_sorted_count(grnData d) {
  int i = grn_thread_index();
  if (i < d.n) d.bucket_rank[i] = atomicAdd(d.bucket_count + grn_grain_bucket(&d, i), 1);
}

__global__ void grn_k_sorted_scatter(grnData d) {
  int i = grn_thread_index();
  if (i < d.n) grn_sorted_scatter_grain(&d, i);
}

__global__ void grn_k_sorted_order(grnData d) {
  unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < d.hash_size) grn_sorted_order_bucket(&d, b);
}

// the sorted list's order kept by the solver (grn_sorted.h steps 5 and 6)
__global__ void grn_k_sorted_renumber(grnData d) {
  int e = grn_thread_index();
  if (e < d.n) grn_sorted_renumber_entry(&d, e);
}

__global__ void grn_k_sorted_gather(grnData d) {
  int e = grn_thread_index();
  if (e < d.n) grn_sorted_gather_entry(&d, e);
}

// grains in the caller's order
__global__ void grn_k_caller_order(grnData d, int n) {
  int i = grn_thread_index();
  if (i < n) d.uid[i] = d.rank[i] = i;
}

__global__ void grn_k_reset_orientations(grnData d, int n) {
  int i = grn_thread_index();
  if (i < n) grn_reset_orientation(&d, i);
}

// one kernel per grain phase of grn_phases.h, one thread per grain; a phase that moves the grains
// raises *moved2 (float bits, device) to the largest squared displacement since the neighbour
// lists were built (non-negative floats order as their bit patterns do)
#define GRN_K_GRAIN(phase, function, moves)                                   \
  __global__ void grn_k_##function(grnData d, grnConsts c, unsigned* moved2) { \
    int i = grn_thread_index();                                               \
    if (i >= d.n) return;                                                     \
    function(&d, &c, i);                                                      \
    if (moves) {                                                              \
      float m = grn_neighbors_moved2(&d, i);                                  \
      if (m > 0) atomicMax(moved2, __float_as_uint(m));                       \
    }                                                                         \
  }
GRN_GRAIN_PHASES(GRN_K_GRAIN)
#undef GRN_K_GRAIN

// one kernel per clump phase, one thread per clump; one that moves the clumps raises *moved2 as
// a grain phase does, over their spheres
#define GRN_K_CLUMP(phase, function, moves)                                   \
  __global__ void grn_k_##function(grnData d, grnConsts c, unsigned* moved2) { \
    int k = grn_thread_index();                                               \
    if (k >= d.nclump) return;                                                \
    function(&d, &c, k);                                                      \
    if (moves) {                                                              \
      float m = 0;                                                            \
      for (int i = d.clump_first[k]; i < d.clump_first[k] + d.clump_count[k]; i++) { \
        m = fmaxf(m, grn_neighbors_moved2(&d, i));                            \
      }                                                                       \
      if (m > 0) atomicMax(moved2, __float_as_uint(m));                       \
    }                                                                         \
  }
GRN_CLUMP_PHASES(GRN_K_CLUMP)
#undef GRN_K_CLUMP

// one kernel per pair phase, over the pairs (their count is on the device, in pair_first[n]) in
// a grid-stride loop
#define GRN_K_PAIR(phase, function)                                           \
  __global__ void grn_k_##function(grnData d, grnConsts c) {                  \
    int count = min(d.pair_first[d.n], d.cp_cap);                             \
    for (int p = grn_thread_index(); p < count; p += gridDim.x * blockDim.x) { \
      function(&d, &c, p);                                                    \
    }                                                                         \
  }
GRN_PAIR_PHASES(GRN_K_PAIR)
#undef GRN_K_PAIR

// sum of v over the block into red[.][0] by a fixed tree; every thread must call it
__device__ __forceinline__ void grn_block_sum6(double (*red)[GRN_CUDA_BLOCK], const double* v) {
  int t = threadIdx.x;
  for (int j = 0; j < 6; j++) red[j][t] = v[j];
  __syncthreads();
  for (int half = GRN_CUDA_BLOCK / 2; half > 0; half >>= 1) {
    if (t < half) {
      for (int j = 0; j < 6; j++) red[j][t] += red[j][t + half];
    }
    __syncthreads();
  }
}

// per-block wrench partials. thread t of block b takes grains t + b B, t + b B + G B, ... of the
// caller's order (B threads, G blocks) and sums in double, as the cpu does per thread; bodies that
// no grain of the block touches (by a 64-bit mask of body mod 64) are written as zeros without a
// pass
__global__ void __launch_bounds__(GRN_CUDA_BLOCK)
grn_k_wrench_partial(grnData d, grnConsts c, int nbody, double* part) {
  __shared__ double red[6][GRN_CUDA_BLOCK];
  __shared__ unsigned long long block_mask;
  int t = threadIdx.x, stride = gridDim.x * blockDim.x, first = grn_thread_index();

  // bodies this block's grains touch
  unsigned long long mask = 0;
  for (int u = first; u < d.n; u += stride) {
    int i = grn_user_grain(&d, u);
    for (int k = 0; k < d.nshape[i]; k++) {
      int body = d.shapes[d.sc_shape[GRN_SHAPE_SLOT(k, i, d.cap)]].body;
      if (body >= 0) mask |= 1ull << (body & 63);
    }
  }
  if (t == 0) block_mask = 0;
  __syncthreads();
  if (mask) atomicOr(&block_mask, mask);
  __syncthreads();
  mask = block_mask;

  for (int b = 0; b < nbody; b++) {
    double* out = part + ((size_t)b * gridDim.x + blockIdx.x) * 6;
    // mask is the same in every thread of the block, so the barriers below are uniform
    if (!((mask >> (b & 63)) & 1ull)) {
      if (t < 6) out[t] = 0;
      continue;
    }
    double w[6] = {0, 0, 0, 0, 0, 0};
    for (int u = first; u < d.n; u += stride) {
      int i = grn_user_grain(&d, u);
      for (int k = 0; k < d.nshape[i]; k++) {
        if (d.shapes[d.sc_shape[GRN_SHAPE_SLOT(k, i, d.cap)]].body != b) continue;
        grnVec3 f, q;
        grn_shape_contact_wrench(&d, &c, i, k, &f, &q);
        w[0] += f.x; w[1] += f.y; w[2] += f.z;
        w[3] += q.x; w[4] += q.y; w[5] += q.z;
      }
    }
    grn_block_sum6(red, w);
    if (t < 6) out[t] = red[t][0];
    __syncthreads();  // red is reused by the next body
  }
}

// per-body sums of the block partials: block b sums body b's nblock partials by a fixed tree
__global__ void __launch_bounds__(GRN_CUDA_BLOCK)
grn_k_wrench_final(const double* part, int nblock, double* out) {
  __shared__ double red[6][GRN_CUDA_BLOCK];
  int b = blockIdx.x;
  double w[6] = {0, 0, 0, 0, 0, 0};
  for (int g = threadIdx.x; g < nblock; g += blockDim.x) {
    const double* p = part + ((size_t)b * nblock + g) * 6;
    for (int j = 0; j < 6; j++) w[j] += p[j];
  }
  grn_block_sum6(red, w);
  if (threadIdx.x < 6) out[6 * b + threadIdx.x] = red[threadIdx.x][0];
}

// each body's number of grain contacts (integer atomics: the same totals in any order)
__global__ void grn_k_body_count(grnData d) {
  int i = grn_thread_index();
  if (i >= d.n) return;
  for (int k = 0; k < d.nshape[i]; k++) {
    int body = d.shapes[d.sc_shape[GRN_SHAPE_SLOT(k, i, d.cap)]].body;
    if (body >= 0) atomicAdd(d.body_nc + body, 1);
  }
}

// each body's velocity change from its impulse wrench (force sums times dt), one thread per body
__global__ void grn_k_body_dv(grnData d, grnConsts c, int nbody, const double* wrench) {
  int b = grn_thread_index();
  if (b >= nbody) return;
  double p[6];
  for (int j = 0; j < 6; j++) p[j] = wrench[6 * b + j] * c.dt;
  grn_body_velocity_change(d.body_mob + 36 * b, p, d.body_dv + 6 * b);
}

// the unordered alternative to the two wrench passes above: each grain adds its contacts' force
// and torque straight into out (nbody x 6, zeroed before) with double atomics, in whatever order
// the threads get there
__global__ void grn_k_wrench_atomic(grnData d, grnConsts c, double* out) {
  int i = grn_thread_index();
  if (i >= d.n) return;
  for (int k = 0; k < d.nshape[i]; k++) {
    int body = d.shapes[d.sc_shape[GRN_SHAPE_SLOT(k, i, d.cap)]].body;
    if (body < 0) continue;
    grnVec3 f, q;
    grn_shape_contact_wrench(&d, &c, i, k, &f, &q);
    double* w = out + 6 * body;
    atomicAdd(w + 0, (double)f.x); atomicAdd(w + 1, (double)f.y); atomicAdd(w + 2, (double)f.z);
    atomicAdd(w + 3, (double)q.x); atomicAdd(w + 4, (double)q.y); atomicAdd(w + 5, (double)q.z);
  }
}

//---------------------------------- launch wrappers -----------------------------------------------

// blocks covering count threads
static unsigned grn_blocks(unsigned count) {
  return (count + GRN_CUDA_BLOCK - 1) / GRN_CUDA_BLOCK;
}

cudaError_t grn_cuda_phase(grnPhase phase, const grnData* d, const grnConsts* c,
                           unsigned* moved2, cudaStream_t stream) {
  if (d->n <= 0) return cudaSuccess;
  unsigned blocks = grn_blocks(d->n);
  switch (phase) {
#define GRN_LAUNCH_GRAIN(id, function, moves)                                  \
    case id:                                                                   \
      grn_k_##function<<<blocks, GRN_CUDA_BLOCK, 0, stream>>>(*d, *c, moved2); \
      break;
    GRN_GRAIN_PHASES(GRN_LAUNCH_GRAIN)
#undef GRN_LAUNCH_GRAIN
#define GRN_LAUNCH_PAIR(id, function)                                          \
    case id:                                                                   \
      grn_k_##function<<<blocks, GRN_CUDA_BLOCK, 0, stream>>>(*d, *c);         \
      break;
    GRN_PAIR_PHASES(GRN_LAUNCH_PAIR)
#undef GRN_LAUNCH_PAIR
#define GRN_LAUNCH_CLUMP(id, function, moves)                                  \
    case id:                                                                   \
      if (d->nclump > 0) {                                                     \
        grn_k_##function<<<grn_blocks(d->nclump), GRN_CUDA_BLOCK, 0, stream>>>(*d, *c, moved2); \
      }                                                                        \
      break;
    GRN_CLUMP_PHASES(GRN_LAUNCH_CLUMP)
#undef GRN_LAUNCH_CLUMP
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t grn_cuda_reset_orientations(const grnData* d, int n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  grn_k_reset_orientations<<<grn_blocks(n), GRN_CUDA_BLOCK, 0, stream>>>(*d, n);
  return cudaGetLastError();
}

// the hash broadphase: every bucket emptied, then each grain pushed onto its bucket's list
static cudaError_t grn_cuda_build_hash(const grnData* d, float inv_cell, cudaStream_t stream) {
  if (d->hash_size > 0) {
    grn_k_clear_heads<<<grn_blocks(d->hash_size), GRN_CUDA_BLOCK, 0, stream>>>(*d);
  }
  if (d->n > 0) grn_k_hash_insert<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d, inv_cell);
  return cudaGetLastError();
}

// the sorted broadphase: cells and their box, ranks counted, the counts summed into the buckets'
// starts, the grains scattered, each bucket ordered
static cudaError_t grn_cuda_build_sorted(const grnData* d, float inv_cell, void* scan,
                                         size_t scan_bytes, cudaStream_t stream) {
  unsigned buckets = d->hash_size + 1;
  cudaError_t err = cudaMemsetAsync(d->bucket_count, 0, buckets * sizeof(int), stream);
  if (err != cudaSuccess) return err;
  grn_k_sorted_empty_box<<<1, 1, 0, stream>>>(*d);
  if (d->n > 0) {
    grn_k_sorted_cells<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d, inv_cell);
    grn_k_sorted_count<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d);
  }
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  err = cub::DeviceScan::ExclusiveSum(scan, scan_bytes, d->bucket_count, d->bucket_start,
                                      (int)buckets, stream);
  if (err != cudaSuccess) return err;
  if (d->n > 0) grn_k_sorted_scatter<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d);
  grn_k_sorted_order<<<grn_blocks(d->hash_size), GRN_CUDA_BLOCK, 0, stream>>>(*d);
  return cudaGetLastError();
}

cudaError_t grn_cuda_sorted_reorder(grnData* d, const grnConsts* c, void* scan, size_t scan_bytes,
                                    cudaStream_t stream) {
  cudaError_t err = grn_cuda_build_sorted(d, c->inv_list_cell, scan, scan_bytes, stream);
  if (err != cudaSuccess || d->n == 0) return err;
  grn_k_sorted_renumber<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d);
  grn_k_sorted_gather<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d);
  err = cudaGetLastError();
  // the launches took the arrays as they were; the swap is of the host's pointers
  if (err == cudaSuccess) grn_sorted_swap_gathered(d);
  return err;
}

cudaError_t grn_cuda_caller_order(const grnData* d, int n, cudaStream_t stream) {
  if (n <= 0 || !d->uid) return cudaSuccess;
  grn_k_caller_order<<<grn_blocks(n), GRN_CUDA_BLOCK, 0, stream>>>(*d, n);
  return cudaGetLastError();
}

cudaError_t grn_cuda_broadphase(const grnData* d, const grnConsts* c, float inv_cell, void* scan,
                                size_t scan_bytes, cudaStream_t stream) {
  if (c->broadphase == grnBROADPHASE_SORTED) {
    return grn_cuda_build_sorted(d, inv_cell, scan, scan_bytes, stream);
  }
  return grn_cuda_build_hash(d, inv_cell, stream);
}

size_t grn_cuda_scan_bytes(int items) {
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, (const int*)NULL, (int*)NULL, items);
  return bytes;
}

cudaError_t grn_cuda_number_pairs(const grnData* d, void* scan, size_t scan_bytes,
                                  cudaStream_t stream) {
  if (d->n <= 0) return cudaSuccess;
  // the scan's last entry becomes the total
  cudaError_t err = cudaMemsetAsync(d->pair_count + d->n, 0, sizeof(int), stream);
  if (err != cudaSuccess) return err;
  return cub::DeviceScan::ExclusiveSum(scan, scan_bytes, d->pair_count, d->pair_first, d->n + 1,
                                       stream);
}

int grn_cuda_wrench_blocks(int n) {
  int blocks = n > 0 ? (int)grn_blocks((unsigned)n) : 1;
  return blocks < GRN_CUDA_WRENCH_BLOCKS ? blocks : GRN_CUDA_WRENCH_BLOCKS;
}

cudaError_t grn_cuda_wrench(const grnData* d, const grnConsts* c, int nbody, double* part,
                            double* out, cudaStream_t stream) {
  if (nbody <= 0) return cudaSuccess;
  if (!c->ordered) {
    cudaError_t err = cudaMemsetAsync(out, 0, 6 * (size_t)nbody * sizeof(double), stream);
    if (err != cudaSuccess || d->n <= 0) return err;
    grn_k_wrench_atomic<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d, *c, out);
    return cudaGetLastError();
  }
  int nblock = grn_cuda_wrench_blocks(d->n);
  grn_k_wrench_partial<<<nblock, GRN_CUDA_BLOCK, 0, stream>>>(*d, *c, nbody, part);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  grn_k_wrench_final<<<nbody, GRN_CUDA_BLOCK, 0, stream>>>(part, nblock, out);
  return cudaGetLastError();
}

cudaError_t grn_cuda_body_response(const grnData* d, const grnConsts* c, int nbody, int count,
                                   double* part, double* impulse, cudaStream_t stream) {
  if (nbody <= 0) return cudaSuccess;
  cudaError_t err;
  if (count) {
    err = cudaMemsetAsync(d->body_nc, 0, nbody * sizeof(int), stream);
    if (err != cudaSuccess) return err;
    if (d->n > 0) grn_k_body_count<<<grn_blocks(d->n), GRN_CUDA_BLOCK, 0, stream>>>(*d);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  err = grn_cuda_wrench(d, c, nbody, part, impulse, stream);
  if (err != cudaSuccess) return err;
  grn_k_body_dv<<<grn_blocks(nbody), GRN_CUDA_BLOCK, 0, stream>>>(*d, *c, nbody, impulse);
  return cudaGetLastError();
}

cudaError_t grn_cuda_check_image(void) {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, grn_k_grn_pj_narrowphase_grain);
}
