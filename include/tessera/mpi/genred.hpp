// tessera::mpi::genred: Genred over points distributed across the ranks of an MPI communicator,
// each rank holding its slice of the i-rows and of the j-rows (as in ArborX's DistributedTree
// and Cabana's communication plans: the caller passes the communicator; no state is kept).
//
//   // rank r holds x_r (its i-points, M_r x 3), y_r and b_r (its j-points and weights, N_r rows)
//   tessera::mpi::genred(comm, space, tessera::Sum{}, tessera::GaussianKernel<3, 1>(sigma),
//                        tessera::i_vars(x_r), tessera::j_vars(y_r, b_r), out_r);  // M_r x 1
//
// The whole i-range is the ranks' i-slices in rank order (rank 0's rows first), and likewise the
// j-range. Each rank gets the rows of its own slice (its i-rows for Axis::j, its j-rows for
// Axis::i) reduced over the whole reduced range: out_r equals rows [start_r, start_r + M_r) of a
// single-rank genred on the gathered rows, with reduced indices (ArgMin, ArgKMin, ...) global,
// ties broken by the smaller global index. Selections and indices are exactly those of the
// single-rank call; sums differ by rounding (the slices' partial sums are added in another
// order), and are bit-identical under Schedule::all_gather.
//
// Pre-conditions: every rank calls with the same communicator, reduction, formula, options and
// parameter values (parameters are replicated, not checked value by value), and with Views that
// satisfy genred.hpp's contract for its own slices; slices may be empty. k (KMin family) is
// within the whole reduced range, and index types hold every global index.
//
// One collective check runs first (mpi/impl/agreement.hpp): each rank checks its own arguments
// as genred.hpp does, then the ranks compare them (variable dimensions, batch extent, formula
// dimension, k, options). Any violation throws the same exception on every rank
// (std::invalid_argument naming the argument, and the rank when one rank's arguments are bad, or
// the two ranks that disagree; std::length_error for extents), before any kernel or exchange.
// A rank that cannot allocate its buffers makes every rank throw the same way. No hang.
//
// Schedules (DistributedOptions::schedule, impl/distributed_genred.hpp): the ring overlaps the
// travel of the next slice with the kernels on the current one; the all-gather gathers every
// reduced row on every rank, chosen automatically when they take at most all_gather_bytes.
// Device memory goes to MPI directly when the MPI is GPU-aware (gpu_aware.hpp), else through
// pinned host buffers.
//
// Cost per rank: M_r x N formula evaluations (N the whole reduced extent), the whole reduced
// range received once (ring: in P - 1 messages, each overlapping a kernel). Memory per rank:
// ring, two slices of the largest rank's reduced rows (twice more when staged) and two
// accumulator rows per output row (reducers.hpp's accumulators, 2 D values for a block-summed
// Sum, 2 k D for the KMin family); all-gather, the whole reduced range (twice when staged).
// Synchronous: returns when the rank's outputs are written (MPI needs the host between the
// steps), after waiting for the work queued on `space`; returns a DistributedReport
// (distributed_report.hpp): the schedule that ran, the bytes received, the waits not hidden.
#pragma once

#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/genred.hpp>
#include <tessera/mpi/block_sparse.hpp>
#include <tessera/mpi/distributed_options.hpp>
#include <tessera/mpi/distributed_report.hpp>
#include <tessera/mpi/gpu_aware.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/block_sparse_genred.hpp>
#include <tessera/mpi/impl/distributed_genred.hpp>
#include <tessera/mpi/impl/genred_check.hpp>
#include <tessera/mpi/impl/staged_exchange.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <type_traits>

namespace tessera {
namespace mpi {

/// Distributed genred: this rank's output rows reduced over every rank's reduced rows; see the
/// file comment for the distribution, the checks and the costs. Collective over `comm`. Returns
/// the rank's account of the call (schedule, bytes received, exposed waits).
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output>
DistributedReport genred(MPI_Comm comm, const ExecSpace& space, const Reduction& reduction,
                         const Formula& formula, const Params<P...>& params, const IVars<I...>& i,
                         const JVars<J...>& j, const Output& out,
                         const DistributedOptions& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  const tessera::Impl::ProfilingRegion region("tessera::mpi::genred");
  DistributedReport report;
  const std::size_t all_gather_bytes = options.all_gather_bytes > 0
                                           ? options.all_gather_bytes
                                           : tessera::Impl::Tuning<ExecSpace>::mpi_all_gather_bytes;
  const auto checked = Impl::checked_distributed(comm, space, reduction, formula, params, i, j, out,
                                                 options, all_gather_bytes, [](const auto&) {});
  const auto& call   = checked.call;
  using T            = typename std::decay_t<decltype(call)>::scalar_type;
  if (checked.size == 1) {  // no exchange; errors found by the launch as on more ranks
    Impl::DeferredVerdict kernels;
    kernels.run([&] { tessera::Impl::dispatch(space, call, reduction); });
    space.fence();
    kernels.agree_all(comm, "mpi::genred");
    report.schedule = Schedule::all_gather;
    report.steps    = 1;
    report.seconds  = Impl::seconds_since(start);
    return report;
  }
  const std::size_t row_bytes =
      call.shape.batch * sizeof(T) *
      (options.genred.axis == Axis::j ? call.jvars.runtime_width : call.ivars.runtime_width);
  Impl::ExchangePlan plan;
  plan.all_gather = options.schedule == Schedule::all_gather ||
                    (options.schedule == Schedule::automatic &&
                     static_cast<std::size_t>(checked.map.total) * row_bytes <= all_gather_bytes);
  plan.staged = Impl::staged_exchange<ExecSpace>(options);
  Impl::run_distributed(comm, space, call, reduction, checked.map, plan, checked.rank, checked.size,
                        report);
  report.seconds = Impl::seconds_since(start);
  return report;
}

/// Distributed block-sparse genred: this rank's sorted output rows (its i-rows for Axis::j, its
/// j-rows for Axis::i) reduced over the pairs that `pattern` (mpi/block_sparse.hpp's
/// block_sparse_from_cutoff) keeps among every rank's sorted reduced rows. Only the clusters the
/// pattern asks for travel (one MPI_Alltoallv of packed rows); then one block-sparse call runs
/// on the assembled rows. i_vars and j_vars are the rank's clouds as the pattern sorted them
/// (and Views permuted alike); reduced indices refer to the whole sorted reduced range (the
/// ranks' sorted rows in rank order). Checks as the dense call, plus: the pattern was built for
/// these slices (its rows on both sides), and not Scheme::tiled_2d. Memory: the rank's rows
/// that others ask for and its assembled rows, packed (twice when staged), and an int copy of
/// the indices for index-writing reductions.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output, class MemorySpace>
DistributedReport genred(MPI_Comm comm, const ExecSpace& space, const Reduction& reduction,
                         const Formula& formula, const Params<P...>& params, const IVars<I...>& i,
                         const JVars<J...>& j, const Output& out,
                         const DistributedBlockSparsity<MemorySpace>& pattern,
                         const DistributedOptions& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  const tessera::Impl::ProfilingRegion region("tessera::mpi::genred");
  DistributedReport report;
  const auto checked = Impl::checked_distributed(
      comm, space, reduction, formula, params, i, j, out, options, std::size_t{0},
      [&](const auto& call) {
        using tessera::Impl::require;
        require(options.genred.scheme != Scheme::tiled_2d, "mpi::genred",
                "block-sparse reductions run the 1D scheme: Scheme::tiled_2d is not available "
                "with a pattern");
        const bool along_j     = options.genred.axis == Axis::j;
        const auto& reduced    = pattern.along(options.genred.axis);
        const char* name       = along_j ? "pattern.over_j" : "pattern.over_i";
        const std::size_t own  = along_j ? call.shape.m : call.shape.n;
        const std::size_t mine = along_j ? call.shape.n : call.shape.m;
        const int pattern_own  = along_j ? reduced.ranges.m() : reduced.ranges.n();
        require(static_cast<std::size_t>(pattern_own) == own, "mpi::genred", name, ".ranges ",
                along_j ? "M" : "N", " (got ", pattern_own, ", expected ", own, ", the rank's ",
                along_j ? "i" : "j", " rows)");
        require(static_cast<std::size_t>(reduced.local_rows) == mine, "mpi::genred", name,
                ".local_rows (got ", reduced.local_rows, ", expected ", mine, ", the rank's ",
                along_j ? "j" : "i", " rows)");
      });
  report.staged = Impl::staged_exchange<ExecSpace>(options);
  Impl::run_block_sparse(comm, space, checked.call, reduction, pattern, report);
  report.seconds = Impl::seconds_since(start);
  return report;
}

/// Distributed block-sparse genred without parameter variables.
template <class ExecSpace, class Reduction, class Formula, class... I, class... J, class Output,
          class MemorySpace, class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
DistributedReport genred(MPI_Comm comm, const ExecSpace& space, const Reduction& reduction,
                         const Formula& formula, const IVars<I...>& i, const JVars<J...>& j,
                         const Output& out, const DistributedBlockSparsity<MemorySpace>& pattern,
                         const DistributedOptions& options = {}) {
  return genred(comm, space, reduction, formula, Params<>{}, i, j, out, pattern, options);
}

/// Distributed genred without parameter variables.
template <class ExecSpace, class Reduction, class Formula, class... I, class... J, class Output,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
DistributedReport genred(MPI_Comm comm, const ExecSpace& space, const Reduction& reduction,
                         const Formula& formula, const IVars<I...>& i, const JVars<J...>& j,
                         const Output& out, const DistributedOptions& options = {}) {
  return genred(comm, space, reduction, formula, Params<>{}, i, j, out, options);
}

}  // namespace mpi
}  // namespace tessera
