// What the pairwise engine integrates over two PCFs f and g: each operation gives the integrand
// of one rectangle [l, r) x (f, g) of the two functions' common refinement and the map applied
// to the integral (masspcf's OperationL1Dist, OperationLpDist, OperationL2InnerProduct):
//
//   result(f, g) = finalize( sum over rectangles (r - l) * integrand(f_value, g_value) ).
//
// Every integrand is 0 where both functions are 0, which is what makes integrals over the
// functions' zero tails vanish (pcf_collection.hpp). A new operation is a struct with the same
// two members; which pairs a call computes is the call's (pdist: i < j, l2_kernel: i <= j).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>

namespace tessera {

/// L1 distance: integral of |f - g|.
struct PcfL1 {
  /// |f - g|.
  template <class T>
  KOKKOS_INLINE_FUNCTION T integrand(T f, T g) const {
    return math::fabs(f - g);
  }
  /// The integral s itself.
  template <class T>
  KOKKOS_INLINE_FUNCTION T finalize(T s) const {
    return s;
  }
};

/// L2 distance: (integral of (f - g)^2)^(1/2) (Lp with p = 2, without the general power).
struct PcfL2 {
  /// (f - g)^2.
  template <class T>
  KOKKOS_INLINE_FUNCTION T integrand(T f, T g) const {
    return (f - g) * (f - g);
  }
  /// sqrt(s).
  template <class T>
  KOKKOS_INLINE_FUNCTION T finalize(T s) const {
    return math::sqrt(s);
  }
};

/// Lp distance, p > 0: (integral of |f - g|^p)^(1/p). pdist and cdist run p = 1 and p = 2 as
/// PcfL1 and PcfL2, which skip the two powers per rectangle.
struct PcfLp {
  double p = 1;  ///< the exponent: finite and > 0
  /// |f - g|^p, p rounded to T.
  template <class T>
  KOKKOS_INLINE_FUNCTION T integrand(T f, T g) const {
    return math::pow(math::fabs(f - g), static_cast<T>(p));
  }
  /// s^(1/p), 1/p rounded to T.
  template <class T>
  KOKKOS_INLINE_FUNCTION T finalize(T s) const {
    return math::pow(s, static_cast<T>(1.0 / p));
  }
};

/// L2 inner product: integral of f g (a kernel matrix: the diagonal is computed too).
struct PcfL2InnerProduct {
  /// f g.
  template <class T>
  KOKKOS_INLINE_FUNCTION T integrand(T f, T g) const {
    return f * g;
  }
  /// The integral s itself.
  template <class T>
  KOKKOS_INLINE_FUNCTION T finalize(T s) const {
    return s;
  }
};

namespace Impl {
/// Throws std::invalid_argument unless p is a finite number > 0.
inline void require_valid_p(const char* caller, double p) {
  if (!(p > 0) || !(p < math::infinity<double>())) {
    throw std::invalid_argument(
        concat("tessera::", caller, ": p is ", p, " (expected a finite p > 0)"));
  }
}

/// Throws std::invalid_argument unless p and 1 / p are finite and non-zero in Acc, the
/// arithmetic of the integrals (float cannot raise to p = 1e-50 or p = 1e300).
template <class Acc>
void require_p_in(const char* caller, double p) {
  const Acc a = static_cast<Acc>(p), inv = static_cast<Acc>(1.0 / p);
  if (!(a > 0) || !(a < math::infinity<Acc>()) || !(inv > 0) || !(inv < math::infinity<Acc>())) {
    throw std::invalid_argument(concat("tessera::", caller, ": p is ", p, ", out of range for ",
                                       sizeof(Acc) == 4 ? "float" : "double",
                                       " arithmetic (use Accumulation::double_)"));
  }
}
}  // namespace Impl

}  // namespace tessera
