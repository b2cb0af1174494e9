// Streaming (non-temporal) memory accesses, for data a kernel touches once and that should not
// displace what it reuses.
//   - stream_store, for host kernels whose outputs are written once and not read back soon: on
//     x86 with SSE2, aligned 16-byte words are written past the caches, which skips the
//     read-for-ownership of every destination line (a copy then moves two memory passes instead
//     of three, a kernel with three input streams and one output four instead of five).
//     Elsewhere (GPU device code, other hosts) they are ordinary stores. Streaming stores are
//     weakly ordered: a thread that made them calls streaming_store_fence() before other
//     threads may read the data.
//   - stream_load, for device kernels that read an input once: on CUDA devices an evict-first
//     (cache-streaming, ld.global.cs) load, elsewhere an ordinary load. Measured on the H100
//     (fusion's matrix tiles, 16384^2, loads alone changed): SGEMV with LayoutLeft in float
//     383 -> 358 us, GESUMMV with LayoutRight in double 1413 -> 1385 us; but MADD, which
//     writes a matrix as it reads two, 1072 -> 1117 us in float, so kernels that also write
//     matrices keep ordinary loads.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !defined(__SYCL_DEVICE_ONLY__)
#include <emmintrin.h>
#define TESSERA_STREAMING_STORES 1
#else
#define TESSERA_STREAMING_STORES 0
#endif

namespace tessera {
namespace Impl {

/// Whether stream_store writes past the caches in this compilation (host code on x86).
inline constexpr bool has_streaming_stores = TESSERA_STREAMING_STORES != 0;

/// Writes v[0], ..., v[N - 1] to p[0], ..., p[N - 1] (not overlapping): with streaming stores
/// where the compilation has them, p is 16-byte aligned and the N values are whole 16-byte
/// words (a cache line at a time is best: a partly written line costs a partial write-back),
/// else with ordinary stores. T is trivially copyable.
template <int N, class T>
KOKKOS_FORCEINLINE_FUNCTION void stream_store(T* p, const T* v) {
#if TESSERA_STREAMING_STORES
  constexpr std::size_t bytes = std::size_t(N) * sizeof(T);
  if constexpr (bytes % 16 == 0) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 == 0) {
      // Floats and doubles gathered from registers (a copy through memory would stall on
      // store-to-load forwarding of the just computed values), other types copied.
      if constexpr (std::is_same_v<T, float>) {
        for (int k = 0; k < N; k += 4)
          _mm_stream_ps(p + k, _mm_set_ps(v[k + 3], v[k + 2], v[k + 1], v[k]));
      } else if constexpr (std::is_same_v<T, double>) {
        for (int k = 0; k < N; k += 2)
          _mm_stream_pd(p + k, _mm_set_pd(v[k + 1], v[k]));
      } else {
        auto* d       = reinterpret_cast<__m128i*>(p);
        const auto* s = reinterpret_cast<const char*>(v);
        for (std::size_t k = 0; k < bytes / 16; ++k) {
          __m128i word;
          std::memcpy(&word, s + 16 * k, 16);
          _mm_stream_si128(d + k, word);
        }
      }
      return;
    }
  }
#endif
  for (int k = 0; k < N; ++k)
    p[k] = v[k];
}

/// Reads *p, a value this kernel reads once: with an evict-first load in CUDA device code, else
/// with an ordinary load.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T stream_load(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldcs(p);
#else
  return *p;
#endif
}

/// Orders this thread's streaming stores before its later stores, so that other threads see
/// them once they see those (the end of a kernel's work item); nothing where there are none.
KOKKOS_FORCEINLINE_FUNCTION void streaming_store_fence() {
#if TESSERA_STREAMING_STORES
  _mm_sfence();
#endif
}

}  // namespace Impl
}  // namespace tessera
