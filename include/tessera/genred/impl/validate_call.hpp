// The host-side checks of a genred call (the pre-conditions of genred.hpp's file comment), in
// the order a call meets them: element types, compile-time checks of the Views' types, ranks and
// accessibility, the options, the backend asked for, the shape (batch, M, N), the variables'
// extents and dims against the formula, the outputs against the reduction, and a block-sparse
// call's pattern against the shape. validated_call() returns the call as the dispatch layer
// takes it (a GenredCall); checked_genred() hands it to dispatch() (dispatch.hpp). The
// distributed call (mpi/genred.hpp) validates each rank's slice with validated_call() and
// check_reduced_extent().
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>
#include <tessera/genred/formula.hpp>
#include <tessera/genred/impl/dispatch.hpp>
#include <tessera/genred/impl/element_types.hpp>
#include <tessera/genred/impl/genred_call.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/genred/reductions.hpp>
#include <tessera/genred/variables.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace tessera {
namespace Impl {

template <class View>
std::size_t rows_of(const View& v) {
  return v.extent(View::rank - 2);
}
template <class View>
std::size_t cols_of(const View& v) {
  return v.extent(View::rank - 1);
}

template <int... D>
int declared_dim(Dims<D...>, int v) {
  const int dims[] = {D..., 0};
  return dims[v];
}

template <class Argument>
void check_extent(const Argument& arg, const char* what, std::size_t got, std::size_t expected,
                  const char* why = "") {
  if (got != expected) {
    throw std::invalid_argument(concat("tessera::genred: ", arg, " ", what, " (got ", got,
                                       ", expected ", expected, why, ")"));
  }
}

template <class ExecSpace, class View>
constexpr bool accessible_from() {
  return Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;
}

/// What a reduction writes, known from its type alone.
template <class Reduction>
using ReductionFacts = Reducer<Reduction, float, 1, Summation::direct>;

/// The first View of the variable packs (a placeholder when there is none), whose rank every
/// variable must share.
template <class... Packs>
struct FirstScalar;
template <class... Views, class... Rest>
struct FirstScalar<std::tuple<Views...>, Rest...> {
  using type = typename std::conditional_t<
      (sizeof...(Views) > 0), std::tuple_element<0, std::tuple<Views..., Kokkos::View<float**>>>,
      FirstScalar<Rest...>>::type;
};
template <>
struct FirstScalar<> {
  using type = Kokkos::View<float**>;  // no variable at all: rejected by a static_assert
};

/// The values and indices Views of a call, whichever the reduction writes; the other is an
/// empty placeholder.
template <class Reduction, class T, class Output>
auto split_outputs(const Output& out) {
  using Facts = ReductionFacts<Reduction>;
  static_assert((Facts::writes_values && Facts::writes_indices) || Kokkos::is_view<Output>::value,
                "tessera::genred: this reduction writes one output: pass a Kokkos::View");
  if constexpr (Facts::writes_values && Facts::writes_indices) {
    return out;
  } else if constexpr (Facts::writes_values) {
    return Outputs<Output, Kokkos::View<int**, typename Output::memory_space>>{out, {}};
  } else {
    return Outputs<Kokkos::View<T**, typename Output::memory_space>, Output>{{}, out};
  }
}

// ---------------------------------------------------------------- the steps of checked_genred

/// The values output View of a call's output argument (a View, or tessera::outputs(...)).
template <class Output>
struct ValuesViewOf {
  using type = Output;
};
template <class V, class I>
struct ValuesViewOf<Outputs<V, I>> {
  using type = V;
};

/// The element type of a call's values output; float (which widens no compute type) for the
/// reductions that write indices only, and for outputs that are not Views (rejected by
/// check_output_types).
template <class Reduction, class Output, class = void>
struct ValuesElement {
  using type = float;
};
template <class Reduction, class Output>
struct ValuesElement<
    Reduction, Output,
    std::enable_if_t<ReductionFacts<Reduction>::writes_values &&
                     Kokkos::is_view<typename ValuesViewOf<Output>::type>::value>> {
  using type = typename ValuesViewOf<Output>::type::non_const_value_type;
};

/// Whether genred takes the element types of a call's variable Views and values output.
template <class Reduction, class Output, class... Views>
inline constexpr bool takes_element_types =
    (is_genred_element<typename Views::non_const_value_type> && ...) &&
    is_genred_element<typename ValuesElement<Reduction, Output>::type>;

/// The compute type of a call (element_types.hpp): the widest of its Views' element types.
template <class Reduction, class Output, class... Views>
using CallComputeType = ComputeType<typename Views::non_const_value_type...,
                                    typename ValuesElement<Reduction, Output>::type>;

/// Throws std::invalid_argument unless genred takes element type S, naming the argument.
template <class S, class Argument>
void check_element_type(const Argument& argument) {
  if constexpr (!is_genred_element<S>) {
    throw std::invalid_argument(
        concat("tessera::genred: ", argument, " element type is not supported (got ",
               element_type_description<S>(), ", expected ", genred_element_types, ")"));
  }
}

/// Throws std::invalid_argument naming the first View of the pack `name` whose element type
/// genred does not take.
template <class... Views>
void check_pack_element_types(const char* name) {
  int v = 0;
  ((check_element_type<typename Views::non_const_value_type>(joined(name, "[", v, "]")), ++v), ...);
}

/// The element types of every variable and of the values output are ones genred takes
/// (std::invalid_argument naming the first that is not).
template <class Reduction, class... P, class... I, class... J, class Output>
void check_element_types(const Params<P...>&, const IVars<I...>&, const JVars<J...>&,
                         const Output&) {
  check_pack_element_types<P...>("params");
  check_pack_element_types<I...>("i_vars");
  check_pack_element_types<J...>("j_vars");
  if constexpr (ReductionFacts<Reduction>::writes_values) {
    check_element_type<typename ValuesElement<Reduction, Output>::type>(
        is_outputs<Output> ? "out.values" : "out");
  }
}

/// Compile-time checks of the variables against each other, the formula and the execution
/// space. Returns nothing; fails to compile with a readable message.
template <class ExecSpace, class Formula, int Rank, class... P, class... I, class... J>
constexpr void check_variable_types(Params<P...>, IVars<I...>, JVars<J...>) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::genred: the first argument must be a Kokkos execution space instance");
  static_assert(sizeof...(P) + sizeof...(I) + sizeof...(J) > 0,
                "tessera::genred: the formula needs at least one variable");
  static_assert(
      ((P::rank == Rank) && ...) && ((I::rank == Rank) && ...) && ((J::rank == Rank) && ...),
      "tessera::genred: variables must be all rank 2 (unbatched) or all rank 3 (batched)");
  static_assert((accessible_from<ExecSpace, P>() && ...) &&
                    (accessible_from<ExecSpace, I>() && ...) &&
                    (accessible_from<ExecSpace, J>() && ...),
                "tessera::genred: every variable View must be accessible from the execution "
                "space");
  static_assert(sizeof...(P) == Formula::param_dims::count,
                "tessera::genred: the number of parameter Views differs from the formula's "
                "param_dims");
  static_assert(sizeof...(I) == Formula::i_dims::count,
                "tessera::genred: the number of i-variable Views differs from the formula's "
                "i_dims");
  static_assert(sizeof...(J) == Formula::j_dims::count,
                "tessera::genred: the number of j-variable Views differs from the formula's "
                "j_dims");
}

/// Compile-time checks of the output Views: types, rank and accessibility. Index outputs must
/// be signed (an empty range writes -1).
template <class ExecSpace, class Reduction, int Rank, class Output, class OutputsT>
constexpr void check_output_types() {
  using Facts       = ReductionFacts<Reduction>;
  using ValuesView  = typename OutputsT::values_type;
  using IndicesView = typename OutputsT::indices_type;
  static_assert(!(Facts::writes_values && Facts::writes_indices) || is_outputs<Output>,
                "tessera::genred: this reduction writes values and indices: pass "
                "tessera::outputs(values, indices)");
  static_assert(Kokkos::is_view<ValuesView>::value && Kokkos::is_view<IndicesView>::value,
                "tessera::genred: outputs must be Kokkos Views");
  static_assert(!Facts::writes_values ||
                    (!std::is_const_v<typename ValuesView::value_type> && ValuesView::rank == Rank),
                "tessera::genred: the values output must be a non-const View of the variables' "
                "rank");
  static_assert(!Facts::writes_indices || (std::is_integral_v<typename IndicesView::value_type> &&
                                           !std::is_const_v<typename IndicesView::value_type> &&
                                           IndicesView::rank == Rank),
                "tessera::genred: the indices output must be a non-const View of an integer "
                "type and of the variables' rank");
  static_assert(!Facts::writes_indices || std::is_signed_v<typename IndicesView::value_type>,
                "tessera::genred: the indices output must have a signed integer type (a row "
                "whose reduced range is empty gets the index -1)");
  static_assert(
      accessible_from<ExecSpace, ValuesView>() && accessible_from<ExecSpace, IndicesView>(),
      "tessera::genred: output Views must be accessible from the execution space");
}

/// Every option in its documented range, the error naming the option.
inline void check_options(const GenredOptions& options) {
  const auto in = [](auto v, auto first, auto last) { return !(v < first) && !(last < v); };
  require(in(options.axis, Axis::j, Axis::i), "genred", "options.axis is not an Axis (got ",
          static_cast<int>(options.axis), ")");
  require(in(options.summation, Summation::direct, Summation::kahan), "genred",
          "options.summation is not a Summation (got ", static_cast<int>(options.summation), ")");
  require(in(options.scheme, Scheme::automatic, Scheme::tiled_2d), "genred",
          "options.scheme is not a Scheme (got ", static_cast<int>(options.scheme), ")");
  require(in(options.implementation, Implementation::automatic, Implementation::host), "genred",
          "options.implementation is not an Implementation (got ",
          static_cast<int>(options.implementation), ")");
  require(options.team_size >= 0, "genred",
          "options.team_size must be >= 0, 0 for the default (got ", options.team_size, ")");
  require(options.tile_j >= 0, "genred", "options.tile_j must be >= 0, 0 for the default (got ",
          options.tile_j, ")");
  require(options.chunks_2d >= 0, "genred",
          "options.chunks_2d must be >= 0, 0 for the default (got ", options.chunks_2d, ")");
}

/// Checks the Views of one pack against the formula's declared dims and the shape; returns
/// their run-time dims.
template <class DimsT, class... Views>
std::vector<int> check_pack(const char* name, const std::tuple<Views...>& views, const Shape& shape,
                            std::size_t rows, const char* rows_name) {
  std::vector<int> dims;
  std::apply(
      [&](const auto&... view) {
        (
            [&](const auto& x) {
              using V        = std::decay_t<decltype(x)>;
              const int v    = static_cast<int>(dims.size());
              const auto arg = joined(name, "[", v, "]");
              if constexpr (V::rank == 3)
                check_extent(arg, "batch extent", x.extent(0), shape.batch);
              check_extent(arg, "rows", rows_of(x), rows, rows_name);
              require_int_extent("genred", joined(arg, " dimension"), cols_of(x));
              const int want = declared_dim(DimsT{}, v);
              if (want >= 0) {
                check_extent(arg, "dimension", cols_of(x), want, ", declared by the formula");
              } else {
                require(cols_of(x) >= 1, "genred", arg, " dimension must be at least 1 (got 0)");
              }
              dims.push_back(static_cast<int>(cols_of(x)));
            }(view),
            ...);
      },
      views);
  return dims;
}

/// The extents of the call: the batch from the first variable, M from the i-variables (from
/// the output when there are none and the reduction runs over j), N from the j-variables
/// (likewise over i).
template <class Facts, class... P, class... I, class... J, class OutputsT>
Shape call_shape(const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
                 const OutputsT& outs, Axis axis) {
  Shape shape{1, 0, 0};
  const auto out_rows = [&] {
    if constexpr (Facts::writes_values) {
      return rows_of(outs.values);
    } else {
      return rows_of(outs.indices);
    }
  };
  if constexpr (sizeof...(P) + sizeof...(I) + sizeof...(J) > 0) {
    using First = typename FirstScalar<std::tuple<P...>, std::tuple<I...>, std::tuple<J...>>::type;
    if constexpr (First::rank == 3) {
      std::apply([&](const auto& first, const auto&...) { shape.batch = first.extent(0); },
                 std::tuple_cat(params.views, i.views, j.views));
    }
  }
  if constexpr (sizeof...(I) > 0) {
    shape.m = rows_of(std::get<0>(i.views));
  } else {
    require(axis == Axis::j, "genred", "Axis::i needs at least one i-variable to define M");
    shape.m = out_rows();
  }
  if constexpr (sizeof...(J) > 0) {
    shape.n = rows_of(std::get<0>(j.views));
  } else {
    require(axis == Axis::i, "genred", "Axis::j needs at least one j-variable to define N");
    shape.n = out_rows();
  }
  require_int_extent("genred", "batch", shape.batch);
  require_int_extent("genred", "M", shape.m);
  require_int_extent("genred", "N", shape.n);
  return shape;
}

/// True for formulas with a host-side check of their run-time dimensions (formula.hpp).
template <class F, class = void>
inline constexpr bool has_dims_check = false;
template <class F>
inline constexpr bool has_dims_check<
    F, std::void_t<decltype(std::declval<const F&>().check_dims(std::declval<VariableDims>()))>> =
    true;

/// Checks every variable against the shape and the formula (its declared dims, then its own
/// check of the run-time dims, if it has one); returns the variables' run-time dims.
template <class Formula, class... P, class... I, class... J>
VariableDims check_variables(const Formula& formula, const Params<P...>& params,
                             const IVars<I...>& i, const JVars<J...>& j, const Shape& shape) {
  VariableDims dims;
  dims.params = check_pack<typename Formula::param_dims>("params", params.views, shape, 1,
                                                         " (parameters have one row)");
  dims.i      = check_pack<typename Formula::i_dims>("i_vars", i.views, shape, shape.m, " = M");
  dims.j      = check_pack<typename Formula::j_dims>("j_vars", j.views, shape, shape.n, " = N");
  if constexpr (has_dims_check<Formula>) formula.check_dims(dims);
  return dims;
}

/// The formula's output dimension for these variables, checked against the reduction.
template <class Reduction, class Formula>
int checked_formula_dim(const Formula& formula, const VariableDims& dims) {
  int formula_dim = Formula::out_dim;
  if constexpr (Formula::out_dim < 0) formula_dim = formula.output_dim(dims);
  require(formula_dim >= 1, "genred", "formula output dimension must be at least 1 (got ",
          formula_dim, ")");
  if constexpr (is_weighted_reduction<Reduction>) {
    require(formula_dim >= 2, "genred", "formula output dimension (got ", formula_dim,
            ", expected at least 2) must hold [f, weights...] for this weighted "
            "reduction");
  }
  return formula_dim;
}

template <class Output>
void check_output(const char* arg, const Output& out, const Shape& shape, std::size_t rows,
                  const char* rows_name, std::size_t cols) {
  if constexpr (Output::rank == 3) check_extent(arg, "batch extent", out.extent(0), shape.batch);
  check_extent(arg, "rows", rows_of(out), rows, rows_name);
  check_extent(arg, "columns", cols_of(out), cols, ", as the reduction writes");
}

/// k within the reduced extent and an index type that holds every reduced index: the checks that
/// need the extent of the whole reduced range (the distributed call's is the sum over ranks).
template <class Reduction, class Index>
void check_reduced_extent(const Reduction& reduction, std::size_t reduced,
                          const char* indices_name) {
  if constexpr (is_k_reduction<Reduction>) {
    const int k = reduction_k(reduction);
    require(k >= 1 && static_cast<std::size_t>(k) <= reduced, "genred", "k (got ", k,
            ") must be in [1, ", reduced, "], the reduced extent");
  }
  if constexpr (ReductionFacts<Reduction>::writes_indices) {
    if (reduced > 0 && reduced - 1 > static_cast<std::size_t>(std::numeric_limits<Index>::max())) {
      throw std::length_error(
          concat("tessera::genred: ", indices_name,
                 " cannot hold the reduced indices (its value type holds up to ",
                 +std::numeric_limits<Index>::max(), ", the reduced extent is ", reduced, ")"));
    }
  }
}

/// The name of the indices output in messages.
template <class Reduction>
constexpr const char* indices_name() {
  return ReductionFacts<Reduction>::writes_values ? "out.indices" : "out";
}

/// Which reduced range a call's checks see: the call's own (a single-rank call), or a slice of
/// a larger range whose extent the caller checks with check_reduced_extent (a rank's slice of a
/// distributed call, mpi/genred.hpp).
enum class ReducedRange { whole, slice };

/// The output Views: k within the reduced extent (at least 1 for a slice), extents as the
/// reduction writes, index types that hold every reduced index (for the whole range), and no
/// output sharing memory with a variable or with the other output.
template <class Reduction, class T, class OutputsT, class... P, class... I, class... J>
void check_outputs(const Reduction& reduction, const OutputsT& outs, int formula_dim,
                   const Shape& shape, const GenredOptions& options, const Params<P...>& params,
                   const IVars<I...>& i, const JVars<J...>& j, ReducedRange range) {
  using Facts       = ReductionFacts<Reduction>;
  using Index       = typename OutputsT::indices_type::non_const_value_type;
  const bool axis_j = options.axis == Axis::j;
  const int k       = reduction_k(reduction);
  if (range == ReducedRange::whole) {
    check_reduced_extent<Reduction, Index>(reduction, axis_j ? shape.n : shape.m,
                                           indices_name<Reduction>());
  } else {
    require(k >= 1, "genred", "k (got ", k, ") must be at least 1");
  }
  require_int_extent("genred", "output columns",
                     static_cast<std::size_t>(k) * static_cast<std::size_t>(formula_dim));
  const auto facts = make_reducer<Reduction, T, -1, Summation::direct>(reduction, formula_dim);
  const std::size_t rows   = axis_j ? shape.m : shape.n;
  const char* rows_name    = axis_j ? " = M" : " = N, for Axis::i";
  const char* values_name  = Facts::writes_indices ? "out.values" : "out";
  const char* indices_name = Impl::indices_name<Reduction>();
  if constexpr (Facts::writes_values) {
    check_output(values_name, outs.values, shape, rows, rows_name, facts.out_columns());
  }
  if constexpr (Facts::writes_indices) {
    check_output(indices_name, outs.indices, shape, rows, rows_name, facts.out_columns());
  }
  // no output may share memory with a variable, nor the two outputs with each other
  const auto require_apart = [&](const char* name, const MemoryRange& out) {
    const auto apart_from = [&](const char* pack, const auto& views) {
      std::apply(
          [&](const auto&... view) {
            const MemoryRange memory[] = {memory_range(view)..., MemoryRange{}};
            for (std::size_t v = 0; v + 1 < std::size(memory); ++v) {
              require(!out.overlaps(memory[v]), "genred", name, " shares memory with ", pack, "[",
                      v, "]");
            }
          },
          views);
    };
    apart_from("params", params.views);
    apart_from("i_vars", i.views);
    apart_from("j_vars", j.views);
  };
  if constexpr (Facts::writes_values) require_apart(values_name, memory_range(outs.values));
  if constexpr (Facts::writes_indices) require_apart(indices_name, memory_range(outs.indices));
  if constexpr (Facts::writes_values && Facts::writes_indices) {
    require(!views_share_memory(outs.values, outs.indices), "genred",
            "out.values shares memory with out.indices");
  }
}

/// A block-sparse call's ranges describe its plane, and the call runs the 1D scheme.
template <class ExecSpace, class Sparsity>
void check_sparsity(const Sparsity& sparsity, const Shape& shape, const GenredOptions& options) {
  if constexpr (!std::is_same_v<Sparsity, NoSparsity>) {
    static_assert(
        Kokkos::SpaceAccessibility<ExecSpace, typename Sparsity::memory_space>::accessible,
        "tessera::genred: the BlockSparseRanges must be accessible from the execution "
        "space");
    check_extent("ranges", "M", static_cast<std::size_t>(sparsity.m()), shape.m,
                 ", the call's i rows");
    check_extent("ranges", "N", static_cast<std::size_t>(sparsity.n()), shape.n,
                 ", the call's j rows");
    require(options.scheme != Scheme::tiled_2d, "genred",
            "block-sparse reductions run the 1D scheme: Scheme::tiled_2d is not available "
            "with ranges");
  }
}

/// Checks every argument of a call (dense, or restricted by `sparsity`) and returns it as the
/// dispatch layer takes it. For ReducedRange::slice the checks that need the extent of the whole
/// reduced range are left to the caller (check_reduced_extent): the distributed call
/// (mpi/genred.hpp) validates each rank's slice with it.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output, class Sparsity>
auto validated_call(const ExecSpace&, const Reduction& reduction, const Formula& formula,
                    const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
                    const Output& out, const GenredOptions& options, const Sparsity& sparsity,
                    ReducedRange range = ReducedRange::whole) {
  static_assert(takes_element_types<Reduction, Output, P..., I..., J...>,
                "tessera::genred: variables and values outputs must hold float, double, "
                "Kokkos::Experimental::half_t or Kokkos::Experimental::bhalf_t");
  using FirstVar = typename FirstScalar<std::tuple<P...>, std::tuple<I...>, std::tuple<J...>>::type;
  using T        = CallComputeType<Reduction, Output, P..., I..., J...>;
  constexpr int rank = FirstVar::rank;
  check_variable_types<ExecSpace, Formula, rank>(params, i, j);
  const auto outs = split_outputs<Reduction, T>(out);
  using OutputsT  = std::decay_t<decltype(outs)>;
  check_output_types<ExecSpace, Reduction, rank, Output, OutputsT>();

  check_options(options);
  constexpr Implementation backend = GenredBackend<ExecSpace>::implementation;
  require(options.implementation != Implementation::cuda || backend == Implementation::cuda,
          "genred",
          "Implementation::cuda needs a Kokkos::Cuda execution space and Tessera configured "
          "with its CUDA kernels (a Kokkos 4 with CUDA enabled)");
  require(options.implementation != Implementation::host || backend == Implementation::host,
          "genred", "Implementation::host needs a host execution space (Serial, OpenMP, Threads)");
  const Shape shape       = call_shape<ReductionFacts<Reduction>>(params, i, j, outs, options.axis);
  const VariableDims dims = check_variables(formula, params, i, j, shape);
  const int formula_dim   = checked_formula_dim<Reduction>(formula, dims);
  check_outputs<Reduction, T>(reduction, outs, formula_dim, shape, options, params, i, j, range);
  check_sparsity<ExecSpace>(sparsity, shape, options);

  using Index = typename OutputsT::indices_type::non_const_value_type;
  using PG =
      VarGroup<T, typename Formula::param_dims, StorageTypes<typename P::non_const_value_type...>>;
  using IG =
      VarGroup<T, typename Formula::i_dims, StorageTypes<typename I::non_const_value_type...>>;
  using JG =
      VarGroup<T, typename Formula::j_dims, StorageTypes<typename J::non_const_value_type...>>;
  return GenredCall<T, Index, Formula, PG, IG, JG, OutputsT, Sparsity>{options,
                                                                       shape,
                                                                       formula,
                                                                       formula_dim,
                                                                       PG::from_views(params.views),
                                                                       IG::from_views(i.views),
                                                                       JG::from_views(j.views),
                                                                       outs,
                                                                       sparsity};
}

/// Checks every argument of a call (dense, or restricted by `sparsity`), then hands it to the
/// dispatch layer. Element types genred does not take are rejected first, at run time, so that
/// no kernel is compiled for them.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output, class Sparsity>
void checked_genred(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
                    const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
                    const Output& out, const GenredOptions& options, const Sparsity& sparsity) {
  check_element_types<Reduction>(params, i, j, out);
  if constexpr (takes_element_types<Reduction, Output, P..., I..., J...>) {
    dispatch(space, validated_call(space, reduction, formula, params, i, j, out, options, sparsity),
             reduction);
  }
}

}  // namespace Impl
}  // namespace tessera
