// Built-in formula pieces: squared distance, dot product and radial kernels, each radial kernel
// usable with a weight vector b_j of any dimension.
//
// D is the point dimension and W the weight dimension (0: no weight; dynamic_extent: read from
// the View). With W = 0 a kernel's j-variables are (y) and its output is k(x_i, y_j); with
// W != 0 they are (y, b) and its output is the W-vector k(x_i, y_j) b_j, so that a Sum gives
// the kernel matrix-vector product  a_i = sum_j k(x_i, y_j) b_j.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/span.hpp>
#include <tessera/genred/formula.hpp>

#include <type_traits>

namespace tessera {

/// |x - y|^2 of two spans of equal size.
template <class X, class Y>
KOKKOS_INLINE_FUNCTION auto squared_distance(const X& x, const Y& y) {
  using T = std::remove_const_t<typename X::element_type>;
  T r2    = T(0);
  for (int k = 0; k < x.size(); ++k) {
    const T d = x[k] - y[k];
    r2 += d * d;
  }
  return r2;
}

/// x . y of two spans of equal size.
template <class X, class Y>
KOKKOS_INLINE_FUNCTION auto dot(const X& x, const Y& y) {
  using T = std::remove_const_t<typename X::element_type>;
  T s     = T(0);
  for (int k = 0; k < x.size(); ++k)
    s += x[k] * y[k];
  return s;
}

/// F(x_i, y_j) = Op(x_i, y_j), a scalar function of two points of dimension D (or
/// dynamic_extent); output dimension 1.
template <int D, class Op>
struct PointPairFormula {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<D>;
  using j_dims                 = Dims<D>;
  static constexpr int out_dim = 1;

  template <class T, int E>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, E> x, In<T, E> y, Out<T, 1> out) const {
    out[0] = Op::apply(x, y);
  }
};

struct SquaredDistanceOp {
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    return squared_distance(x, y);
  }
};
struct DotOp {
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    return dot(x, y);
  }
};

/// F(x_i, y_j) = |x_i - y_j|^2.
template <int D>
using SquaredDistance = PointPairFormula<D, SquaredDistanceOp>;
/// F(x_i, y_j) = x_i . y_j.
template <int D>
using DotProduct = PointPairFormula<D, DotOp>;

/// log2(e): exponentials are evaluated as exp2 of a pre-scaled argument, a single
/// special-function instruction on GPUs (math::fast_exp2: relative error below 2^-22 in float,
/// values under 2^-126 flushed to 0), with the accuracy of exp of the rounded argument.
inline constexpr double log2_e = 1.4426950408889634;

/// Radial profiles k(r^2) with length scale sigma > 0 (see RadialKernel).
struct GaussianProfile {  ///< exp(-r^2 / (2 sigma^2))
  double coef;            // -log2(e) / (2 sigma^2)
  explicit GaussianProfile(double sigma) : coef(-log2_e / (2.0 * sigma * sigma)) {}
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T r2) const {
    return math::fast_exp2(T(coef) * r2);
  }
};
struct LaplaceProfile {  ///< exp(-r / sigma)
  double coef;           // -log2(e) / sigma
  explicit LaplaceProfile(double sigma) : coef(-log2_e / sigma) {}
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T r2) const {
    return math::fast_exp2(T(coef) * math::sqrt(r2));
  }
};
struct CauchyProfile {  ///< 1 / (1 + r^2 / sigma^2)
  double coef;
  explicit CauchyProfile(double sigma) : coef(1.0 / (sigma * sigma)) {}
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T r2) const {
    return T(1) / (T(1) + T(coef) * r2);
  }
};
struct InverseMultiquadricProfile {  ///< 1 / sqrt(1 + r^2 / sigma^2)
  double coef;
  explicit InverseMultiquadricProfile(double sigma) : coef(1.0 / (sigma * sigma)) {}
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T r2) const {
    return T(1) / math::sqrt(T(1) + T(coef) * r2);
  }
};
struct Matern32Profile {  ///< (1 + sqrt(3) r / sigma) exp(-sqrt(3) r / sigma)
  double coef;            // sqrt(3) / sigma
  explicit Matern32Profile(double sigma) : coef(1.7320508075688772 / sigma) {}
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(T r2) const {
    const T u = T(coef) * math::sqrt(r2);
    return (T(1) + u) * math::fast_exp2(T(-log2_e) * u);
  }
};

/// F(x_i, y_j[, b_j]) = k(|x_i - y_j|^2) [* b_j] for a radial profile k; see the file comment.
template <class Profile, int D, int W = 0>
struct RadialKernel {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<D>;
  using j_dims                 = std::conditional_t<W == 0, Dims<D>, Dims<D, W>>;
  static constexpr int out_dim = W == 0 ? 1 : W;

  Profile profile;

  /// Throws std::invalid_argument unless sigma is positive and finite.
  explicit RadialKernel(double sigma) : profile(checked_scale(sigma)) {}

  int output_dim(const VariableDims& dims) const { return W == 0 ? 1 : dims.j.at(1); }

  template <class T, int E>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, E> x, In<T, E> y, Out<T, 1> out) const {
    out[0] = profile(squared_distance(x, y));
  }
  template <class T, int E, int WE, int OE>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, E> x, In<T, E> y, In<T, WE> b,
                                         Out<T, OE> out) const {
    const T k = profile(squared_distance(x, y));
    for (int c = 0; c < b.size(); ++c)
      out[c] = k * b[c];
  }

 private:
  static double checked_scale(double sigma) {
    Impl::require(sigma > 0 && sigma < 1e300, "RadialKernel",
                  Impl::concat("sigma must be positive and finite (got ", sigma, ")"));
    return sigma;
  }
};

/// exp(-|x - y|^2 / (2 sigma^2)) [* b].
template <int D, int W = 0>
using GaussianKernel = RadialKernel<GaussianProfile, D, W>;
/// exp(-|x - y| / sigma) [* b].
template <int D, int W = 0>
using LaplaceKernel = RadialKernel<LaplaceProfile, D, W>;
/// 1 / (1 + |x - y|^2 / sigma^2) [* b].
template <int D, int W = 0>
using CauchyKernel = RadialKernel<CauchyProfile, D, W>;
/// 1 / sqrt(1 + |x - y|^2 / sigma^2) [* b].
template <int D, int W = 0>
using InverseMultiquadricKernel = RadialKernel<InverseMultiquadricProfile, D, W>;
/// (1 + sqrt(3)|x - y| / sigma) exp(-sqrt(3)|x - y| / sigma) [* b].
template <int D, int W = 0>
using Matern32Kernel = RadialKernel<Matern32Profile, D, W>;

}  // namespace tessera
