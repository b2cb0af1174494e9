// The one place where Kokkos 3.4 and Kokkos 4.x differ for Tessera.
//
// Kokkos 3.4 keeps its math functions in Kokkos::Experimental; Kokkos 4 moved them to Kokkos::.
// Everything else Tessera uses (TeamPolicy, scratch memory, Views, SpaceAccessibility) has the
// same spelling in both.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
#define TESSERA_KOKKOS_MATH_NAMESPACE Kokkos
#else
#define TESSERA_KOKKOS_MATH_NAMESPACE Kokkos::Experimental
#endif

// Loop unrolling hint for the innermost tile loops (nvcc, clang and gcc spell it differently).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__clang__)
#define TESSERA_UNROLL(n) _Pragma("unroll")
#elif defined(__GNUC__)
#define TESSERA_UNROLL(n) _Pragma("GCC unroll 4")
#else
#define TESSERA_UNROLL(n)
#endif

namespace tessera {
namespace math {

template <class T>
KOKKOS_INLINE_FUNCTION T exp(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::exp(x);
}
template <class T>
KOKKOS_INLINE_FUNCTION T log(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::log(x);
}
template <class T>
KOKKOS_INLINE_FUNCTION T sqrt(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::sqrt(x);
}

/// +infinity of a floating-point type, usable in device code on every backend.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T infinity() {
  static_assert(std::is_floating_point<T>::value, "tessera::math::infinity needs a float type");
  return static_cast<T>(__builtin_huge_val());
}

}  // namespace math
}  // namespace tessera
