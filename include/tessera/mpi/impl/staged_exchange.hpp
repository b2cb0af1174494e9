// Whether a distributed genred (mpi/genred.hpp) hands device memory to MPI through pinned host
// buffers: when the host cannot read the execution space's memory and MPI is not GPU-aware
// (DistributedOptions::gpu_aware, gpu_aware_mpi()).
#pragma once

#include <tessera/mpi/distributed_options.hpp>
#include <tessera/mpi/gpu_aware.hpp>

#include <Kokkos_Core.hpp>

namespace tessera {
namespace mpi {
namespace Impl {

/// Whether device memory goes to MPI through pinned host buffers.
template <class ExecSpace>
bool staged_exchange(const DistributedOptions& options) {
  using Memory              = typename ExecSpace::memory_space;
  constexpr bool host_reads = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible;
  const bool gpu_aware      = options.gpu_aware == GpuAwareMpi::yes ||
                         (options.gpu_aware == GpuAwareMpi::automatic && gpu_aware_mpi());
  return !host_reads && !gpu_aware;
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
