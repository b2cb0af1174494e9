// The distributed pairwise call's machinery (mpi/pairwise.hpp): the output target through which
// the single-rank call (pairwise.hpp) hands its checked arguments and resolved limits to the
// ranks' collective check, plan and pipelines (DistributedNpyTarget), and the wrapper that makes
// a rank whose arguments fail the single-rank checks join that collective check with its error
// (collective_pairwise).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/mpi_npy_writer.hpp>
#include <tessera/pairwise/pairwise.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// Facts every rank of a distributed pairwise call agrees on, and values of its own.
constexpr std::size_t pairwise_facts = 4;
constexpr std::size_t pairwise_own   = 2;  // budget bytes, block-side floor

/// The output target of a distributed pairwise call (pairwise/impl/pairwise_dispatch.hpp's
/// is_pairwise_target): the single-rank call checks its arguments and resolves its limits (its
/// budget and block-side floor, pairwise/impl/block_plan.hpp), then hands the engine's work to
/// run(), which plans the blocks within the smallest limits of all ranks.
struct DistributedNpyTarget {
  static constexpr bool pairwise_target = true;
  MPI_Comm comm;
  const char* caller;  ///< "mpi::pdist", ...
  std::string path;
  bool* reached;  ///< set by run(): this rank's arguments passed the single-rank checks

  template <class ExecSpace, class BlockOp>
  PairwiseReport run(const char*, const ExecSpace& space, BlockOp& op, BlockTriangleMode mode,
                     MatrixLayout layout, TriangleSkipMode skip,
                     const std::vector<std::size_t>& shape,
                     const tessera::Impl::BlockLimits& limits,
                     const PairwiseOptions& options) const {
    using T  = typename BlockOp::value_type;
    *reached = true;
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    LocalVerdict verdict;
    if (path.empty()) {
      verdict = {LocalVerdict::invalid_argument,
                 tessera::Impl::concat("tessera::", caller, ": out path is empty")};
    }
    const std::vector<Fact> facts = {
        {"the functions on the rows side", static_cast<std::int64_t>(op.rows())},
        {"the functions on the columns side", static_cast<std::int64_t>(op.cols())},
        {"the layout", static_cast<std::int64_t>(layout)},
        {"the value type (bytes)", static_cast<std::int64_t>(sizeof(T))}};
    const std::vector<std::int64_t> own = agree(comm, caller, verdict, facts,
                                                {static_cast<std::int64_t>(limits.budget_bytes),
                                                 static_cast<std::int64_t>(limits.min_block_side)});
    // One grid on every rank: the smallest budget and block-side floor of all.
    tessera::Impl::BlockLimits agreed = limits;
    for (int r = 0; r < size; ++r) {
      agreed.budget_bytes = std::min(agreed.budget_bytes, static_cast<std::size_t>(own[2 * r]));
      agreed.min_block_side =
          std::min(agreed.min_block_side, static_cast<std::size_t>(own[2 * r + 1]));
    }
    // Deterministic: the same plan, or the same exception, on every rank.
    const tessera::Impl::BlockPlan plan =
        tessera::Impl::plan_blocks(op, mode, agreed, options, caller);
    const BlockScheduler mine =
        plan.scheduler.share(static_cast<std::size_t>(rank), static_cast<std::size_t>(size));
    MpiNpyWriter<T> writer(comm, caller, path, shape, layout, op.cols());
    DeferredVerdict blocks;
    PairwiseReport report;
    blocks.run([&] {
      report = tessera::Impl::run_block_pipeline(space, op, writer, mine, plan.data_bytes, skip,
                                                 options);
    });
    const bool closed = writer.close();
    blocks.run([&] {
      if (!closed) {
        throw std::runtime_error(
            tessera::Impl::concat("tessera::", caller, ": cannot close '", path, "'"));
      }
    });
    blocks.agree_all(comm, caller);
    return report;
  }
};

/// Runs call(target), a single-rank pairwise call into the distributed target, so that a rank
/// whose arguments fail the single-rank checks (and so never reaches the target's collective
/// check) joins that check with its error: every rank then throws it.
template <class Call>
PairwiseReport collective_pairwise(MPI_Comm comm, const char* caller, const NpyFile& out,
                                   Call&& call) {
  require_communicator(comm, caller);
  const tessera::Impl::ProfilingRegion region("tessera::", caller);
  bool reached = false;
  const DistributedNpyTarget target{comm, caller, out.path, &reached};
  try {
    return call(target);
  } catch (...) {
    if (reached) throw;  // after the collective check: the same on every rank already
    agree(comm, caller, LocalVerdict::from_current_exception(),
          std::vector<Fact>(pairwise_facts, Fact{"", 0}),
          std::vector<std::int64_t>(pairwise_own, 0));
    throw;  // not reached: agree throws this rank's error
  }
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
