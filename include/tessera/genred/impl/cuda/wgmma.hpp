// The PTX building blocks of Tessera's Hopper tensor-core engine (matrix_tiles_sm90.hpp):
// warpgroup matrix products (wgmma.mma_async m64n128k16, FP16 or BF16 operands read from shared
// memory through matrix descriptors, float accumulators in registers), their fences and waits,
// and the proxy fence that makes cp.async's writes visible to them. They exist only in code
// compiled for sm_90a (TESSERA_CUDA_SM90A, config.hpp): elsewhere they trap, and the launches
// never choose the engine.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace Impl {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSERA_WGMMA_AVAILABLE 1
#else
#define TESSERA_WGMMA_AVAILABLE 0
#endif

/// The shared-memory matrix descriptor of a K-major operand whose rows of row_bytes (32, 64 or
/// 128: 16, 32 or 64 16-bit elements) are stored one after another with their 16-byte chunks
/// XOR-swizzled in the matching mode (32B, 64B or 128B swizzle: chunk c of row r at c ^ ((r /
/// (128 / row_bytes)) % (row_bytes / 16)), matrix_tiles.hpp's swizzle), starting at `smem`,
/// which must be aligned to 8 rows. Groups of 8 rows lie 8 row_bytes apart (the stride byte
/// offset); the leading byte offset is unused by swizzled K-major layouts.
__device__ inline std::uint64_t wgmma_descriptor(const void* smem, int row_bytes) {
  const auto address       = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const std::uint64_t mode = row_bytes == 128 ? 1 : row_bytes == 64 ? 2 : 3;
  return static_cast<std::uint64_t>((address & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) |
         (static_cast<std::uint64_t>((8 * row_bytes) >> 4) << 32) | (mode << 62);
}

#define TESSERA_WGMMA_M64N128K16(TYPE)                                                             \
  asm volatile(                                                                                    \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                 \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE                                 \
      " {"                                                                                         \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17,"            \
      "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33,"            \
      "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49,"            \
      "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"                       \
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n"                                                           \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),        \
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),    \
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), \
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), \
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), \
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), \
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), \
        "+f"(d[63])                                                                                \
      : "l"(a), "l"(b), "r"(accumulate))

/// d (+)= A B for one warpgroup: A the 64 x 16 tile of descriptor a (K-major), B the 16 x 128
/// tile whose 128 K-major rows descriptor b gives, E = __half or __nv_bfloat16; d is overwritten
/// when `accumulate` is 0. Asynchronous: d may be read only after wgmma_wait. Register d[4 j +
/// q] holds row g + 8 (q / 2) of this warp's 16 rows and column 8 j + 2 t + q % 2 (g = lane / 4,
/// t = lane % 4), as mma.sync's m16n8 accumulators do.
template <class E>
__device__ inline void wgmma_m64n128k16(float (&d)[64], std::uint64_t a, std::uint64_t b,
                                        int accumulate) {
#if TESSERA_WGMMA_AVAILABLE
  if constexpr (std::is_same_v<E, __half>) {
    TESSERA_WGMMA_M64N128K16("f16");
  } else {
    TESSERA_WGMMA_M64N128K16("bf16");
  }
#else
  (void)d, (void)a, (void)b, (void)accumulate;
  __trap();
#endif
}
#undef TESSERA_WGMMA_M64N128K16

/// Orders this warpgroup's register accesses before the wgmma products that follow.
__device__ inline void wgmma_fence() {
#if TESSERA_WGMMA_AVAILABLE
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}
/// Closes the group of wgmma products issued so far.
__device__ inline void wgmma_commit() {
#if TESSERA_WGMMA_AVAILABLE
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}
/// Waits until at most N groups of this warpgroup's products are still running.
template <int N>
__device__ inline void wgmma_wait() {
#if TESSERA_WGMMA_AVAILABLE
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#endif
}
/// Tells the compiler that v changes here, so that no read of an accumulator moves above the
/// wait that completes it.
__device__ __forceinline__ void register_fence(float& v) {
  asm volatile("" : "+f"(v)::"memory");
}
/// Makes this thread's completed shared-memory writes (cp.async included) visible to the async
/// proxy that wgmma reads through.
__device__ inline void fence_proxy_async() {
#if TESSERA_WGMMA_AVAILABLE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

}  // namespace Impl
}  // namespace tessera
