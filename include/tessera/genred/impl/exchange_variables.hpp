// Reductions over i as reductions over j: for a formula symmetric in its two points,
// F(x, y) = F(y, x), the reduction over i of a call is the reduction over j of the same call with
// its i- and j-variables (and M and N) exchanged, written to the same outputs (the outer rows of
// a reduction over i are the j rows). Backends whose fast kernels reduce over j only (the CUDA
// tensor-core kernels) run such calls through the exchanged call.
#pragma once

#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/genred_call.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// True for the built-in formulas symmetric in x_i and y_j: the point-pair formulas of a
/// symmetric Op (squared distance, distance, dot product, cosine similarity and distance) and
/// radial kernels without weights.
template <class Formula>
inline constexpr bool symmetric_formula = false;
template <int D, class Op>
inline constexpr bool symmetric_formula<PointPairFormula<D, Op>> =
    std::is_same_v<Op, SquaredDistanceOp> || std::is_same_v<Op, DistanceOp> ||
    std::is_same_v<Op, DotOp> || std::is_same_v<Op, CosineSimilarityOp> ||
    std::is_same_v<Op, CosineDistanceOp>;
template <class Profile, int D, Distance Dist>
inline constexpr bool symmetric_formula<RadialKernel<Profile, D, 0, Dist>> = true;

/// The call with its i- and j-variables exchanged, M and N with them (see the file comment).
/// Dense calls only: block-sparse ranges belong to one axis.
template <class T, class Index, class Formula, class PG, class IG, class JG, class OutputsT>
GenredCall<T, Index, Formula, PG, JG, IG, OutputsT, NoSparsity> exchange_variables(
    const GenredCall<T, Index, Formula, PG, IG, JG, OutputsT, NoSparsity>& call) {
  static_assert(symmetric_formula<Formula>, "only a symmetric formula's call can be exchanged");
  GenredOptions options = call.options;
  options.axis          = Axis::j;
  return {options,      Shape{call.shape.batch, call.shape.n, call.shape.m},
          call.formula, call.formula_dim,
          call.params,  call.jvars,
          call.ivars,   call.outputs,
          call.sparsity};
}

}  // namespace Impl
}  // namespace tessera
