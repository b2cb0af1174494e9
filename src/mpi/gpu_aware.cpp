// tessera::mpi::gpu_aware_mpi (mpi/gpu_aware.hpp).
#include <tessera/mpi/gpu_aware.hpp>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

namespace tessera {
namespace mpi {

bool gpu_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace mpi
}  // namespace tessera
