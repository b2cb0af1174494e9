// Options of tessera::genred: which index is reduced, how sums are accumulated, which scheme.
#pragma once

namespace tessera {

/// The index a reduction runs over.
enum class Axis {
  j,  ///< a_i = Reduction_j F(p, x_i, y_j): one output row per i (M rows). The default.
  i   ///< a_j = Reduction_i F(p, x_i, y_j): one output row per j (N rows), the transposed form.
};

/// How running sums are accumulated (Sum, LogSumExp, LogSumExpWeighted, SumSoftMaxWeight).
enum class Summation {
  direct,     ///< one running sum: fastest, error grows like N * eps
  block_sum,  ///< a running sum per staged tile, folded into the total after each tile (default):
              ///< error grows like (N / tile + tile) * eps at almost no cost
  kahan       ///< compensated (Kahan) summation: error independent of N, ~4x the adds
};

/// How the (i, j) plane is spread over teams.
enum class Scheme {
  automatic,  ///< chosen from the sizes and the execution space's concurrency (default)
  tiled_1d,   ///< a team per tile of output rows, looping over all reduced rows (KeOps GpuConv1D)
  tiled_2d    ///< (row tile, reduced-range chunk) pairs spread over teams, partial results
              ///< combined by a second kernel; for few output rows and many reduced rows
};

/// Which kernel runs a call.
enum class Implementation {
  automatic,  ///< the hand-written CUDA kernel when the execution space is Kokkos::Cuda (and
              ///< Tessera was compiled with CUDA), the host kernel on host execution spaces,
              ///< where they take the call; the portable TeamPolicy kernel otherwise
  portable,   ///< always the portable TeamPolicy kernel (the reference on every backend)
  cuda,       ///< the CUDA kernel; std::invalid_argument where it is not available
  host        ///< the host kernel (vectorised, for CPUs); std::invalid_argument where it is not
              ///< available (device execution spaces, Scheme::tiled_2d, run-time dimensions)
};

/// How the GPU's matrix units evaluate the dot products of a tensor-core call (float inputs;
/// half-precision inputs always take one product in their own precision).
enum class MatrixPrecision {
  split,  ///< each float scaled by a power of two per row and split into two FP16 parts, three
          ///< products (lo.hi + hi.lo + hi.hi) accumulated in float: the dot product to a few
          ///< 2^-22 of sum_k |x_k y_k| (the default)
  fast    ///< one FP16 product of the row-scaled values: 11 significant bits (TF32's precision
          ///< at FP16's rate), about 3 times the split's speed at large dimensions
};

/// Options of tessera::genred; every field has a working default.
struct GenredOptions {
  Axis axis                     = Axis::j;                    ///< The index reduced over.
  Summation summation           = Summation::block_sum;       ///< How sums are accumulated.
  Scheme scheme                 = Scheme::automatic;          ///< How pairs map to teams.
  Implementation implementation = Implementation::automatic;  ///< Which kernel runs the call.
  /// The dot products of the tensor-core path (Distance::matrix sums, nearest-neighbour
  /// selections on CUDA); ignored by the other kernels.
  MatrixPrecision matrix_precision = MatrixPrecision::split;
  /// Threads per team (= output rows per team tile) of the portable kernel; 0 picks the default
  /// of core/impl/tiling.hpp. The CUDA kernel sizes its blocks from the device instead.
  int team_size = 0;
  /// Reduced rows staged in scratch memory at a time; 0 picks the default of core/impl/tiling.hpp
  /// (portable kernel) or of the CUDA kernel.
  int tile_j = 0;
  /// Chunks the reduced range is cut into by the 2D scheme; 0 derives it from the concurrency.
  int chunks_2d = 0;
};

}  // namespace tessera
