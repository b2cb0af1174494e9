// Options of the distributed calls (tessera::mpi::genred): the single-rank options each rank's
// kernels run with, the schedule that moves the reduced rows between the ranks, and how device
// memory meets MPI.
#pragma once

#include <tessera/genred/options.hpp>

#include <cstddef>

namespace tessera {
namespace mpi {

/// How the reduced rows (the j-rows for Axis::j, the i-rows for Axis::i) reach every rank.
enum class Schedule {
  automatic,  ///< all_gather when every rank's reduced rows together take at most
              ///< DistributedOptions::all_gather_bytes, ring otherwise (the default)
  ring,       ///< P steps: each rank reduces its rows against the slice it holds while the next
              ///< slice travels to it from its neighbour; memory: two slices per rank
  all_gather  ///< every rank gathers all reduced rows and runs one call: one collective, no
              ///< overlap; memory: all reduced rows on every rank
};

/// Whether MPI may be given device memory.
enum class GpuAwareMpi {
  automatic,  ///< as the MPI library reports (tessera::mpi::gpu_aware_mpi())
  yes,        ///< device buffers go to MPI directly (an MPI built with GPU support)
  no          ///< device buffers are staged through pinned host memory
};

/// Options of tessera::mpi::genred; every field has a working default.
struct DistributedOptions {
  /// The single-rank options (axis, summation, scheme, implementation, team sizes) of every
  /// rank's kernels; options.axis is also the distributed call's axis.
  GenredOptions genred;
  Schedule schedule     = Schedule::automatic;     ///< How the reduced rows travel.
  GpuAwareMpi gpu_aware = GpuAwareMpi::automatic;  ///< Whether MPI takes device memory.
  /// The threshold of Schedule::automatic in bytes of reduced rows (all ranks together); 0 takes
  /// the execution space's tuning default (Tuning::mpi_all_gather_bytes, 4 MiB).
  std::size_t all_gather_bytes = 0;
};

}  // namespace mpi
}  // namespace tessera
