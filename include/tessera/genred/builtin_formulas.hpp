// Built-in formula pieces: squared distance, dot product and radial kernels, each radial kernel
// usable with a weight vector b_j of any dimension.
//
// D is the point dimension and W the weight dimension (0: no weight; dynamic_extent: read from
// the View). With W = 0 a kernel's j-variables are (y) and its output is k(x_i, y_j); with
// W != 0 they are (y, b) and its output is the W-vector k(x_i, y_j) b_j, so that a Sum gives
// the kernel matrix-vector product  a_i = sum_j k(x_i, y_j) b_j.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/span.hpp>
#include <tessera/genred/formula.hpp>

#include <stdexcept>
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

namespace Impl {
/// The host check of formulas comparing x_i with y_j: with dynamic_extent dimensions, the two
/// Views must still have one width.
inline void require_equal_point_dims(const VariableDims& dims) {
  if (dims.i.at(0) != dims.j.at(0)) {
    throw std::invalid_argument(concat("tessera::genred: j_vars[0] dimension (got ", dims.j[0],
                                       ", expected ", dims.i[0],
                                       ", the dimension of i_vars[0]: the formula compares "
                                       "points of one dimension)"));
  }
}
}  // namespace Impl

/// F(x_i, y_j) = Op(x_i, y_j), a scalar function of two points of dimension D (or
/// dynamic_extent: x_i and y_j must then have the same run-time dimension); output dimension 1.
template <int D, class Op>
struct PointPairFormula {
  using param_dims             = Dims<>;   ///< No parameter variables.
  using i_dims                 = Dims<D>;  ///< x_i: a point of dimension D.
  using j_dims                 = Dims<D>;  ///< y_j: a point of dimension D.
  static constexpr int out_dim = 1;        ///< F is a scalar.

  /// x_i and y_j have one dimension (formula.hpp: check_dims).
  void check_dims(const VariableDims& dims) const { Impl::require_equal_point_dims(dims); }

  /// out[0] = Op::apply(x, y).
  template <class T, int E>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, E> x, In<T, E> y, Out<T, 1> out) const {
    out[0] = Op::apply(x, y);
  }
};

/// Op(x, y) = |x - y|^2 = sum_k (x_k - y_k)^2.
struct SquaredDistanceOp {
  /// |x - y|^2 of two spans of equal size.
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    return squared_distance(x, y);
  }
};
/// Op(x, y) = x . y = sum_k x_k y_k.
struct DotOp {
  /// x . y of two spans of equal size.
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    return dot(x, y);
  }
};

/// Op(x, y) = |x - y| = sqrt(sum_k (x_k - y_k)^2).
struct DistanceOp {
  /// |x - y| of two spans of equal size.
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    return math::sqrt(squared_distance(x, y));
  }
};
/// Op(x, y) = x . y / sqrt((x . x) (y . y)), or 0 unless (x . x) (y . y) > 0.
struct CosineSimilarityOp {
  /// The cosine similarity of two spans of equal size.
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    using T    = std::remove_const_t<typename X::element_type>;
    const T n2 = dot(x, x) * dot(y, y);
    return n2 > T(0) ? dot(x, y) / math::sqrt(n2) : T(0);
  }
};
/// Op(x, y) = 1 - CosineSimilarityOp::apply(x, y).
struct CosineDistanceOp {
  /// The cosine distance of two spans of equal size.
  template <class X, class Y>
  KOKKOS_INLINE_FUNCTION static auto apply(const X& x, const Y& y) {
    using T = std::remove_const_t<typename X::element_type>;
    return T(1) - CosineSimilarityOp::apply(x, y);
  }
};

/// F(x_i, y_j) = |x_i - y_j|^2.
template <int D>
using SquaredDistance = PointPairFormula<D, SquaredDistanceOp>;
/// F(x_i, y_j) = |x_i - y_j| (the Euclidean distance).
template <int D>
using EuclideanDistance = PointPairFormula<D, DistanceOp>;
/// F(x_i, y_j) = x_i . y_j / (|x_i| |y_j|), 0 when either vector is 0.
template <int D>
using CosineSimilarity = PointPairFormula<D, CosineSimilarityOp>;
/// F(x_i, y_j) = 1 - CosineSimilarity: scipy's cosine distance for non-zero vectors; where either
/// vector is 0 it is 1 (scipy's `cosine` gives NaN there).
template <int D>
using CosineDistance = PointPairFormula<D, CosineDistanceOp>;
/// F(x_i, y_j) = x_i . y_j.
template <int D>
using DotProduct = PointPairFormula<D, DotOp>;

/// log2(e): exponentials are evaluated as exp2 of a pre-scaled argument, a single
/// special-function instruction on GPUs (math::fast_exp2: relative error below 2^-22 in float,
/// values under 2^-126 flushed to 0), with the accuracy of exp of the rounded argument.
inline constexpr double log2_e = 1.4426950408889634;

// Radial profiles k(r^2) with length scale sigma > 0 (see RadialKernel). Each is written
// k(r^2) = shape(scale * r^2) with scale > 0, so that the expanded distance can fold the
// scale into the staged rows. shape() accepts the slightly negative arguments that the
// expanded distance's rounding can produce (the square roots clamp them at 0).

/// Radial profile k(r^2) = exp(-r^2 / (2 sigma^2)).
struct GaussianProfile {
  double scale;  ///< log2(e) / (2 sigma^2).
  /// The profile of length scale sigma > 0 (not checked here: RadialKernel checks it).
  explicit GaussianProfile(double sigma) : scale(log2_e / (2.0 * sigma * sigma)) {}
  /// k(r^2) for u = scale * r^2: 2^-u.
  template <class T>
  KOKKOS_INLINE_FUNCTION T shape(T u) const {
    return math::fast_exp2(-u);
  }
};
/// Radial profile k(r^2) = exp(-r / sigma).
struct LaplaceProfile {
  double scale;  ///< (log2(e) / sigma)^2.
  /// The profile of length scale sigma > 0 (not checked here: RadialKernel checks it).
  explicit LaplaceProfile(double sigma) : scale(log2_e * log2_e / (sigma * sigma)) {}
  /// k(r^2) for u = scale * r^2: 2^-sqrt(max(u, 0)).
  template <class T>
  KOKKOS_INLINE_FUNCTION T shape(T u) const {
    return math::fast_exp2(-math::sqrt(u > T(0) ? u : T(0)));
  }
};
/// Radial profile k(r^2) = 1 / (1 + r^2 / sigma^2).
struct CauchyProfile {
  double scale;  ///< 1 / sigma^2.
  /// The profile of length scale sigma > 0 (not checked here: RadialKernel checks it).
  explicit CauchyProfile(double sigma) : scale(1.0 / (sigma * sigma)) {}
  /// k(r^2) for u = scale * r^2: 1 / (1 + u).
  template <class T>
  KOKKOS_INLINE_FUNCTION T shape(T u) const {
    return T(1) / (T(1) + u);
  }
};
/// Radial profile k(r^2) = 1 / sqrt(1 + r^2 / sigma^2).
struct InverseMultiquadricProfile {
  double scale;  ///< 1 / sigma^2.
  /// The profile of length scale sigma > 0 (not checked here: RadialKernel checks it).
  explicit InverseMultiquadricProfile(double sigma) : scale(1.0 / (sigma * sigma)) {}
  /// k(r^2) for u = scale * r^2: 1 / sqrt(1 + u).
  template <class T>
  KOKKOS_INLINE_FUNCTION T shape(T u) const {
    return T(1) / math::sqrt(T(1) + u);
  }
};
/// Radial profile k(r^2) = (1 + sqrt(3) r / sigma) exp(-sqrt(3) r / sigma).
struct Matern32Profile {
  double scale;  ///< 3 / sigma^2.
  /// The profile of length scale sigma > 0 (not checked here: RadialKernel checks it).
  explicit Matern32Profile(double sigma) : scale(3.0 / (sigma * sigma)) {}
  /// k(r^2) for u = scale * r^2: (1 + v) exp(-v) with v = sqrt(max(u, 0)), the exp as exp2.
  template <class T>
  KOKKOS_INLINE_FUNCTION T shape(T u) const {
    const T v = math::sqrt(u > T(0) ? u : T(0));
    return (T(1) + v) * math::fast_exp2(T(-log2_e) * v);
  }
};

/// How a radial kernel evaluates the squared distance of a pair.
enum class Distance {
  direct,    ///< sum_k (x_k - y_k)^2: exact to rounding
  expanded,  ///< s |x|^2 + s |y|^2 - 2 s x.y from staged rows (scale s folded in): a dot
             ///< product per pair (D + 1 instructions for s r^2 instead of 2 D + 1; see
             ///< docs/genred.md for the measured speed and error), at the price of
             ///< cancellation: s r^2 gets an absolute error up to (D + 3) eps s (|x| + |y|)^2
             ///< (it may come out slightly negative: a Gaussian value then exceeds 1 by that
             ///< much), so keep the points centred near the origin
  /// As expanded, with the dot products on the GPU's matrix units where the CUDA kernels have
  /// that path (Sum reductions over j computed in float, dense, D > 8, weights of at most 4 or
  /// at least 16 components beyond D = 32, any D for half-precision points; see
  /// impl/cuda/cuda_backend.hpp):
  /// by default about the same accuracy (row-scaled split FP16, three products), or one FP16
  /// product with GenredOptions::matrix_precision = MatrixPrecision::fast; the expanded
  /// evaluation everywhere else.
  matrix,
  /// The default: one of the above, chosen per call at compile time by the dispatch layer
  /// (impl/distance_rule.hpp) as measured fastest on the call's backend: matrix in Tessera's
  /// CUDA kernels on Kokkos::Cuda for static D > 8 (CudaTuning::genred_automatic_matrix_min_dim)
  /// and the calls the tensor-core kernels take; direct everywhere else (run-time D or W, host
  /// backends, the portable kernel). docs/genred.md has the measurements and the accuracy
  /// contract.
  automatic
};

/// F(x_i, y_j[, b_j]) = k(|x_i - y_j|^2) [* b_j] for a radial profile k; see the file comment.
/// Distance::expanded and Distance::matrix need static D and W (staged formulas, see
/// formula.hpp). With Distance::automatic (the default) the kernel is itself the direct formula
/// (operator(), no staging); genred's dispatch runs it as RadialKernel<Profile, D, W, E> with
/// the evaluation E that Distance::automatic resolves to for the call.
template <class Profile, int D, int W = 0, Distance Dist = Distance::automatic>
struct RadialKernel {
  using param_dims = Dims<>;   ///< No parameter variables.
  using i_dims     = Dims<D>;  ///< x_i: a point of dimension D.
  /// y_j: a point of dimension D, then b_j: a weight vector of dimension W unless W = 0.
  using j_dims = std::conditional_t<W == 0, Dims<D>, Dims<D, W>>;
  /// 1 without weights, W with them (dynamic_extent when W is: see output_dim()).
  static constexpr int out_dim       = W == 0 ? 1 : W;
  using profile_type                 = Profile;  ///< The radial profile k.
  static constexpr int dim           = D;        ///< The point dimension.
  static constexpr int weight_dim    = W;        ///< The weight dimension (0: no weights).
  static constexpr Distance distance = Dist;     ///< How the squared distance is evaluated.
  /// Whether pairs are evaluated from staged rows: Distance::expanded and matrix.
  static constexpr bool staged = Dist == Distance::expanded || Dist == Distance::matrix;
  static_assert(!staged || (D >= 1 && W >= 0),
                "tessera::RadialKernel: Distance::expanded and matrix need compile-time D and W");
  /// D + 1 scalars (-2 s x, s |x|^2) per staged i-row; 0 (no staging) for Distance::direct and
  /// automatic.
  static constexpr int staged_i_width = staged ? D + 1 : 0;
  /// D + 1 + W scalars (y, s |y|^2, b) per staged j-row; 0 (no staging) for Distance::direct
  /// and automatic.
  static constexpr int staged_j_width = staged ? D + 1 + W : 0;

  Profile profile;  ///< The profile k, holding the scale s of k(r^2) = shape(s r^2).

  /// Throws std::invalid_argument unless sigma is positive and finite.
  explicit RadialKernel(double sigma) : profile(checked_scale(sigma)) {}
  /// The kernel `other` (its profile and scale) with this type's distance evaluation.
  template <Distance Other>
  explicit RadialKernel(const RadialKernel<Profile, D, W, Other>& other) : profile(other.profile) {}

  /// 1 without weights, else the run-time dimension of b_j.
  int output_dim(const VariableDims& dims) const { return W == 0 ? 1 : dims.j.at(1); }
  /// x_i and y_j have one dimension (formula.hpp: check_dims).
  void check_dims(const VariableDims& dims) const { Impl::require_equal_point_dims(dims); }

  /// out[0] = k(|x - y|^2), with the distance computed directly.
  template <class T, int E>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, E> x, In<T, E> y, Out<T, 1> out) const {
    out[0] = profile.shape(T(profile.scale) * squared_distance(x, y));
  }
  /// out[c] = k(|x - y|^2) b[c] for every component c of b, with the distance computed directly.
  template <class T, int E, int WE, int OE>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, E> x, In<T, E> y, In<T, WE> b,
                                         Out<T, OE> out) const {
    const T k = profile.shape(T(profile.scale) * squared_distance(x, y));
    for (int c = 0; c < b.size(); ++c)
      out[c] = k * b[c];
  }

  // ---- Distance::expanded and matrix: staged rows (-2 s x, s |x|^2) and (y, s |y|^2, b)
  /// Writes the staged i-row (-2 s x, s |x|^2) of the point x (staged_i_width scalars).
  template <class T>
  KOKKOS_INLINE_FUNCTION void stage_i(const T* x, T* staged) const {
    const T s = T(profile.scale);
    T n2      = T(0);
    for (int k = 0; k < D; ++k) {
      staged[k] = T(-2) * s * x[k];
      n2 += x[k] * x[k];
    }
    staged[D] = s * n2;
  }
  /// Writes the staged j-row (y, s |y|^2, b) of the packed j-row yb = (y, b) (staged_j_width
  /// scalars).
  template <class T>
  KOKKOS_INLINE_FUNCTION void stage_j(const T* yb, T* staged) const {
    T n2 = T(0);
    for (int k = 0; k < D; ++k) {
      staged[k] = yb[k];
      n2 += yb[k] * yb[k];
    }
    staged[D] = T(profile.scale) * n2;
    for (int c = 0; c < W; ++c)
      staged[D + 1 + c] = yb[D + c];
  }
  /// The operator() value of a staged pair, k(r^2) [* b], with s r^2 taken as
  /// si[D] + sj[D] + sum_k si[k] sj[k] = s |x|^2 + s |y|^2 - 2 s x . y (rounding may make it
  /// slightly negative).
  template <class T, int SI, int SJ, int OE>
  KOKKOS_INLINE_FUNCTION void eval_staged(In<T, SI> si, In<T, SJ> sj, Out<T, OE> out) const {
    T u = si[D] + sj[D];
    for (int k = 0; k < D; ++k)
      u += si[k] * sj[k];
    const T k = profile.shape(u);
    if constexpr (W == 0) {
      out[0] = k;
    } else {
      for (int c = 0; c < W; ++c)
        out[c] = k * sj[D + 1 + c];
    }
  }

 private:
  static double checked_scale(double sigma) {
    Impl::require(sigma > 0 && sigma < 1e300, "RadialKernel",
                  "sigma must be positive and finite (got ", sigma, ")");
    return sigma;
  }
};

/// exp(-|x - y|^2 / (2 sigma^2)) [* b].
template <int D, int W = 0, Distance Dist = Distance::automatic>
using GaussianKernel = RadialKernel<GaussianProfile, D, W, Dist>;
/// exp(-|x - y| / sigma) [* b].
template <int D, int W = 0, Distance Dist = Distance::automatic>
using LaplaceKernel = RadialKernel<LaplaceProfile, D, W, Dist>;
/// 1 / (1 + |x - y|^2 / sigma^2) [* b].
template <int D, int W = 0, Distance Dist = Distance::automatic>
using CauchyKernel = RadialKernel<CauchyProfile, D, W, Dist>;
/// 1 / sqrt(1 + |x - y|^2 / sigma^2) [* b].
template <int D, int W = 0, Distance Dist = Distance::automatic>
using InverseMultiquadricKernel = RadialKernel<InverseMultiquadricProfile, D, W, Dist>;
/// (1 + sqrt(3)|x - y| / sigma) exp(-sqrt(3)|x - y| / sigma) [* b].
template <int D, int W = 0, Distance Dist = Distance::automatic>
using Matern32Kernel = RadialKernel<Matern32Profile, D, W, Dist>;

}  // namespace tessera
