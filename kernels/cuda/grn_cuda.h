// cuda backend: launch wrappers around the per-phase kernels of kernels.cu. each launches one
// phase over the grains of d (device pointers) on a stream and returns the launch status; a
// phase over zero grains launches nothing. d and c are copied into the launch, so the caller may
// change them (e.g. swap iter and iter_next) as soon as the wrapper returns.
#ifndef MJGRANULAR_CUDA_GRN_CUDA_H_
#define MJGRANULAR_CUDA_GRN_CUDA_H_

#include <cuda_runtime.h>

#include "../grn_phases.h"

#define GRN_CUDA_BLOCK 256           // threads per block (a power of two: tree reductions)
#define GRN_CUDA_WRENCH_BLOCKS 512   // most blocks of per-block wrench partials

// a loop phase of grn_phases.h over the grains or the pairs of d; a phase that moves the grains
// raises *moved2 (float bits, device) to the largest squared displacement since the neighbour
// lists were built
cudaError_t grn_cuda_phase(grnPhase phase, const grnData* d, const grnConsts* c,
                           unsigned* moved2, cudaStream_t stream);

// the first n grains of d at the identity orientation (new grains)
cudaError_t grn_cuda_reset_orientations(const grnData* d, int n, cudaStream_t stream);

// the broadphase of c (cells 1 / inv_cell wide): the hash's linked lists, built with atomicCAS,
// or the sorted cell list (grn_sorted.h), its counts prefix-summed in scan (scan_bytes from
// grn_cuda_scan_bytes for hash_size + 1 items)
cudaError_t grn_cuda_broadphase(const grnData* d, const grnConsts* c, float inv_cell, void* scan,
                                size_t scan_bytes, cudaStream_t stream);

// the grains of d put in the order of its sorted list, built with the lists' cells (grn_sorted.h
// steps 1 to 7, after the swap of the contacts to the previous ones); swaps d's pointers
cudaError_t grn_cuda_sorted_reorder(grnData* d, const grnConsts* c, void* scan, size_t scan_bytes,
                                    cudaStream_t stream);

// the first n grains of d in the caller's order (a new grain count; nothing without the sorted
// broadphase)
cudaError_t grn_cuda_caller_order(const grnData* d, int n, cudaStream_t stream);

// bytes of scan workspace for an exclusive sum of items ints
size_t grn_cuda_scan_bytes(int items);

// pair counts summed into each grain's first pair (after the link phase), in scan (scan_bytes
// from grn_cuda_scan_bytes for cap + 1 items); the total into pair_first[n]
cudaError_t grn_cuda_number_pairs(const grnData* d, void* scan, size_t scan_bytes,
                                  cudaStream_t stream);

// number of blocks grn_cuda_wrench uses for n grains (fixed by n alone, so sums are repeatable)
int grn_cuda_wrench_blocks(int n);

// force and torque on each body from the final shape impulses, summed in double into out
// (nbody x 6): when c->ordered in a fixed order, per-block partials into part
// (nbody x wrench_blocks x 6), then per body; else by atomic adds, in no fixed order
cudaError_t grn_cuda_wrench(const grnData* d, const grnConsts* c, int nbody, double* part,
                            double* out, cudaStream_t stream);

// implicit coupling: each body's velocity change d->body_dv from the current shape impulses,
// summed as grn_cuda_wrench does into impulse (nbody x 6, device); with count, first each
// body's contacts into d->body_nc
cudaError_t grn_cuda_body_response(const grnData* d, const grnConsts* c, int nbody, int count,
                                   double* part, double* impulse, cudaStream_t stream);

// whether the kernels have code for the current device (cudaErrorNoKernelImageForDevice if not)
cudaError_t grn_cuda_check_image(void);

#endif  // MJGRANULAR_CUDA_GRN_CUDA_H_
