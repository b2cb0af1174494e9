// One validated Genred call as the launches take it: options, extents, formula, variables,
// outputs and sparsity, with the compute, storage and index types they imply.
#pragma once

#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>
#include <tessera/genred/options.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// How a call's Views are stored, as the kernels read and write them: the VarGroups of its
/// parameter, i- and j-variables (each variable with its storage type, VarGroup::storage_type)
/// and the element type of its values output (OutputAccess::value_storage).
template <class PG, class IG, class JG, class Values>
struct CallStorage {
  using params_group = PG;      ///< The parameters' VarGroup.
  using i_group      = IG;      ///< The i-variables' VarGroup.
  using j_group      = JG;      ///< The j-variables' VarGroup.
  using values_type  = Values;  ///< The values output's element type.
  /// Whether every View is stored in the compute type (no conversion on load or store).
  static constexpr bool stores_compute_type = PG::stores_compute_type && IG::stores_compute_type &&
                                              JG::stores_compute_type &&
                                              std::is_same_v<Values, typename PG::compute_type>;
};

/// The storage of a call of Formula whose Views all hold the compute type T.
template <class T, class Formula>
using ComputeStorage =
    CallStorage<VarGroup<T, typename Formula::param_dims>, VarGroup<T, typename Formula::i_dims>,
                VarGroup<T, typename Formula::j_dims>, T>;

/// The arguments of a genred call once genred() has checked them. T: the compute type
/// (impl/element_types.hpp); PG, IG, JG: the VarGroups of the parameter, i- and j-variables;
/// OutputsT: the Outputs of values and indices Views; Sparsity: a BlockSparseRanges, or
/// NoSparsity for a dense call.
template <class T, class Index, class Formula, class PG, class IG, class JG, class OutputsT,
          class Sparsity>
struct GenredCall {
  using scalar_type  = T;  ///< The compute type: formulas and reducers run in it.
  using index_type   = Index;
  using formula_type = Formula;
  using storage_type =
      CallStorage<PG, IG, JG, typename OutputsT::values_type::non_const_value_type>;
  static constexpr bool sparse = !std::is_same_v<Sparsity, NoSparsity>;
  /// Whether every View holds the compute type. Kernels that read the Views' data directly
  /// (rather than through VarGroup's loads and OutputAccess) decline the other calls.
  static constexpr bool stores_compute_type = storage_type::stores_compute_type;

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
