// Whether the MPI library takes device (CUDA) memory in its calls.
#pragma once

namespace tessera {
namespace mpi {

/// True when the MPI library Tessera was built against reports that it takes CUDA device
/// pointers: Open MPI's MPIX_Query_cuda_support() where its CUDA extension is compiled in;
/// false for other MPI libraries (pass GpuAwareMpi::yes where one is known to be GPU-aware,
/// e.g. Cray MPICH with MPICH_GPU_SUPPORT_ENABLED=1). Callable before or after MPI_Init.
bool gpu_aware_mpi();

}  // namespace mpi
}  // namespace tessera
