// What a distributed call did on the calling rank (returned by tessera::mpi::genred): the
// schedule that ran, the bytes it received, and how long it waited for messages that its kernels
// did not hide.
#pragma once

#include <tessera/mpi/distributed_options.hpp>

#include <cstddef>

namespace tessera {
namespace mpi {

/// The calling rank's account of one distributed call.
struct DistributedReport {
  Schedule schedule          = Schedule::automatic;  ///< The schedule that ran: ring or all_gather.
  bool staged                = false;  ///< Device memory went to MPI through pinned host buffers.
  int steps                  = 0;      ///< Kernel steps: P on the ring, 1 for the all-gather.
  std::size_t bytes_received = 0;      ///< Bytes of reduced rows received from the other ranks.
  double seconds             = 0;      ///< Wall time of the call on this rank, checks included.
  /// Time the rank waited for messages with no kernel of its own running: all-gather, the whole
  /// gather; ring, each step's wait for its messages when the step's kernels had already
  /// finished (the whole wait is counted, so an upper bound). On host execution spaces, whose
  /// kernels run in the calling thread, every wait is exposed.
  double exposed_exchange_seconds = 0;
};

}  // namespace mpi
}  // namespace tessera
