// The PTX building blocks of Tessera's tensor-core kernels (compute capability 8.0 and later):
// warp-level matrix products (mma.sync m16n8k16, FP16 or BF16 in, float accumulators), matrix
// fragment loads from shared memory (ldmatrix), asynchronous global-to-shared copies (cp.async)
// and the row-scaled FP16 split of float values. On older GPUs the products trap; the launches
// check the compute capability before they run.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace Impl {

/// The power of two 2^p that brings a row whose largest magnitude is m to [2^13, 2^14), where
/// FP16 holds both parts of the split with full precision; p is clamped so that 2^-p stays a
/// normal float (rows below 2^-100 or above 2^100 keep less precision).
__device__ inline int fp16_row_shift(float m) {
  int e = 0;
  frexpf(m, &e);  // m = f 2^e, f in [0.5, 1); 0 for m = 0
  e = e < -100 ? -100 : e > 100 ? 100 : e;
  return 14 - e;
}
/// (v0, v1) 2^p split into packed high FP16 parts and packed FP16 remainders.
__device__ inline void fp16_split2(float v0, float v1, int p, std::uint32_t& hi,
                                   std::uint32_t& lo) {
  v0              = ldexpf(v0, p);
  v1              = ldexpf(v1, p);
  const __half2 h = __floats2half2_rn(v0, v1);
  const __half2 l = __floats2half2_rn(v0 - __low2float(h), v1 - __high2float(h));
  hi              = *reinterpret_cast<const std::uint32_t*>(&h);
  lo              = *reinterpret_cast<const std::uint32_t*>(&l);
}

/// c += a b for one m16n8k16 tile (row-major A, column-major B, float accumulators) of FP16
/// (E = __half) or BF16 (E = __nv_bfloat16) operands.
template <class E = __half>
__device__ inline void mma_16816(float (&c)[4], const std::uint32_t (&a)[4],
                                 const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<E, __half>) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, "
        "%7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#else
  __trap();  // compiled for a GPU without mma.sync m16n8k16; the launches check first
#endif
}
/// c += a b for one m16n8k16 FP16 tile (mma_16816 of __half operands).
__device__ inline void mma_fp16(float (&c)[4], const std::uint32_t (&a)[4],
                                const std::uint32_t (&b)[2]) {
  mma_16816<__half>(c, a, b);
}

/// Loads four 8x8 matrices of 16-bit elements from shared memory (ldmatrix .x4): lane l gives
/// the address of row l % 8 of matrix l / 8; register q receives this lane's pair of matrix q.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(row))));
#else
  __trap();
#endif
}

/// Starts an asynchronous copy of 4 bytes from global to shared memory (sm_80 and later).
__device__ inline void cp_async_4(float* dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
#else
  *dst                      = *src;
#endif
}
/// Starts an asynchronous copy of 16 bytes from global to shared memory, bypassing L1.
__device__ inline void cp_async_16(void* dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
#else
  *static_cast<uint4*>(dst) = *static_cast<const uint4*>(src);
#endif
}
/// Closes the group of copies started so far.
__device__ inline void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/// Waits until at most N groups of this thread's copies are still in flight.
template <int N>
__device__ inline void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}
/// Waits for this thread's copies to land.
__device__ inline void cp_async_wait_all() {
  cp_async_wait<0>();
}

}  // namespace Impl
}  // namespace tessera
