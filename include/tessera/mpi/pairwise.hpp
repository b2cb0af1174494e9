// tessera::mpi::pdist, cdist, l2_kernel and pairwise: the pairwise engine's calls over the ranks
// of an MPI communicator, written into one .npy file (after masspcf's multi-GPU pdist).
//
//   // every rank holds the functions X (replicated); out is one file, seen by every rank
//   tessera::mpi::pdist(comm, space, tessera::PcfL1{}, X, tessera::NpyFile{"d.npy"});
//
// Every rank schedules the same blocks (the single-rank scheduler, with the smallest budget and
// block-side floor of all ranks, so that the grids agree), takes its share of them, dealt by
// descending work so that the ranks' work is balanced (BlockScheduler::share), runs its blocks
// through its own double-buffered pipeline, and writes their rows into the shared .npy file with
// MPI-IO (impl/mpi_npy_writer.hpp). The file is the single-rank call's, byte for byte: the same
// kernels compute the same blocks, whichever rank runs them, and the rows land in the same
// layout (matrix_layout.hpp: pdist's file is scipy's condensed vector, l2_kernel's in
// np.triu_indices order).
//
// Pre-conditions: the single-rank call's (pairwise.hpp), on every rank, with the same functions
// and options; the file's directory reachable from every rank. One collective check before any
// block runs (mpi/impl/agreement.hpp): a rank whose arguments fail the single-rank checks makes
// every rank throw its error (prefixed "tessera::mpi::<call>: rank r of P: "); ranks that
// disagree on the matrix (functions on each side, layout, value type) throw the same
// std::invalid_argument; a file that cannot be created, or a block that fails on one rank (a
// write error), is reported on every rank after the others' blocks. Never a hang.
//
// Returns the calling rank's PairwiseReport (its blocks and times). Synchronous and collective.
#pragma once

#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/mpi_npy_writer.hpp>
#include <tessera/pairwise/pairwise.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// Facts every rank of a distributed pairwise call agrees on, and values of its own.
constexpr std::size_t pairwise_facts = 4;
constexpr std::size_t pairwise_own   = 2;  // budget bytes, block-side floor

/// The output target of a distributed pairwise call (pairwise.hpp's is_pairwise_target): the
/// single-rank call checks its arguments, then hands the engine's work to run().
struct DistributedNpyTarget {
  static constexpr bool pairwise_target = true;
  MPI_Comm comm;
  const char* caller;  ///< "mpi::pdist", ...
  std::string path;
  bool* reached;  ///< set by run(): this rank's arguments passed the single-rank checks

  template <class ExecSpace, class BlockOp>
  PairwiseReport run(const char*, const ExecSpace& space, BlockOp& op, BlockTriangleMode mode,
                     MatrixLayout layout, TriangleSkipMode skip,
                     const std::vector<std::size_t>& shape, std::size_t budget,
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
    const std::size_t floor       = options.min_block_side == PairwiseOptions::automatic
                                        ? tessera::Impl::automatic_min_block_side(space)
                                        : options.min_block_side;
    const std::vector<Fact> facts = {
        {"the functions on the rows side", static_cast<std::int64_t>(op.rows())},
        {"the functions on the columns side", static_cast<std::int64_t>(op.cols())},
        {"the layout", static_cast<std::int64_t>(layout)},
        {"the value type (bytes)", static_cast<std::int64_t>(sizeof(T))}};
    const std::vector<std::int64_t> own =
        agree(comm, caller, verdict, facts,
              {static_cast<std::int64_t>(budget), static_cast<std::int64_t>(floor)});
    // One grid on every rank: the smallest budget and block-side floor of all.
    PairwiseOptions agreed = options;
    agreed.budget_bytes    = budget;
    agreed.min_block_side  = floor;
    for (int r = 0; r < size; ++r) {
      agreed.budget_bytes = std::min(agreed.budget_bytes, static_cast<std::size_t>(own[2 * r]));
      agreed.min_block_side =
          std::min(agreed.min_block_side, static_cast<std::size_t>(own[2 * r + 1]));
    }
    // Deterministic: the same schedule, or the same exception, on every rank.
    const BlockScheduler all =
        tessera::Impl::schedule_blocks(space, op, mode, agreed, agreed.budget_bytes, caller);
    const BlockScheduler mine =
        all.share(static_cast<std::size_t>(rank), static_cast<std::size_t>(size));
    MpiNpyWriter<T> writer(comm, caller, path, shape, layout, op.cols());
    DeferredVerdict blocks;
    PairwiseReport report;
    blocks.run([&] {
      report = tessera::Impl::run_block_pipeline(
          space, op, writer, mine, tessera::Impl::pairwise_data_share(agreed.budget_bytes), skip,
          agreed);
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

/// Distributed pdist (pairwise.hpp's pdist: PCFs with a metric, or point vectors with a Genred
/// formula), written into one .npy file by every rank of comm; see the file comment.
template <class ExecSpace, class Metric, class Functions>
PairwiseReport pdist(MPI_Comm comm, const ExecSpace& space, const Metric& metric,
                     const Functions& X, const NpyFile& out, const PairwiseOptions& options = {}) {
  return Impl::collective_pairwise(comm, "mpi::pdist", out, [&](const auto& target) {
    return tessera::pdist(space, metric, X, target, options);
  });
}

/// Distributed cdist (pairwise.hpp's cdist) into one .npy file; see the file comment.
template <class ExecSpace, class Metric, class FunctionsX, class FunctionsY>
PairwiseReport cdist(MPI_Comm comm, const ExecSpace& space, const Metric& metric,
                     const FunctionsX& X, const FunctionsY& Y, const NpyFile& out,
                     const PairwiseOptions& options = {}) {
  return Impl::collective_pairwise(comm, "mpi::cdist", out, [&](const auto& target) {
    return tessera::cdist(space, metric, X, Y, target, options);
  });
}

/// Distributed l2_kernel (pairwise.hpp's) into one .npy file; see the file comment.
template <class ExecSpace, class T, class MS>
PairwiseReport l2_kernel(MPI_Comm comm, const ExecSpace& space, const PcfCollection<T, MS>& X,
                         const NpyFile& out, const PairwiseOptions& options = {}) {
  return Impl::collective_pairwise(comm, "mpi::l2_kernel", out, [&](const auto& target) {
    return tessera::l2_kernel(space, X, target, options);
  });
}

/// Distributed pairwise over any BlockOp (pairwise.hpp's) into one .npy file.
template <class ExecSpace, class BlockOp>
PairwiseReport pairwise(MPI_Comm comm, const ExecSpace& space, BlockOp& op, MatrixLayout layout,
                        const NpyFile& out, const PairwiseOptions& options = {}) {
  return Impl::collective_pairwise(comm, "mpi::pairwise", out, [&](const auto& target) {
    return tessera::pairwise(space, op, layout, target, options);
  });
}

}  // namespace mpi
}  // namespace tessera
