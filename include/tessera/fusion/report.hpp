// What fusion::run (run.hpp) did: the plan and launch shape it ran, the kernels it launched and
// the bytes the model counts for them.
#pragma once

#include <cstdint>

namespace tessera {
namespace fusion {

/// What run() did.
struct FusionReport {
  std::uint32_t cuts = 0;  ///< the plan (bit s: a kernel boundary after step s)
  int kernels        = 0;  ///< kernels launched
  double model_bytes = 0;  ///< the bytes the model counts for the plan, launches included
  /// Threads per team of the launch shape run (the default one: matrix tile groups then take
  /// the backend's tiles for their kind, Tuning::fusion_tile_shape and
  /// fusion_tile_shape_owned_sums, and vector groups with a reduction
  /// Tuning::fusion_vector_reduction_shape).
  int team_size = 0;
  /// Elements per thread (vector sequences) or matrix lines per team (matrix sequences) of the
  /// launch shape run.
  int per_thread = 0;
};

}  // namespace fusion
}  // namespace tessera
