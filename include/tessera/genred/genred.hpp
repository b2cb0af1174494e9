// tessera::genred: generic tiled map-reduce,  a_i = Reduction_j F(p, x_i, y_j),
// never storing the M-by-N array of F values.
//
//   auto k = tessera::GaussianKernel<3, 1>(sigma);   // F = exp(-|x - y|^2 / 2 sigma^2) b_j
//   tessera::genred(space, tessera::Sum{}, k, tessera::i_vars(x), tessera::j_vars(y, b), out);
//
// Pre-conditions (checked on the host before anything runs; violations throw
// std::invalid_argument, or std::length_error for extents beyond 2^31 - 1):
//  - every variable is a View (rows, dim) or (batch, rows, dim) of the same float type, all of
//    rank 2 or all of rank 3 with one batch extent; i-variables have M rows, j-variables N rows,
//    parameters 1 row; dims equal the formula's static dims (dynamic_extent dims: any >= 1);
//  - the output is a View (rows, cols) / (batch, rows, cols) with rows = M (Axis::j) or N
//    (Axis::i) and cols given in reductions.hpp; reductions writing values and indices take
//    tessera::outputs(values, indices); index Views have an integer value type;
//  - KMin-type reductions: 1 <= k <= the reduced extent; weighted ones: formula dim >= 2;
//  - M is taken from the i-variables (from the output if there are none and Axis::j), N from
//    the j-variables (from the output if there are none and Axis::i);
//  - all Views are accessible from ExecSpace (checked at compile time).
// Complexity: B * M * N formula evaluations. Memory: the outputs only for the 1D scheme; the
// 2D scheme adds a buffer of B * rows * chunks accumulators (chunks <= 2 * concurrency / rows).
// Asynchronous: no fence, except that the 2D scheme frees its partial buffer on return.
//
// Block-sparse reductions: pass a tessera::BlockSparseRanges (block_sparse_ranges.hpp) after
// the output to restrict the reduction to the tiles it keeps; see the overloads below.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/tiling.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/genred/formula.hpp>
#include <tessera/genred/impl/cuda_matrix_radial.hpp>
#include <tessera/genred/impl/cuda_tiled_reduce.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/genred/reductions.hpp>
#include <tessera/genred/variables.hpp>

#include <Kokkos_Core.hpp>

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

inline void check_extent(const std::string& arg, const char* what, std::size_t got,
                         std::size_t expected, const char* why = "") {
  if (got != expected) {
    throw std::invalid_argument(concat("tessera::genred: ", arg, " ", what, " (got ", got,
                                       ", expected ", expected, why, ")"));
  }
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
              using V               = std::decay_t<decltype(x)>;
              const int v           = static_cast<int>(dims.size());
              const std::string arg = concat(name, "[", v, "]");
              if constexpr (V::rank == 3)
                check_extent(arg, "batch extent", x.extent(0), shape.batch);
              check_extent(arg, "rows", rows_of(x), rows, rows_name);
              require_int_extent("genred", arg + " dimension", cols_of(x));
              const int want = declared_dim(DimsT{}, v);
              if (want >= 0) {
                check_extent(arg, "dimension", cols_of(x), want, ", declared by the formula");
              } else {
                require(cols_of(x) >= 1, "genred", arg + " dimension must be at least 1 (got 0)");
              }
              dims.push_back(static_cast<int>(cols_of(x)));
            }(view),
            ...);
      },
      views);
  return dims;
}

template <class Output>
void check_output(const char* arg, const Output& out, const Shape& shape, std::size_t rows,
                  const char* rows_name, std::size_t cols) {
  if constexpr (Output::rank == 3) check_extent(arg, "batch extent", out.extent(0), shape.batch);
  check_extent(arg, "rows", rows_of(out), rows, rows_name);
  check_extent(arg, "columns", cols_of(out), cols, ", as the reduction writes");
}

template <class ExecSpace, class View>
constexpr bool accessible_from() {
  return Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;
}

/// What a reduction writes, known from its type alone.
template <class Reduction>
using ReductionFacts = Reducer<Reduction, float, 1, Summation::direct>;

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

/// True when calls on ExecSpace can run the CUDA kernel.
template <class ExecSpace>
inline constexpr bool has_cuda_kernels =
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
    std::is_same_v<ExecSpace, Kokkos::Cuda>;
#else
    false;
#endif

/// Runs one call through the portable TeamPolicy kernel, or, when the execution space is
/// Kokkos::Cuda and options.implementation allows it, through the CUDA kernel.
template <class ExecSpace, class T, class Index, class Formula, class Red, bool OuterIsI, class PG,
          class IG, class JG, class OutputsT, class Sparsity>
void launch(const ExecSpace& space, const GenredOptions& options, const Shape& shape,
            const Formula& formula, const Red& red, int formula_dim, const PG& params,
            const IG& ivars, const JG& jvars, const OutputsT& outputs, const Sparsity& sparsity) {
  constexpr bool sparse     = !std::is_same_v<Sparsity, NoSparsity>;
  const std::size_t n_outer = OuterIsI ? shape.m : shape.n;
  const std::size_t n_inner = OuterIsI ? shape.n : shape.m;
  if (n_outer == 0 || shape.batch == 0) return;
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    if constexpr (matrix_radial_call<T, Formula, Red, OuterIsI, sparse>) {
      if (options.implementation != Implementation::portable &&
          launch_matrix_radial<Index>(space, options, shape, formula, red, params, ivars, jvars,
                                      outputs)) {
        return;
      }
    }
    if (options.implementation != Implementation::portable &&
        launch_cuda<T, Index, Formula, Red, OuterIsI>(space, options, shape, formula, red,
                                                      formula_dim, params, ivars, jvars, outputs,
                                                      sparsity)) {
      return;
    }
  }
#endif
  require(options.implementation != Implementation::cuda, "genred",
          "Implementation::cuda: the per-thread buffers of this call's run-time sizes do not fit "
          "in the CUDA kernel's shared memory (Implementation::automatic falls back to the "
          "portable kernel)");

  using Kernel             = TiledReduceFor<ExecSpace, T, Formula, Red, OuterIsI, Index, sparse>;
  using Policy             = Kokkos::TeamPolicy<ExecSpace>;
  const TileShape defaults = default_tile_shape<ExecSpace>(sizeof(T));
  Kernel k{formula, red, params, ivars, jvars, formula_dim};
  k.n_outer = static_cast<int>(n_outer);
  k.n_inner = static_cast<int>(n_inner);
  k.tile_j  = options.tile_j > 0 ? options.tile_j : defaults.tile_j;
  k.out     = output_access<T, Index>(outputs);
  k.chunks  = 1;
  int team  = options.team_size > 0 ? options.team_size : defaults.team_size;
  team      = std::min(team, Policy(space, 1, 1).team_size_max(k, Kokkos::ParallelForTag()));
  if constexpr (sparse) team = (1 << sparse_team_level(team * Kernel::R)) / Kernel::R;
  k.team_size = team;

  // Scratch: the staged tile at level 0 (shrunk if the inner rows are wide), per-thread
  // buffers at level 0 while they fit the budget, else at level 1.
  const std::size_t level0_max = static_cast<std::size_t>(Policy::scratch_size_max(0));
  const std::size_t per_thread = k.thread_scratch_bytes();
  k.thread_scratch_level       = per_thread * team <= per_thread_scratch0_budget ? 0 : 1;
  const std::size_t thread0    = k.thread_scratch_level == 0 ? per_thread * team : 0;
  while (k.tile_j > 1 && k.team_scratch_bytes() + thread0 > level0_max)
    k.tile_j /= 2;
  if (k.team_scratch_bytes() + thread0 > level0_max) {
    throw std::length_error(concat("tessera::genred: one inner row of ", k.inner_width(),
                                   " scalars does not fit the ", level0_max,
                                   " bytes of team scratch memory"));
  }

  const std::size_t resident_teams =
      static_cast<std::size_t>(space.concurrency()) / static_cast<std::size_t>(team);
  const std::size_t league = schedule<ExecSpace>(options, shape, sparsity, resident_teams, k);
  if (league == 0) return;
  const auto partials = allocate_partials(space, k, shape.batch);

  Policy policy(space, static_cast<int>(league), team);
  if (k.thread_scratch_level == 0) {
    policy.set_scratch_size(0, Kokkos::PerTeam(k.team_scratch_bytes()),
                            Kokkos::PerThread(per_thread));
  } else {
    policy.set_scratch_size(0, Kokkos::PerTeam(k.team_scratch_bytes()));
    policy.set_scratch_size(1, Kokkos::PerThread(per_thread));
  }
  Kokkos::parallel_for(sparse         ? "tessera::genred::block_sparse_1d"
                       : k.chunks > 1 ? "tessera::genred::tiled_2d"
                                      : "tessera::genred::tiled_1d",
                       policy, k);
  combine_chunks(space, k, shape.batch);
}

template <class ExecSpace, class T, class Index, class Formula, class Reduction, class PG, class IG,
          class JG, class OutputsT, class Sparsity>
void dispatch(const ExecSpace& space, const GenredOptions& options, const Shape& shape,
              const Formula& formula, const Reduction& reduction, int formula_dim, const PG& params,
              const IG& ivars, const JG& jvars, const OutputsT& outputs, const Sparsity& sparsity) {
  constexpr int FD = Formula::out_dim;
  auto launch_with = [&](const auto& red) {
    using Red = std::decay_t<decltype(red)>;
    if (options.axis == Axis::j) {
      launch<ExecSpace, T, Index, Formula, Red, true>(space, options, shape, formula, red,
                                                      formula_dim, params, ivars, jvars, outputs,
                                                      sparsity);
    } else {
      launch<ExecSpace, T, Index, Formula, Red, false>(space, options, shape, formula, red,
                                                       formula_dim, params, ivars, jvars, outputs,
                                                       sparsity);
    }
  };
  auto run = [&](auto summation_tag) {
    constexpr Summation S = decltype(summation_tag)::value;
    launch_with(make_reducer<Reduction, T, FD, S>(reduction, formula_dim));
  };
  using Direct = std::integral_constant<Summation, Summation::direct>;
  using Block  = std::integral_constant<Summation, Summation::block_sum>;
  using Kahan  = std::integral_constant<Summation, Summation::kahan>;
  if constexpr (uses_summation<Reduction>) {
    switch (options.summation) {
      case Summation::direct:
        run(Direct{});
        break;
      case Summation::kahan:
        run(Kahan{});
        break;
      default:
        run(Block{});
        break;
    }
  } else {
    run(Block{});  // the summation option does not change min/max arithmetic
  }
}

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

}  // namespace Impl

namespace Impl {

/// Checks every argument of a call, then runs it (dense, or restricted by `sparsity`).
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output, class Sparsity>
void checked_genred(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
                    const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
                    const Output& out, const GenredOptions& options, const Sparsity& sparsity) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::genred: the first argument must be a Kokkos execution space instance");
  using FirstVar =
      typename Impl::FirstScalar<std::tuple<P...>, std::tuple<I...>, std::tuple<J...>>::type;
  static_assert(sizeof...(P) + sizeof...(I) + sizeof...(J) > 0,
                "tessera::genred: the formula needs at least one variable");
  using T = typename FirstVar::non_const_value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tessera::genred: variables must be float or double");
  static_assert((std::is_same_v<typename P::non_const_value_type, T> && ...) &&
                    (std::is_same_v<typename I::non_const_value_type, T> && ...) &&
                    (std::is_same_v<typename J::non_const_value_type, T> && ...),
                "tessera::genred: all variables must have the same scalar type");
  constexpr int rank = FirstVar::rank;
  static_assert(
      ((P::rank == rank) && ...) && ((I::rank == rank) && ...) && ((J::rank == rank) && ...),
      "tessera::genred: variables must be all rank 2 (unbatched) or all rank 3 "
      "(batched)");
  static_assert((Impl::accessible_from<ExecSpace, P>() && ...) &&
                    (Impl::accessible_from<ExecSpace, I>() && ...) &&
                    (Impl::accessible_from<ExecSpace, J>() && ...),
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

  using Facts = Impl::ReductionFacts<Reduction>;
  static_assert(!(Facts::writes_values && Facts::writes_indices) || Impl::is_outputs<Output>,
                "tessera::genred: this reduction writes values and indices: pass "
                "tessera::outputs(values, indices)");
  const auto outs   = Impl::split_outputs<Reduction, T>(out);
  using ValuesView  = typename decltype(outs)::values_type;
  using IndicesView = typename decltype(outs)::indices_type;
  using Index       = typename IndicesView::non_const_value_type;
  static_assert(Kokkos::is_view<ValuesView>::value && Kokkos::is_view<IndicesView>::value,
                "tessera::genred: outputs must be Kokkos Views");
  static_assert(!Facts::writes_values || (std::is_same_v<typename ValuesView::value_type, T> &&
                                          ValuesView::rank == rank),
                "tessera::genred: the values output must be a non-const View of the variables' "
                "scalar type and of the variables' rank");
  static_assert(!Facts::writes_indices || (std::is_integral_v<typename IndicesView::value_type> &&
                                           !std::is_const_v<typename IndicesView::value_type> &&
                                           IndicesView::rank == rank),
                "tessera::genred: the indices output must be a non-const View of an integer "
                "type and of the variables' rank");
  static_assert(Impl::accessible_from<ExecSpace, ValuesView>() &&
                    Impl::accessible_from<ExecSpace, IndicesView>(),
                "tessera::genred: output Views must be accessible from the execution space");

  // ---- extents
  Impl::Shape shape{1, 0, 0};
  const bool axis_j   = options.axis == Axis::j;
  const auto& i_views = i.views;
  const auto& j_views = j.views;
  if constexpr (rank == 3) {
    std::apply([&](const auto& first, const auto&...) { shape.batch = first.extent(0); },
               std::tuple_cat(params.views, i_views, j_views));
  }
  if constexpr (sizeof...(I) > 0) {
    shape.m = Impl::rows_of(std::get<0>(i_views));
  } else {
    Impl::require(axis_j, "genred", "Axis::i needs at least one i-variable to define M");
    shape.m = Facts::writes_values ? Impl::rows_of(outs.values) : Impl::rows_of(outs.indices);
  }
  if constexpr (sizeof...(J) > 0) {
    shape.n = Impl::rows_of(std::get<0>(j_views));
  } else {
    Impl::require(!axis_j, "genred", "Axis::j needs at least one j-variable to define N");
    shape.n = Facts::writes_values ? Impl::rows_of(outs.values) : Impl::rows_of(outs.indices);
  }
  Impl::require_int_extent("genred", "batch", shape.batch);
  Impl::require_int_extent("genred", "M", shape.m);
  Impl::require_int_extent("genred", "N", shape.n);

  VariableDims dims;
  dims.params = Impl::check_pack<typename Formula::param_dims>("params", params.views, shape, 1,
                                                               " (parameters have one row)");
  dims.i = Impl::check_pack<typename Formula::i_dims>("i_vars", i_views, shape, shape.m, " = M");
  dims.j = Impl::check_pack<typename Formula::j_dims>("j_vars", j_views, shape, shape.n, " = N");

  int formula_dim = Formula::out_dim;
  if constexpr (Formula::out_dim < 0) formula_dim = formula.output_dim(dims);
  Impl::require(
      formula_dim >= 1, "genred",
      Impl::concat("formula output dimension must be at least 1 (got ", formula_dim, ")"));
  if constexpr (Impl::is_weighted_reduction<Reduction>) {
    Impl::require(formula_dim >= 2, "genred",
                  Impl::concat("formula output dimension (got ", formula_dim,
                               ", expected at least 2) must hold [f, weights...] for this "
                               "weighted reduction"));
  }
  const std::size_t reduced = axis_j ? shape.n : shape.m;
  const int k               = Impl::reduction_k(reduction);
  if constexpr (Impl::is_k_reduction<Reduction>) {
    Impl::require(
        k >= 1 && static_cast<std::size_t>(k) <= reduced, "genred",
        Impl::concat("k (got ", k, ") must be in [1, ", reduced, "], the reduced extent"));
  }
  const auto facts =
      Impl::make_reducer<Reduction, T, Formula::out_dim, Summation::direct>(reduction, formula_dim);
  const std::size_t out_rows = axis_j ? shape.m : shape.n;
  const char* rows_name      = axis_j ? " = M" : " = N, for Axis::i";
  const char* values_name    = Facts::writes_indices ? "out.values" : "out";
  const char* indices_name   = Facts::writes_values ? "out.indices" : "out";
  Impl::require_int_extent("genred", "output columns",
                           static_cast<std::size_t>(k) * static_cast<std::size_t>(formula_dim));
  if constexpr (Facts::writes_values) {
    Impl::check_output(values_name, outs.values, shape, out_rows, rows_name, facts.out_columns());
  }
  if constexpr (Facts::writes_indices) {
    Impl::check_output(indices_name, outs.indices, shape, out_rows, rows_name, facts.out_columns());
  }

  if constexpr (!std::is_same_v<Sparsity, Impl::NoSparsity>) {
    static_assert(
        Kokkos::SpaceAccessibility<ExecSpace, typename Sparsity::memory_space>::accessible,
        "tessera::genred: the BlockSparseRanges must be accessible from the execution "
        "space");
    Impl::check_extent("ranges", "M", static_cast<std::size_t>(sparsity.m()), shape.m,
                       ", the call's i rows");
    Impl::check_extent("ranges", "N", static_cast<std::size_t>(sparsity.n()), shape.n,
                       ", the call's j rows");
    Impl::require(options.scheme != Scheme::tiled_2d, "genred",
                  "block-sparse reductions run the 1D scheme: Scheme::tiled_2d is not available "
                  "with ranges");
  }

  Impl::require(options.implementation != Implementation::cuda || Impl::has_cuda_kernels<ExecSpace>,
                "genred",
                "Implementation::cuda needs a Kokkos::Cuda execution space and Tessera compiled "
                "by a CUDA compiler against a Kokkos 4 with CUDA enabled");

  // ---- launch
  using Kernel  = Impl::TiledReduce<ExecSpace, T, Formula,
                                   Impl::Reducer<Reduction, T, Formula::out_dim, Summation::direct>,
                                   true, Index>;
  const auto pg = Kernel::PG::from_views(params.views);
  const auto ig = Kernel::IG::from_views(i_views);
  const auto jg = Kernel::JG::from_views(j_views);
  Impl::dispatch<ExecSpace, T, Index>(space, options, shape, formula, reduction, formula_dim, pg,
                                      ig, jg, outs, sparsity);
}

}  // namespace Impl

/// a = Reduction over j (or over i, options.axis) of formula(p, x_i, y_j); see the file comment
/// for shapes, checks and costs. `out` is a View, or tessera::outputs(values, indices) for
/// MinArgMin, MaxArgMax and KMinArgKMin.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output>
void genred(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
            const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
            const Output& out, const GenredOptions& options = {}) {
  Impl::checked_genred(space, reduction, formula, params, i, j, out, options, Impl::NoSparsity{});
}

/// Block-sparse genred: as above, with the reduction over j (over i for Axis::i) restricted to
/// the pairs that `ranges` keeps; rows whose segment keeps no pair get the reduction's
/// empty-range value. `ranges` must describe the call's M-by-N plane (std::invalid_argument
/// otherwise); the same pattern serves every batch entry. Work: B * ranges.kept_pairs() formula
/// evaluations plus the idle threads of partial team tiles (one per segment on average), so
/// segments should be at least a team long (256 rows on GPUs). Runs the 1D scheme: team sizes
/// are rounded down to a power of two, and Scheme::tiled_2d is rejected.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output, class MemorySpace>
void genred(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
            const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
            const Output& out, const BlockSparseRanges<MemorySpace>& ranges,
            const GenredOptions& options = {}) {
  Impl::checked_genred(space, reduction, formula, params, i, j, out, options, ranges);
}

/// Block-sparse genred without parameter variables.
template <class ExecSpace, class Reduction, class Formula, class... I, class... J, class Output,
          class MemorySpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void genred(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
            const IVars<I...>& i, const JVars<J...>& j, const Output& out,
            const BlockSparseRanges<MemorySpace>& ranges, const GenredOptions& options = {}) {
  Impl::checked_genred(space, reduction, formula, Params<>{}, i, j, out, options, ranges);
}

/// Block-sparse genred on Kokkos::DefaultExecutionSpace.
template <class Reduction, class Formula, class... P, class... I, class... J, class Output,
          class MemorySpace,
          class = std::enable_if_t<!Kokkos::is_execution_space<Reduction>::value>>
void genred(const Reduction& reduction, const Formula& formula, const Params<P...>& params,
            const IVars<I...>& i, const JVars<J...>& j, const Output& out,
            const BlockSparseRanges<MemorySpace>& ranges, const GenredOptions& options = {}) {
  Impl::checked_genred(Kokkos::DefaultExecutionSpace{}, reduction, formula, params, i, j, out,
                       options, ranges);
}

/// Block-sparse genred on Kokkos::DefaultExecutionSpace, without parameter variables.
template <class Reduction, class Formula, class... I, class... J, class Output, class MemorySpace,
          class = std::enable_if_t<!Kokkos::is_execution_space<Reduction>::value>>
void genred(const Reduction& reduction, const Formula& formula, const IVars<I...>& i,
            const JVars<J...>& j, const Output& out, const BlockSparseRanges<MemorySpace>& ranges,
            const GenredOptions& options = {}) {
  Impl::checked_genred(Kokkos::DefaultExecutionSpace{}, reduction, formula, Params<>{}, i, j, out,
                       options, ranges);
}

/// genred without parameter variables.
template <class ExecSpace, class Reduction, class Formula, class... I, class... J, class Output,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
void genred(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
            const IVars<I...>& i, const JVars<J...>& j, const Output& out,
            const GenredOptions& options = {}) {
  genred(space, reduction, formula, Params<>{}, i, j, out, options);
}

/// genred on Kokkos::DefaultExecutionSpace.
template <class Reduction, class Formula, class... P, class... I, class... J, class Output,
          class = std::enable_if_t<!Kokkos::is_execution_space<Reduction>::value>>
void genred(const Reduction& reduction, const Formula& formula, const Params<P...>& params,
            const IVars<I...>& i, const JVars<J...>& j, const Output& out,
            const GenredOptions& options = {}) {
  genred(Kokkos::DefaultExecutionSpace{}, reduction, formula, params, i, j, out, options);
}

/// genred on Kokkos::DefaultExecutionSpace, without parameter variables.
template <class Reduction, class Formula, class... I, class... J, class Output,
          class = std::enable_if_t<!Kokkos::is_execution_space<Reduction>::value>>
void genred(const Reduction& reduction, const Formula& formula, const IVars<I...>& i,
            const JVars<J...>& j, const Output& out, const GenredOptions& options = {}) {
  genred(Kokkos::DefaultExecutionSpace{}, reduction, formula, Params<>{}, i, j, out, options);
}

}  // namespace tessera
