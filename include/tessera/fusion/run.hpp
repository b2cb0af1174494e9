// Running a fused sequence: bind its symbols to Views, choose a plan, launch its kernels.
//
//   constexpr fusion::Vec<0> w;  constexpr fusion::Vec<1> v;  constexpr fusion::Vec<2> u;
//   constexpr fusion::Vec<3> z;  constexpr fusion::Scalar<4> r;
//   auto seq = fusion::sequence(fusion::assign(z, w - alpha * v),   // map:    z_i = w_i - a v_i
//                               fusion::assign(r, dot(z, u)));       // reduce: r = sum z_i u_i
//   fusion::run(space, seq, fusion::bind(w_view, v_view, u_view, z_view, r_view));
//
// The plan (plan.hpp) is the one the model prefers, the unfused one, one given by its cuts, or
// the tuner's pick. Vector sequences run in impl/vector_kernel.hpp's kernels, matrix sequences
// in impl/matrix_kernel.hpp's (teams sweeping whole lines), impl/matrix_tile_kernel.hpp's
// (tiles) or impl/matrix_held_kernel.hpp's (lines held in registers), as impl/matrix_launch.hpp
// chooses, their sums finished by impl/matrix_sums_kernel.hpp's.
#pragma once

#include <tessera/fusion/bindings.hpp>
#include <tessera/fusion/impl/check_bindings.hpp>
#include <tessera/fusion/impl/run_named.hpp>
#include <tessera/fusion/impl/sequence_run.hpp>
#include <tessera/fusion/impl/tuner_candidates.hpp>
#include <tessera/fusion/options.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/report.hpp>
#include <tessera/fusion/step.hpp>
#include <tessera/fusion/tuner.hpp>
#include <tessera/core/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <tuple>
#include <type_traits>
#include <vector>

namespace tessera {
namespace fusion {

/// Runs `seq` on the bound Views: every step in order over the elements of its vectors (a
/// vector sequence) or of its matrices (a matrix sequence), in the kernels of the chosen plan.
/// Vectors: contiguous rank-1 Views, of one length n in a vector sequence, of the matrices'
/// rows (read by_row, or written by a row_sum step) or columns (by_col, col_sum) in a matrix
/// sequence; matrices: contiguous rank-2 Views of one shape, all LayoutRight or all LayoutLeft;
/// scalars: rank-0 Views; one value type; all in memory `space` can access. Throws
/// std::invalid_argument (before any kernel) for mismatched extents, non-contiguous Views,
/// written symbols overlapping others, invalid cuts or options. Asynchronous (nothing waits on
/// the host) unless a tuner times candidates, or a matrix group has partial sums and
/// options.workspace is not set or too small (their buffer, teams x columns values, is then
/// allocated, and freed before the call returns, which waits for the device). O(elements x
/// steps) work.
template <class ExecSpace, class... S, class... Views>
FusionReport run(const ExecSpace& space, const Sequence<S...>& seq, const Bindings<Views...>& bound,
                 const FusionOptions& options = {}) {
  return Impl::run_named("fusion::run", nullptr, space, seq, bound, options);
}

/// The implementations a Tuner times for `seq` over the bound Views on `space` (and so may
/// pick): every valid plan with every launch shape of Tuning<ExecSpace>'s lists that the plan's
/// kernels run with. Checks the bindings as run() does.
template <class ExecSpace, class... S, class... Views>
std::vector<Candidate> tuner_candidates(const ExecSpace& space, const Sequence<S...>& seq,
                                        const Bindings<Views...>& bound) {
  using Seq = Sequence<S...>;
  using T = std::remove_const_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  const auto ext = Impl::check_bindings<ExecSpace, Seq>("fusion::tuner_candidates", nullptr, bound);
  return Impl::candidates<ExecSpace, Seq>(Impl::make_run<T>(space, seq, bound, ext));
}

/// run() on the default execution space.
template <class... S, class... Views>
FusionReport run(const Sequence<S...>& seq, const Bindings<Views...>& bound,
                 const FusionOptions& options = {}) {
  return run(Kokkos::DefaultExecutionSpace{}, seq, bound, options);
}

}  // namespace fusion
}  // namespace tessera
