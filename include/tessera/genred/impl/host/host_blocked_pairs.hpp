// The formulas whose pairs the host kernel evaluates as a small matrix product.
//
// Radial kernels, the squared distance and the dot product of points of dimension D first
// reduce the D components of a pair to one number, then finish the value from it:
//   F(x_i, y_j) = finish(sum_{k < D} term(o_k, n_k), the rows' other components)
// with term(a, b) = a b (the dot product, and the expanded distance's -2 s x . y from staged
// rows) or (a - b)^2 (the squared distance). For a block of R outer rows and L inner rows the
// host kernel (host_tiled_reduce.hpp) then accumulates the R x L sums in registers, k outermost
// (one vector load of the tile's component k feeds R vector multiply-adds), and finishes the
// values afterwards in one vectorised loop: at large D the pair loop no longer copies a whole
// row per pair, and the inner rows are read once per block instead of once per pair.
// BlockedPairs<Formula> describes such a formula; dim = 0 for every other formula.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/builtin_formulas.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// Not evaluated as a matrix product (dim = 0).
template <class Formula>
struct BlockedPairs {
  static constexpr bool radial = false;  ///< a RadialKernel (Tuning's thresholds differ)
  static constexpr int dim     = 0;      ///< components reduced by the product (0: none)
};

/// RadialKernel: with unstaged rows (Distance::direct), u = s sum_k (x_k - y_k)^2 from the rows
/// (x) and (y, b); with expanded and matrix, u = s |x|^2 + s |y|^2 + sum_k (-2 s x_k) y_k from the
/// staged rows
/// (-2 s x, s |x|^2) and (y, s |y|^2, b) (as RadialKernel::eval_staged, summed in another
/// order); then k(u) [* b].
template <class Profile, int D, int W, Distance Dist>
struct BlockedPairs<RadialKernel<Profile, D, W, Dist>> {
  static constexpr bool radial       = true;
  static constexpr int dim           = D > 0 ? D : 0;
  static constexpr bool difference   = !RadialKernel<Profile, D, W, Dist>::staged;
  static constexpr int weight_offset = difference ? 0 : 1;  // b's place in the j-row's tail
  /// The formula's value from the sum and the components past the first D of the i-row and of
  /// the j-row.
  template <class T>
  static TESSERA_HOST_INLINE void finish(const RadialKernel<Profile, D, W, Dist>& formula, T sum,
                                         const T* i_tail, const T* j_tail, T* out) {
    T u;
    if constexpr (difference) {
      u = T(formula.profile.scale) * sum;
    } else {
      u = i_tail[0] + j_tail[0] + sum;
    }
    const T k = formula.profile.shape(u);
    if constexpr (W == 0) {
      out[0] = k;
    } else {
      for (int c = 0; c < W; ++c)
        out[c] = k * j_tail[weight_offset + c];
    }
  }
};

/// PointPairFormula of SquaredDistanceOp or DotOp: the sum is the value.
template <int D, class Op>
struct BlockedPairs<PointPairFormula<D, Op>> {
  static constexpr bool radial     = false;
  static constexpr bool difference = std::is_same_v<Op, SquaredDistanceOp>;
  static constexpr int dim         = D > 0 && (difference || std::is_same_v<Op, DotOp>) ? D : 0;
  /// The formula's value: the sum.
  template <class T>
  static TESSERA_HOST_INLINE void finish(const PointPairFormula<D, Op>&, T sum, const T*, const T*,
                                         T* out) {
    out[0] = sum;
  }
};

}  // namespace Impl
}  // namespace tessera
