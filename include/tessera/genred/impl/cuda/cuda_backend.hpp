// GenredBackend<Kokkos::Cuda>: Tessera's hand-written CUDA kernels for Genred, chosen by the
// dispatch layer (dispatch.hpp) for calls on Kokkos::Cuda unless options.implementation is
// portable: the tensor-core kernels for the Sums of radial kernels with Distance::matrix
// (matrix_radial_cuda.hpp for dense calls at 8 < D <= 32, matrix_sum_cuda.hpp beyond, for
// half-precision points and for block-sparse calls, matrix_wide_sum_cuda.hpp for weights of
// width 16 and more at any D) and for nearest-neighbour selections (matrix_select_cuda.hpp),
// dense or block-sparse, else the SIMT kernel (tiled_reduce_cuda.hpp); reductions over i of
// symmetric formulas (distances, products, radial kernels without weights) take the
// tensor-core kernels through the exchanged call (exchange_variables.hpp). Calls whose Views do not
// all hold the compute type run on the tensor-core kernels, which convert as they prepare their
// operands, or else are declined (the portable kernel converts as it loads and stores).
//
// Compiled only when Tessera was configured with its CUDA kernels (TESSERA_ENABLE_CUDA_KERNELS,
// core/config.hpp): a Kokkos 4 with CUDA, every translation unit compiled as CUDA.
#pragma once

#include <tessera/genred/impl/cuda/matrix_radial_cuda.hpp>
#include <tessera/genred/impl/cuda/matrix_select_cuda.hpp>
#include <tessera/genred/impl/cuda/matrix_sum_cuda.hpp>
#include <tessera/genred/impl/cuda/matrix_wide_sum_cuda.hpp>
#include <tessera/genred/impl/cuda/tiled_reduce_cuda.hpp>
#include <tessera/genred/impl/dispatch.hpp>
#include <tessera/genred/impl/exchange_variables.hpp>

namespace tessera {
namespace Impl {

template <>
struct GenredBackend<Kokkos::Cuda> {
  static constexpr Implementation implementation = Implementation::cuda;

  /// Runs the call on a tensor-core kernel and returns true, or returns false, having run
  /// nothing, where none takes it.
  template <bool OuterIsI, class Call, class Red>
  static bool launch_tensor_cores(const Kokkos::Cuda& space, const Call& call, const Red& red) {
    using T                = typename Call::scalar_type;
    using Formula          = typename Call::formula_type;
    constexpr bool uniform = Call::stores_compute_type;
    if constexpr (matrix_wide_sum_call<T, Formula, Red, OuterIsI, Call::sparse>) {
      if (launch_matrix_wide_sum(space, call, red)) return true;
    }
    if constexpr (uniform && matrix_radial_call<T, Formula, Red, OuterIsI, Call::sparse>) {
      if (launch_matrix_radial(space, call, red)) return true;
    }
    if constexpr (matrix_sum_call<T, Formula, Red, OuterIsI, Call::sparse, uniform>) {
      if (launch_matrix_sum(space, call, red)) return true;
    }
    if constexpr (matrix_select_call<T, Formula, Red, OuterIsI, Call::sparse>) {
      if (launch_matrix_select(space, call, red)) return true;
    }
    return false;
  }

  /// Runs the call on space's stream and returns true, or returns false, having run nothing,
  /// when its run-time sizes do not fit the CUDA kernels' shared memory, or when a View holds
  /// another type than the compute type and no tensor-core kernel takes the call. A reduction
  /// over i of a symmetric formula (dense or block-sparse) runs as the reduction over j of the
  /// exchanged call (exchange_variables.hpp) where a tensor-core kernel takes that.
  template <bool OuterIsI, class Call, class Red>
  static bool launch(const Kokkos::Cuda& space, const Call& call, const Red& red) {
    if constexpr (!OuterIsI && symmetric_formula<typename Call::formula_type>) {
      if (launch_tensor_cores<true>(space, exchange_variables(call), red)) return true;
    }
    if (launch_tensor_cores<OuterIsI>(space, call, red)) return true;
    if constexpr (Call::stores_compute_type) {
      return launch_tiled_reduce_cuda<OuterIsI>(space, call, red);
    } else {
      return false;
    }
  }
};

}  // namespace Impl
}  // namespace tessera
