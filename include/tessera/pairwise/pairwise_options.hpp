// Options of a pairwise call (pdist, cdist, l2_kernel, pairwise) and the report it returns.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>

namespace tessera {

/// The arithmetic of a PCF integral.
enum class Accumulation {
  input,   ///< in the functions' own type (float in, float sums)
  double_  ///< in double whatever the input (float in: double sums, float out)
};

/// Where a call stands, as the progress callback sees it after each block is written.
struct PairwiseProgress {
  std::size_t blocks_done   = 0;  ///< blocks written so far
  std::size_t blocks_total  = 0;  ///< blocks of the whole call
  std::size_t bytes_written = 0;  ///< output bytes in place so far
  std::size_t bytes_total   = 0;  ///< output bytes of the whole call
};

/// Options of a pairwise call; the defaults suit one GPU.
struct PairwiseOptions {
  /// Marks min_block_side as chosen by the engine.
  static constexpr std::size_t automatic = std::numeric_limits<std::size_t>::max();

  /// Bytes of execution-space memory the call may take for its two block buffers (half of it,
  /// TuningBase::pairwise_output_share) and its streamed function data (the rest). 0: 80% of
  /// the free device memory where the backend tells it (CUDA), else 1 GiB. The output itself
  /// is not counted: it may be larger than this, and larger than device memory.
  std::size_t budget_bytes = 0;
  /// About how many blocks the whole output is split into; 0: 32, enough for the pipeline to
  /// hide downloads behind kernels. Blocks never exceed the budget (unless min_block_side asks
  /// for larger ones): an output larger than the budget gets more (the scheduler's n_splits_hint is
  /// this hint times the share of the output that one block buffer holds, at least 1).
  std::size_t n_splits_hint = 0;
  /// Floor on the block side; automatic: floor(sqrt(concurrency / 2)) on GPUs (each kernel
  /// keeps half the device's threads busy), none on host backends; 0: no floor.
  std::size_t min_block_side = automatic;
  /// PCFs: where integrals end (pcf_collection.hpp); +infinity needs functions ending at 0.
  double end_time = std::numeric_limits<double>::infinity();
  /// PCFs: the arithmetic of the integrals.
  Accumulation accumulation = Accumulation::input;
  /// Debug check (the seed's): clear each block buffer before its kernel and throw
  /// std::logic_error if a pair the layout skips holds a non-zero value after it. Costs a
  /// clear and a reduction per block, and stores diagonal blocks whole (not packed).
  bool check_skipped_zero = false;
  /// Called on the host after each block is written (from the calling thread). With an output
  /// in the execution space's memory, setting it makes the call wait for each block's copy.
  std::function<void(const PairwiseProgress&)> progress;
};

/// What a pairwise call did and where its time went. Kernel, upload and download times are
/// measured on the device (CUDA events) or around synchronous host kernels; timings_measured
/// is false on device backends without timers (their sums then read 0).
struct PairwiseReport {
  std::size_t blocks        = 0;  ///< blocks the matrix was cut into
  std::size_t block_side    = 0;  ///< the scheduler's block side (BlockScheduler::block_side())
  std::size_t pairs         = 0;  ///< pairs written (the layout's kept pairs)
  std::size_t bytes_written = 0;  ///< output bytes written: pairs * sizeof(scalar)
  double seconds            = 0;  ///< the whole call, wall clock
  double upload_seconds     = 0;  ///< function data to the device (sum over blocks)
  double kernel_seconds     = 0;  ///< block kernels (sum over blocks)
  double download_seconds   = 0;  ///< block buffers to pinned host memory (sum over blocks)
  double write_seconds      = 0;  ///< host-side scatter or file writes (sum over blocks)
  /// Whether the upload, kernel and download times were measured (see above).
  bool timings_measured = false;
  /// (upload + kernel + download + write) / seconds: how much of the work overlapped (1: none).
  double overlap() const {
    return seconds > 0
               ? (upload_seconds + kernel_seconds + download_seconds + write_seconds) / seconds
               : 0;
  }
};

}  // namespace tessera
