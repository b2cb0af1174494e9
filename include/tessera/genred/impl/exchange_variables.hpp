// Reductions over i as reductions over j: for a formula symmetric in its two points,
// F(x, y) = F(y, x), the reduction over i of a call is the reduction over j of the same call with
// its i- and j-variables (and M and N) exchanged, written to the same outputs (the outer rows of
// a reduction over i are the j rows); a block-sparse call's pattern is walked in the other
// direction (ExchangedSparsity). Backends whose fast kernels reduce over j only (the CUDA
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

/// A block-sparse pattern seen from the exchanged call: its by_rows() direction is the
/// pattern's by_columns() and the other way round. Holds the pattern by address: it lives as
/// long as the call it was taken from.
template <class Sparsity>
struct ExchangedSparsity {
  const Sparsity* pattern = nullptr;
  const auto& by_rows() const { return pattern->by_columns(); }
  const auto& by_columns() const { return pattern->by_rows(); }
};

/// The sparsity of the exchanged call: none for a dense call, else the pattern exchanged.
inline NoSparsity exchange_sparsity(const NoSparsity& none) {
  return none;
}
template <class Sparsity>
ExchangedSparsity<Sparsity> exchange_sparsity(const Sparsity& pattern) {
  return {&pattern};
}

/// The call with its i- and j-variables exchanged, M and N and the directions of a
/// block-sparse pattern with them (see the file comment).
template <class T, class Index, class Formula, class PG, class IG, class JG, class OutputsT,
          class Sparsity>
auto exchange_variables(const GenredCall<T, Index, Formula, PG, IG, JG, OutputsT, Sparsity>& call) {
  static_assert(symmetric_formula<Formula>, "only a symmetric formula's call can be exchanged");
  using Exchanged       = decltype(exchange_sparsity(call.sparsity));
  GenredOptions options = call.options;
  options.axis          = Axis::j;
  return GenredCall<T, Index, Formula, PG, JG, IG, OutputsT, Exchanged>{
      options,
      Shape{call.shape.batch, call.shape.n, call.shape.m},
      call.formula,
      call.formula_dim,
      call.params,
      call.jvars,
      call.ivars,
      call.outputs,
      exchange_sparsity(call.sparsity)};
}

}  // namespace Impl
}  // namespace tessera
