// DistanceRule<Kokkos::Cuda> (impl/distance_rule.hpp): Distance::automatic with Tessera's CUDA
// kernels takes Distance::matrix for the calls that a tensor-core kernel takes with it (the
// traits of matrix_wide_sum_cuda.hpp, matrix_radial_cuda.hpp and matrix_sum_cuda.hpp, in the
// order of GenredBackend<Kokkos::Cuda>::launch; over i, of the exchanged call for kernels
// without weights) at D >= CudaTuning::
// genred_automatic_matrix_min_dim, and Distance::direct for every other call (the SIMT kernel's
// direct distance, exact to rounding).
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/cuda/matrix_radial_cuda.hpp>
#include <tessera/genred/impl/cuda/matrix_sum_cuda.hpp>
#include <tessera/genred/impl/cuda/matrix_wide_sum_cuda.hpp>
#include <tessera/genred/impl/distance_rule.hpp>
#include <tessera/genred/impl/exchange_variables.hpp>

namespace tessera {
namespace Impl {

template <>
struct DistanceRule<Kokkos::Cuda> {
  /// matrix where a tensor-core kernel takes the call as Distance::matrix and D >=
  /// CudaTuning::genred_automatic_matrix_min_dim, else direct (see the file comment).
  /// Whether a tensor-core kernel takes the call of M over j (OuterIsI) or i.
  template <class T, class M, class Red, bool OuterIsI, bool Sparse, bool Uniform>
  static constexpr bool tensor_cores() {
    return matrix_wide_sum_call<T, M, Red, OuterIsI, Sparse> ||
           (Uniform && matrix_radial_call<T, M, Red, OuterIsI, Sparse>) ||
           matrix_sum_call<T, M, Red, OuterIsI, Sparse, Uniform>;
  }

  /// matrix where a tensor-core kernel takes the call as Distance::matrix (a reduction over i
  /// of a kernel without weights: the exchanged call over j) and D >=
  /// CudaTuning::genred_automatic_matrix_min_dim, else direct (see the file comment).
  template <class T, class Formula, class Red, bool OuterIsI, bool Sparse, bool Uniform>
  static constexpr Distance resolve() {
    using M = RadialKernel<typename Formula::profile_type, Formula::dim, Formula::weight_dim,
                           Distance::matrix>;
    constexpr bool exchanged =
        !OuterIsI && symmetric_formula<M> && tensor_cores<T, M, Red, true, Sparse, Uniform>();
    return (tensor_cores<T, M, Red, OuterIsI, Sparse, Uniform>() || exchanged) &&
                   Formula::dim >= CudaTuning::genred_automatic_matrix_min_dim
               ? Distance::matrix
               : Distance::direct;
  }
};

}  // namespace Impl
}  // namespace tessera
