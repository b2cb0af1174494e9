// The variables and outputs of a genred call: packs of Kokkos Views.
//
// Each variable is a View of rank 2, (rows, dim), or of rank 3, (batch, rows, dim), with
// rows = M for i-variables, N for j-variables and 1 for parameter variables. Any layout works
// (LayoutRight, LayoutLeft, LayoutStride). In one call all Views are unbatched or all batched
// with the same batch extent. Element types: float, double, Kokkos::Experimental::half_t or
// (Kokkos 4) Kokkos::Experimental::bhalf_t, mixed freely (genred.hpp: the compute type);
// genred rejects others with std::invalid_argument naming the View.
#pragma once

#include <Kokkos_Core.hpp>

#include <tuple>
#include <type_traits>

namespace tessera {

/// The i-indexed variables x_i of a genred call; make with tessera::i_vars(x, ...).
template <class... Views>
struct IVars {
  std::tuple<Views...> views;  ///< The i-variables, in the order the formula takes them.
};
/// The j-indexed variables y_j of a genred call; make with tessera::j_vars(y, b, ...).
template <class... Views>
struct JVars {
  std::tuple<Views...> views;  ///< The j-variables, in the order the formula takes them.
};
/// The parameter variables p of a genred call, one row each; make with tessera::params(p, ...).
template <class... Views>
struct Params {
  std::tuple<Views...> views;  ///< The parameter variables, in the order the formula takes them.
};
/// A values View and an indices View, for the reductions that write both (MinArgMin,
/// MaxArgMax, KMinArgKMin); make with tessera::outputs(values, indices).
template <class ValuesView, class IndicesView>
struct Outputs {
  using values_type  = ValuesView;   ///< Type of the values View.
  using indices_type = IndicesView;  ///< Type of the indices View.
  ValuesView values;                 ///< The reduced values (float, double or half precision).
  IndicesView indices;               ///< The reduced indices, of a signed integer type.
};

namespace Impl {
template <class T>
inline constexpr bool is_outputs = false;
template <class V, class I>
inline constexpr bool is_outputs<Outputs<V, I>> = true;

/// True when the arguments of a genred call hold its i-variable and j-variable packs (the calls
/// without them are the ones that forgot tessera::i_vars(...) and tessera::j_vars(...)).
template <class T>
inline constexpr bool is_i_vars = false;
template <class... V>
inline constexpr bool is_i_vars<IVars<V...>> = true;
template <class T>
inline constexpr bool is_j_vars = false;
template <class... V>
inline constexpr bool is_j_vars<JVars<V...>> = true;
template <class... Args>
inline constexpr bool has_variable_packs = (is_i_vars<Args> || ...) && (is_j_vars<Args> || ...);

/// A View of rank 2 or 3 (its element type is genred's check: genred.hpp).
template <class V>
inline constexpr bool is_variable_view = Kokkos::is_view<V>::value &&
                                         (V::rank == 2 || V::rank == 3);
}  // namespace Impl

/// Packs the i-variables x_i of a genred call (Views of rank 2 or 3, checked at compile time, of
/// an element type genred takes, checked by genred); the Views are copied, not their data.
template <class... Views>
IVars<Views...> i_vars(const Views&... views) {
  static_assert((Impl::is_variable_view<Views> && ...),
                "tessera::i_vars: each variable must be a Kokkos::View of rank 2 (M, dim) or "
                "rank 3 (batch, M, dim)");
  return {std::tuple<Views...>(views...)};
}
/// Packs the j-variables y_j of a genred call (Views of rank 2 or 3, checked at compile time, of
/// an element type genred takes, checked by genred); the Views are copied, not their data.
template <class... Views>
JVars<Views...> j_vars(const Views&... views) {
  static_assert((Impl::is_variable_view<Views> && ...),
                "tessera::j_vars: each variable must be a Kokkos::View of rank 2 (N, dim) or "
                "rank 3 (batch, N, dim)");
  return {std::tuple<Views...>(views...)};
}
/// Packs the parameter variables p of a genred call (Views of rank 2 or 3 with one row, the rank
/// checked at compile time, of an element type genred takes, checked by genred); the Views are
/// copied, not their data.
template <class... Views>
Params<Views...> params(const Views&... views) {
  static_assert((Impl::is_variable_view<Views> && ...),
                "tessera::params: each parameter must be a Kokkos::View of rank 2 (1, dim) or "
                "rank 3 (batch, 1, dim)");
  return {std::tuple<Views...>(views...)};
}
/// Pairs the values and indices output Views of a genred call; the Views are copied, not their
/// data.
template <class ValuesView, class IndicesView>
Outputs<ValuesView, IndicesView> outputs(const ValuesView& values, const IndicesView& indices) {
  return {values, indices};
}

}  // namespace tessera
