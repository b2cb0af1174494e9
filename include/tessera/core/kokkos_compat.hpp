// The one place where Kokkos 3.4 and Kokkos 4.x differ for Tessera.
//
// Kokkos 3.4 keeps its math functions in Kokkos::Experimental; Kokkos 4 moved them to Kokkos::.
// (Sorting differs too: core/impl/sort_view.hpp, kept apart because Kokkos_Sort.hpp brings Thrust,
// about 9 s of nvcc time, into every translation unit that includes it.) Kokkos 4 partitions an
// execution space into independent instances (streams on GPUs) and names a pinned host memory space
// for every backend; Kokkos 3.4 does neither. Everything else Tessera uses (TeamPolicy, scratch
// memory, Views, SpaceAccessibility) has the same spelling in both. Kokkos 4 adds bhalf_t, the
// bfloat16 type beside half_t (TESSERA_HAS_BHALF_T below).
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
#define TESSERA_KOKKOS_MATH_NAMESPACE Kokkos
#else
#define TESSERA_KOKKOS_MATH_NAMESPACE Kokkos::Experimental
#endif

// TESSERA_ENABLE_CUDA_KERNELS (the hand-written CUDA kernels: Kokkos 4 with CUDA), decided once
// at configure time.
#include <tessera/core/config.hpp>
#include <tessera/core/impl/host_exp.hpp>

// Loop unrolling hints for the innermost tile loops (nvcc, clang and gcc spell them
// differently): TESSERA_UNROLL(n) by a literal factor, TESSERA_UNROLL_FULL for loops with a
// compile-time trip count (gcc unrolls those by itself at -O2 and above).
#define TESSERA_PRAGMA(x) _Pragma(#x)
#if defined(__CUDACC__) || defined(__HIPCC__) || defined(__clang__)
#define TESSERA_UNROLL(n) TESSERA_PRAGMA(unroll n)
#define TESSERA_UNROLL_FULL TESSERA_PRAGMA(unroll)
#elif defined(__GNUC__)
#define TESSERA_UNROLL(n) TESSERA_PRAGMA(GCC unroll n)
#define TESSERA_UNROLL_FULL
#else
#define TESSERA_UNROLL(n)
#define TESSERA_UNROLL_FULL
#endif
// TESSERA_HOST_CLONES: compile a host kernel's body for several x86-64 levels and pick one when
// the program loads (gcc's target_clones, an ifunc), so that builds for baseline x86-64 (SSE2,
// Debian's g++ default) still run AVX-512 or AVX2 with FMA where the CPU has them. Only where it
// is safe and useful: gcc on x86-64 Linux, not under nvcc (its front end), and not when the build
// already targets AVX2. Functions called from such a body must be inlined into it to share its
// instruction set: TESSERA_HOST_INLINE.
#if defined(__x86_64__) && defined(__gnu_linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__CUDACC__) && !defined(__AVX2__)
#define TESSERA_HOST_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TESSERA_HOST_CLONES
#endif
#if defined(__GNUC__)
#define TESSERA_HOST_INLINE __attribute__((always_inline)) inline
#else
#define TESSERA_HOST_INLINE inline
#endif

// TESSERA_DEVICE_PASS: the code being compiled runs on a GPU (the device pass of nvcc, hipcc or
// a SYCL compiler), where host-only code must not appear.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define TESSERA_DEVICE_PASS
#endif

// TESSERA_INDEPENDENT: the loop's iterations touch disjoint memory (host compilers may then
// vectorise it though its pointers could alias).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define TESSERA_INDEPENDENT
#elif defined(__clang__)
#define TESSERA_INDEPENDENT TESSERA_PRAGMA(clang loop vectorize(assume_safety))
#elif defined(__GNUC__)
#define TESSERA_INDEPENDENT TESSERA_PRAGMA(GCC ivdep)
#else
#define TESSERA_INDEPENDENT
#endif

namespace tessera {
namespace math {

/// Whether T gets core/impl/host_exp.hpp's vectorisable exponentials in host code.
template <class T>
inline constexpr bool host_vector_exp =
    std::is_same<T, float>::value || std::is_same<T, double>::value;

/// e^x: the backend's exp on devices; in host code, for float and double, a polynomial that
/// compilers vectorise (core/impl/host_exp.hpp, within 2 ulp), so that loops calling it do not stay
/// scalar.
template <class T>
KOKKOS_INLINE_FUNCTION T exp(T x) {
#if !defined(TESSERA_DEVICE_PASS)
  if constexpr (host_vector_exp<T>) return Impl::host_exp(x);
#endif
  return TESSERA_KOKKOS_MATH_NAMESPACE::exp(x);
}
/// 2^x: one special-function instruction on GPUs (exp needs a range reduction on top), so
/// formulas that can scale their argument by log2(e) ahead of time should prefer it. In host
/// code, as exp.
template <class T>
KOKKOS_INLINE_FUNCTION T exp2(T x) {
#if !defined(TESSERA_DEVICE_PASS)
  if constexpr (host_vector_exp<T>) return Impl::host_exp2(x);
#endif
  return TESSERA_KOKKOS_MATH_NAMESPACE::exp2(x);
}
/// 2^x for formulas whose error budget allows it: in float, relative error below 2^-22 (the
/// same as exp2f) and results below 2^-126, i.e. x < -126, flushed to 0 (an absolute error
/// under 1.2e-38): one ex2.approx.ftz instruction on NVIDIA GPUs, a shorter vectorisable
/// polynomial than exp2's in host code (core/impl/host_exp.hpp). exp2 elsewhere.
template <class T>
KOKKOS_INLINE_FUNCTION T fast_exp2(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same<T, float>::value) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  }
#elif !defined(TESSERA_DEVICE_PASS)
  if constexpr (std::is_same<T, float>::value) return Impl::host_fast_exp2(x);
#endif
  return exp2(x);
}
/// Natural logarithm of x: the backend's log (Kokkos' math functions, as for the rest below).
template <class T>
KOKKOS_INLINE_FUNCTION T log(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::log(x);
}
/// Square root of x.
template <class T>
KOKKOS_INLINE_FUNCTION T sqrt(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::sqrt(x);
}

/// x to the power y.
template <class T>
KOKKOS_INLINE_FUNCTION T pow(T x, T y) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::pow(x, y);
}

/// The largest integer value not greater than x.
template <class T>
KOKKOS_INLINE_FUNCTION T floor(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::floor(x);
}
/// |x|.
template <class T>
KOKKOS_INLINE_FUNCTION T fabs(T x) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::fabs(x);
}
/// The larger of x and y; the other one when either is NaN (C's fmax).
template <class T>
KOKKOS_INLINE_FUNCTION T fmax(T x, T y) {
  return TESSERA_KOKKOS_MATH_NAMESPACE::fmax(x, y);
}

/// +infinity of a floating-point type, usable in device code on every backend.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr T infinity() {
  static_assert(std::is_floating_point<T>::value, "tessera::math::infinity needs a float type");
  return static_cast<T>(__builtin_huge_val());
}

}  // namespace math

namespace Impl {

/// N instances of `space` whose work may run concurrently (N streams on GPUs), for pipelines
/// that overlap kernels with copies. Kokkos 3.4 cannot partition a space: every one is `space`
/// itself, so the work is ordered, which is correct, only not overlapped.
template <std::size_t N, class ExecSpace>
std::array<ExecSpace, N> independent_instances(const ExecSpace& space) {
  std::array<ExecSpace, N> out;
#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
  const std::vector<int> weights(N, 1);
  const auto instances = Kokkos::Experimental::partition_space(space, weights);
  for (std::size_t k = 0; k < N; ++k)
    out[k] = instances[k];
#else
  out.fill(space);
#endif
  return out;
}

// Kokkos' 16-bit floating types. Kokkos::Experimental::half_t exists in every supported version,
// as a typedef of float where no enabled backend has a 16-bit type (KOKKOS_HALF_T_IS_FLOAT: Kokkos
// 3.4, and host-only builds of Kokkos 4); bhalf_t (bfloat16) exists where Kokkos defines
// KOKKOS_BHALF_T_IS_FLOAT (Kokkos 4), likewise a typedef of float in host-only builds.
// TESSERA_HAS_BHALF_T: bhalf_t exists.
#if defined(KOKKOS_BHALF_T_IS_FLOAT)
#define TESSERA_HAS_BHALF_T
/// Whether S is Kokkos::Experimental::half_t or bhalf_t (so also float where Kokkos defines them
/// as float).
template <class S>
inline constexpr bool is_half_precision = std::is_same_v<S, Kokkos::Experimental::half_t> ||
                                          std::is_same_v<S, Kokkos::Experimental::bhalf_t>;
#else
/// Whether S is Kokkos::Experimental::half_t (so also float where Kokkos defines it as float).
template <class S>
inline constexpr bool is_half_precision = std::is_same_v<S, Kokkos::Experimental::half_t>;
#endif

/// Host memory that the devices of ExecSpace copy to asynchronously (page-locked), where the
/// backend has it; HostSpace otherwise.
#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
using PinnedHostSpace = Kokkos::SharedHostPinnedSpace;
#else
using PinnedHostSpace = Kokkos::HostSpace;
#endif

}  // namespace Impl
}  // namespace tessera
