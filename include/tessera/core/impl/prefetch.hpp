// A hint that memory will be read soon: on NVIDIA GPUs the PTX prefetch (no register waits for
// it, so a kernel can have the next data in flight while it computes), into L2 for data read by
// the whole device (streamed), into L1 for a value the multiprocessor's threads will read; on
// host compilers the builtin prefetch; elsewhere nothing.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {
namespace Impl {

/// Which cache a prefetch fills on GPUs: the device's (L2) or the multiprocessor's (L1).
enum class CacheLevel { device, multiprocessor };

/// Asks the memory system to bring the cache line holding p closer (a hint, never faulting).
template <CacheLevel Level = CacheLevel::device>
KOKKOS_FORCEINLINE_FUNCTION void prefetch(const void* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (Level == CacheLevel::device) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
  } else {
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
  }
#elif defined(__HIP_DEVICE_COMPILE__)
  (void)p;
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

}  // namespace Impl
}  // namespace tessera
