// tessera::genred: generic tiled map-reduce,  a_i = Reduction_j F(p, x_i, y_j),
// never storing the M-by-N array of F values.
//
//   auto k = tessera::GaussianKernel<3, 1>(sigma);   // F = exp(-|x - y|^2 / 2 sigma^2) b_j
//   tessera::genred(space, tessera::Sum{}, k, tessera::i_vars(x), tessera::j_vars(y, b), out);
//
// Pre-conditions (checked on the host before anything runs; violations throw
// std::invalid_argument, or std::length_error for extents beyond 2^31 - 1):
//  - every variable and the values output hold float, double, Kokkos::Experimental::half_t or
//    (Kokkos 4) Kokkos::Experimental::bhalf_t, mixed freely: the call computes in double if any
//    of them is double, else in float (half-precision values are widened as they load, and
//    values outputs are rounded to their type at the end);
//  - every variable is a View (rows, dim) or (batch, rows, dim), all of rank 2 or all of rank 3
//    with one batch extent; i-variables have M rows, j-variables N rows, parameters 1 row; dims
//    equal the formula's static dims (dynamic_extent dims: any >= 1, subject to the formula's
//    own check_dims, e.g. equal point dimensions for the built-ins);
//  - the output is a View (rows, cols) / (batch, rows, cols) with rows = M (Axis::j) or N
//    (Axis::i) and cols given in reductions.hpp; reductions writing values and indices take
//    tessera::outputs(values, indices); index Views have a signed integer value type that holds
//    every reduced index (std::length_error otherwise); no output shares memory with a variable
//    or with the other output;
//  - KMin-type reductions: 1 <= k <= the reduced extent; weighted ones: formula dim >= 2;
//  - M is taken from the i-variables (from the output if there are none and Axis::j), N from
//    the j-variables (from the output if there are none and Axis::i);
//  - options: every field in its documented range (options.hpp), the error naming the field;
//  - all Views are accessible from ExecSpace (checked at compile time).
// Complexity: B * M * N formula evaluations. Memory: the outputs only for the 1D scheme on
// devices; the host kernel adds a staged copy of the reduced rows (B * reduced rows, padded to
// its tile, times the staged row width); the 2D scheme adds a buffer of B * rows * chunks
// accumulators (chunks <= 2 * concurrency / rows).
// Asynchronous: no fence, except that the 2D scheme frees its partial buffer on return.
//
// Block-sparse reductions: pass a tessera::BlockSparseRanges (cluster/block_sparse_ranges.hpp)
// after the output to restrict the reduction to the tiles it keeps; see the overloads below.
//
// Layering: this header holds the API and its contract; impl/validate_call.hpp checks a call's
// arguments on the host and hands it to impl/dispatch.hpp, which chooses the kernel (a backend's
// hand-written kernels, GenredBackend<ExecSpace>, or the portable TeamPolicy kernel of
// impl/portable_launch.hpp).
#pragma once

#include <tessera/genred/formula.hpp>
#include <tessera/genred/impl/validate_call.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/genred/reductions.hpp>
#include <tessera/genred/variables.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {

/// A validated block-sparsity pattern, defined in cluster/block_sparse_ranges.hpp, which a
/// caller includes to build one. Declared here only: the definition brings the kernels that build
/// patterns, and with them Kokkos_Sort.hpp (core/impl/block_sparse_axis.hpp says why genred
/// avoids it); genred reads a pattern through its by_rows() and by_columns() directions.
template <class MemorySpace>
class BlockSparseRanges;

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

/// A call without tessera::i_vars(...) and tessera::j_vars(...) (the Views passed bare): fails to
/// compile with one message that says what to write, instead of every overload's mismatch.
template <class... Args, class = std::enable_if_t<!Impl::has_variable_packs<Args...>>>
void genred(const Args&...) {
  static_assert(Impl::has_variable_packs<Args...>,
                "tessera::genred: wrap the i-indexed Views in tessera::i_vars(...) and the "
                "j-indexed ones in tessera::j_vars(...): tessera::genred([space,] reduction, "
                "formula, [tessera::params(p, ...),] tessera::i_vars(x, ...), "
                "tessera::j_vars(y, ...), out[, ranges][, options]); i_vars() and j_vars() may "
                "be empty");
}

}  // namespace tessera
