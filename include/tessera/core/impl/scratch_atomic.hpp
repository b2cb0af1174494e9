// Atomic addition on team scratch memory (level 0: shared memory on GPUs).
//
// A team scratch pointer is a generic address. On CUDA, Kokkos' atomics on it compile to generic
// atomics, which go through the L1/texture pipeline; told that the address is in shared memory,
// the compiler emits the shared-memory atomic (ATOMS). (64-bit additions stay compare-and-swap
// loops on shared memory up to sm_90.)
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// *p += v on team scratch memory, atomically within the team; returns the old value. T: a 32-
/// or 64-bit unsigned integer.
template <class T>
KOKKOS_INLINE_FUNCTION T scratch_atomic_fetch_add(T* p, T v) {
  static_assert(std::is_unsigned<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tessera: scratch_atomic_fetch_add takes 32- or 64-bit unsigned integers");
#if defined(__CUDA_ARCH__)
  __builtin_assume(__isShared(p));
  if constexpr (sizeof(T) == 4) {
    return static_cast<T>(
        atomicAdd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v)));
  } else {
    return static_cast<T>(
        atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
  }
#else
  return Kokkos::atomic_fetch_add(p, v);
#endif
}

}  // namespace Impl
}  // namespace tessera
