// cuda backend: launch wrappers around the per-phase kernels of kernels.cu. each launches one
// phase over the grains of d (device pointers) on a stream and returns the launch status; a
// phase over zero grains launches nothing. d and c are copied into the launch, so the caller may
// change them (e.g. swap dv and dv_next) as soon as the wrapper returns.
#ifndef MJGRANULAR_CUDA_GRN_CUDA_H_
#define MJGRANULAR_CUDA_GRN_CUDA_H_

#include <cuda_runtime.h>

#include "../grn_data.h"

#define GRN_CUDA_BLOCK 256           // threads per block (a power of two: tree reductions)
#define GRN_CUDA_WRENCH_BLOCKS 512   // most blocks of per-block wrench partials

// external forces: vpred = v + g dt, dv = 0
cudaError_t grn_cuda_predict(const grnData* d, const grnConsts* c, cudaStream_t stream);

// broadphase: every bucket of the hash emptied (head = -1)
cudaError_t grn_cuda_clear_heads(const grnData* d, cudaStream_t stream);

// broadphase: cell of every grain, pushed onto its bucket's list with atomicCAS
cudaError_t grn_cuda_hash_insert(const grnData* d, const grnConsts* c, cudaStream_t stream);

// narrowphase: grain-grain contacts through the hash, then grain-shape contacts
cudaError_t grn_cuda_collide(const grnData* d, const grnConsts* c, cudaStream_t stream);

// one projected jacobi iteration: impulses from dv, their sum into dv_next
cudaError_t grn_cuda_solve(const grnData* d, const grnConsts* c, cudaStream_t stream);

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

// symplectic euler; flags nan / inf in d->nonfinite
cudaError_t grn_cuda_integrate(const grnData* d, const grnConsts* c, cudaStream_t stream);

// whether the kernels have code for the current device (cudaErrorNoKernelImageForDevice if not)
cudaError_t grn_cuda_check_image(void);

#endif  // MJGRANULAR_CUDA_GRN_CUDA_H_
