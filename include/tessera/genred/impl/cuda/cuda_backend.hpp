// GenredBackend<Kokkos::Cuda>: Tessera's hand-written CUDA kernels for Genred, chosen by the
// dispatch layer (dispatch.hpp) for calls on Kokkos::Cuda unless options.implementation is
// portable: the tensor-core kernel for the Sums of radial kernels it covers
// (matrix_radial_cuda.hpp), else the SIMT kernel (tiled_reduce_cuda.hpp).
//
// Compiled only when Tessera was configured with its CUDA kernels (TESSERA_ENABLE_CUDA_KERNELS,
// core/config.hpp): a Kokkos 4 with CUDA, every translation unit compiled as CUDA.
#pragma once

#include <tessera/genred/impl/cuda/matrix_radial_cuda.hpp>
#include <tessera/genred/impl/cuda/matrix_sum_cuda.hpp>
#include <tessera/genred/impl/cuda/tiled_reduce_cuda.hpp>
#include <tessera/genred/impl/dispatch.hpp>

namespace tessera {
namespace Impl {

template <>
struct GenredBackend<Kokkos::Cuda> {
  static constexpr Implementation implementation = Implementation::cuda;

  /// Runs the call on space's stream and returns true, or returns false, having run nothing,
  /// when its run-time sizes do not fit the CUDA kernels' shared memory, or when a View holds
  /// another type than the compute type (half-precision or mixed calls: the portable kernel
  /// converts as it loads and stores).
  template <bool OuterIsI, class Call, class Red>
  static bool launch(const Kokkos::Cuda& space, const Call& call, const Red& red) {
    using T = typename Call::scalar_type;
    if constexpr (!Call::stores_compute_type) {
      return false;
    } else {
      if constexpr (matrix_radial_call<T, typename Call::formula_type, Red, OuterIsI,
                                       Call::sparse>) {
        if (launch_matrix_radial(space, call, red)) return true;
      }
      if constexpr (matrix_sum_call<T, typename Call::formula_type, Red, OuterIsI, Call::sparse>) {
        if (launch_matrix_sum(space, call, red)) return true;
      }
      return launch_tiled_reduce_cuda<OuterIsI>(space, call, red);
    }
  }
};

}  // namespace Impl
}  // namespace tessera
