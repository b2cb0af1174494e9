// tessera::mpi::pdist, cdist, l2_kernel and pairwise: the pairwise engine's calls over the ranks
// of an MPI communicator, written into one .npy file (after masspcf's multi-GPU pdist).
//
//   // every rank holds the functions X (replicated); out is one file, seen by every rank
//   tessera::mpi::pdist(comm, space, tessera::PcfL1{}, X, tessera::NpyFile{"d.npy"});
//
// Every rank plans the same blocks (the single-rank planner, with the smallest budget and
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

#include <tessera/mpi/impl/distributed_pairwise.hpp>
#include <tessera/pairwise/pairwise.hpp>

#include <mpi.h>

namespace tessera {
namespace mpi {

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
