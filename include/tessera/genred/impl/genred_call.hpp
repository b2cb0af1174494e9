// One validated Genred call as the launches take it: options, extents, formula, variables,
// outputs and sparsity, with the scalar and index types they imply.
#pragma once

#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/options.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// The arguments of a genred call once genred() has checked them. PG, IG, JG: the VarGroups of
/// the parameter, i- and j-variables; OutputsT: the Outputs of values and indices Views;
/// Sparsity: a BlockSparseRanges, or NoSparsity for a dense call.
template <class T, class Index, class Formula, class PG, class IG, class JG, class OutputsT,
          class Sparsity>
struct GenredCall {
  using scalar_type            = T;
  using index_type             = Index;
  using formula_type           = Formula;
  static constexpr bool sparse = !std::is_same_v<Sparsity, NoSparsity>;

  GenredOptions options;
  Shape shape;
  Formula formula;
  int formula_dim;  ///< run-time output dimension of the formula
  PG params;
  IG ivars;
  JG jvars;
  OutputsT outputs;
  Sparsity sparsity;

  /// Rows of the outer (output) and of the reduced index for a reduction over j (OuterIsI) or i.
  template <bool OuterIsI>
  int n_outer() const {
    return static_cast<int>(OuterIsI ? shape.m : shape.n);
  }
  template <bool OuterIsI>
  int n_inner() const {
    return static_cast<int>(OuterIsI ? shape.n : shape.m);
  }
};

}  // namespace Impl
}  // namespace tessera
