// The double-buffered block pipeline (masspcf's CudaBlockPipeline, on Kokkos instances).
//
// Two device block buffers, a compute instance, two download instances and two small pinned
// host staging buffers. Block k's kernel writes buffer k mod 2 on the compute instance (diagonal
// blocks of triangular outputs packed: their kept pairs alone, see matrix_layout.hpp); the
// buffer is downloaded to the host chunk by chunk (rows of the block that fit a staging buffer)
// and each chunk is written into place by host threads. The chunks of all blocks form one
// stream: while the host writes chunk q from one staging buffer, the copy of chunk q + 1 (of
// the same block, or the first of the next block, queued behind that block's kernel) fills the
// other, so the copy engine never waits for the host between blocks. Once block k's last chunk
// has arrived, its buffer takes block k + 2's uploads and kernel, which thus run while block
// k + 1 is downloaded and written. Queue dependencies between instances are device-side where
// the backend offers them (PairwiseBackend::wait_for), so the host blocks only on the chunk it
// is about to write. The pipeline runs the scheduler's blocks (sorted by descending work) with
// the smallest first, since nothing overlaps the first block's kernel.
//
// The staging buffers are small (Tuning::pairwise_staging_bytes each) because page-locking host
// memory costs about as much time as copying it: a call pins megabytes, not blocks. Outputs in
// the execution space's memory skip the download: a kernel on the compute instance copies each
// block into place. On host backends the block buffer is already host memory and is written
// directly.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/tiling.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/backend.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace tessera {
namespace Impl {

/// Counts the non-zero values of a block at pairs the skip mode leaves alone (the block stored
/// row-major, as it is whenever the check runs).
template <class T>
struct SkippedNonzero {
  const T* block;
  BlockInfo b;
  TriangleSkipMode skip;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t e, std::size_t& count) const {
    const std::size_t r = e / b.cols.size(), c = e % b.cols.size();
    if (!pair_computed(skip, b.rows.first + r, b.cols.first + c) && block[e] != T(0)) ++count;
  }
};

/// The occupancy floor of the block side on `space` (see PairwiseOptions::min_block_side).
template <class ExecSpace>
std::size_t automatic_min_block_side(const ExecSpace& space) {
  const double share = Tuning<ExecSpace>::pairwise_occupancy_share;
  return static_cast<std::size_t>(std::floor(std::sqrt(share * double(space.concurrency()))));
}

/// Bytes of execution-space memory the call may use (PairwiseOptions::budget_bytes).
template <class ExecSpace>
std::size_t pairwise_budget(const ExecSpace& space, const PairwiseOptions& options) {
  if (options.budget_bytes > 0) return options.budget_bytes;
  if (auto free = PairwiseBackend<ExecSpace>::free_memory_bytes(space)) {
    return static_cast<std::size_t>(double(*free) * TuningBase::pairwise_free_memory_share);
  }
  return Tuning<ExecSpace>::pairwise_default_budget_bytes;
}

/// The share of a budget that the blocks' function data may take (the rest holds the two block
/// buffers).
inline std::size_t pairwise_data_share(std::size_t budget) {
  return budget - static_cast<std::size_t>(budget * TuningBase::pairwise_output_share);
}

/// Schedules the blocks of `op` within `budget` bytes: the output share holds two block
/// buffers, the rest the largest block's streamed function data (the block side shrinks until
/// it does, or the call fails with std::length_error).
template <class ExecSpace, class BlockOp>
BlockScheduler schedule_blocks(const ExecSpace& space, const BlockOp& op, BlockTriangleMode mode,
                               const PairwiseOptions& options, std::size_t budget,
                               const char* caller) {
  using T                         = typename BlockOp::value_type;
  const std::size_t data_share    = pairwise_data_share(budget);
  const std::size_t output_budget = budget - data_share;
  // A block buffer never needs more than the whole rows x cols square (one block).
  const std::size_t needed =
      std::max<std::size_t>(layout_size(MatrixLayout::dense, op.rows(), op.cols()), 1);
  std::size_t max_elements =
      std::max<std::size_t>(std::min(output_budget / 2 / sizeof(T), needed), 1);
  // The hint splits the whole output: a budget smaller than the output already cuts it into
  // needed / max_elements blocks, so the budget is split by proportionally less (else an output
  // 4 times the budget would run in blocks 32 times smaller than the budget allows).
  const std::size_t hint =
      options.n_splits_hint > 0 ? options.n_splits_hint : TuningBase::pairwise_splits_hint;
  BlockSchedulerConfig config;
  config.n_splits_hint = std::max<std::size_t>(
      static_cast<std::size_t>(double(hint) * double(max_elements) / double(needed) + 0.5), 1);
  config.min_block_side = options.min_block_side == PairwiseOptions::automatic
                              ? automatic_min_block_side(space)
                              : options.min_block_side;
  for (;;) {
    config.max_output_elements = max_elements;
    BlockScheduler s(op.rows(), op.cols(), mode, config);
    std::size_t data = 0;
    for (const BlockInfo& b : s.blocks())
      data = std::max(data, op.block_data_bytes(b));
    if (data <= data_share) return s;
    if (s.block_side() == 1 || max_elements == 1) {
      throw std::length_error(concat("tessera::", caller, ": the functions of one block need ",
                                     data, " bytes, more than the budget's ", data_share,
                                     " for function data (raise budget_bytes)"));
    }
    max_elements = std::max<std::size_t>(max_elements / 4, 1);
  }
}

/// One past the last row of the chunk of a block's `rows` rows (stored as `storage`) that starts
/// at row r: the most rows whose values fit `staging` elements, at least one.
inline std::size_t chunk_end(const BlockStorage& storage, std::size_t r, std::size_t rows,
                             std::size_t staging) {
  const std::size_t base = storage.row_start(r);
  std::size_t lo = r + 1, hi = rows;  // row_start grows with the row: bisect
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo + 1) / 2;
    if (storage.row_start(mid) - base <= staging) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/// Elements of a staging buffer: at least the largest chunk of any block (a chunk holds at most
/// `staging` values, or one row, and at most the block).
inline std::size_t staging_elements(const std::vector<BlockInfo>& blocks, std::size_t staging) {
  std::size_t elements = 0;
  for (const BlockInfo& b : blocks)
    elements = std::max(elements, std::min(b.work(), std::max(staging, b.cols.size())));
  return elements;
}

/// The order in which the pipeline runs `blocks` (indices): the last (smallest) block first,
/// since nothing overlaps the first kernel, then the others in their order.
inline std::vector<std::size_t> pipeline_order(const std::vector<BlockInfo>& blocks) {
  std::vector<std::size_t> order;
  order.reserve(blocks.size());
  if (!blocks.empty()) order.push_back(blocks.size() - 1);
  for (std::size_t k = 0; k + 1 < blocks.size(); ++k)
    order.push_back(k);
  return order;
}

/// Runs every block of `scheduler` through op and writer (see the file comment); returns when
/// all blocks are written. data_bytes: the budget's share for function data (BlockOp::reserve).
template <class ExecSpace, class BlockOp, class Writer>
PairwiseReport run_block_pipeline(const ExecSpace& space, BlockOp& op, Writer& writer,
                                  const BlockScheduler& scheduler, std::size_t data_bytes,
                                  TriangleSkipMode skip, const PairwiseOptions& options) {
  using T                      = typename BlockOp::value_type;
  using Clock                  = std::chrono::steady_clock;
  using Backend                = PairwiseBackend<ExecSpace>;
  using DevSpace               = typename ExecSpace::memory_space;
  constexpr bool device_output = !Writer::on_host;
  constexpr bool download      = Writer::on_host && is_device_space<ExecSpace>;
  const auto t_start           = Clock::now();

  const auto order           = pipeline_order(scheduler.blocks());
  const std::size_t n_blocks = order.size();
  auto block = [&](std::size_t k) -> const BlockInfo& { return scheduler.blocks()[order[k]]; };
  // Diagonal blocks of triangular outputs packed, unless the debug check needs every pair.
  auto storage = [&](std::size_t k) {
    return BlockStorage::of(block(k), writer.layout(), !options.check_skipped_zero);
  };
  PairwiseReport report;
  report.blocks     = n_blocks;
  report.block_side = scheduler.block_side();
  PairwiseProgress progress;
  progress.blocks_total = n_blocks;
  progress.bytes_total =
      sizeof(T) * layout_size(writer.layout(), scheduler.rows(), scheduler.cols());

  // compute, then the download instances of staging buffers 0 and 1
  const auto instances     = independent_instances<3>(space);
  const ExecSpace& compute = instances[0];
  const std::size_t staging =
      staging_elements(scheduler.blocks(), Tuning<ExecSpace>::pairwise_staging_bytes / sizeof(T));
  Kokkos::View<T*, DevSpace> buffer[2];
  Kokkos::View<T*, PinnedHostSpace> pinned[2];
  // A block buffer per block (two at most); both staging buffers for any download, since the
  // chunks of even a single block alternate between them.
  for (int b = 0; b < 2 && b < int(n_blocks); ++b) {
    buffer[b] = Kokkos::View<T*, DevSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::block"),
        scheduler.max_block_elements());
  }
  for (int b = 0; b < 2 && download && n_blocks > 0; ++b) {
    pinned[b] = Kokkos::View<T*, PinnedHostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::staging"), staging);
  }

  // On an exception (a failed file write, a throwing progress callback) the queued work must end
  // before the buffers it uses are released: destroyed first, this waits for it.
  struct FenceOnExit {
    const std::array<ExecSpace, 3>& instances;
    ~FenceOnExit() {
      for (const ExecSpace& instance : instances)
        instance.fence();
    }
  } fence_on_exit{instances};

  typename Backend::Timer upload_timer(compute), kernel_timer(compute);
  typename Backend::Timer download_timer0(instances[1]), download_timer1(instances[2]);
  typename Backend::Timer* download_timer[2] = {&download_timer0, &download_timer1};
  double write_seconds                       = 0;
  upload_timer.start();
  op.reserve(compute, scheduler, data_bytes);
  upload_timer.stop();

  // Queues block k's uploads and kernel on the compute instance, into buffer k mod 2 (and, for
  // outputs in the space's memory, the copy of the block into place).
  auto launch = [&](std::size_t k) {
    const BlockInfo& b = block(k);
    T* out             = buffer[k % 2].data();
    if (options.check_skipped_zero) {
      Kokkos::deep_copy(
          compute, Kokkos::subview(buffer[k % 2], std::make_pair(std::size_t(0), b.work())), T(0));
    }
    upload_timer.start();
    op.upload(compute, b);
    upload_timer.stop();
    kernel_timer.start();
    op.launch(compute, b, skip, storage(k), out);
    kernel_timer.stop();
    if constexpr (device_output) writer.write_device(compute, b, storage(k), out);
  };
  // Debug option: block k's kernel has written nothing where the skip mode computes nothing
  // (waits for the compute instance).
  auto check = [&](std::size_t k) {
    if (!options.check_skipped_zero) return;
    const BlockInfo& b = block(k);
    std::size_t bad    = 0;
    Kokkos::parallel_reduce("tessera::pairwise::check_skipped",
                            Kokkos::RangePolicy<ExecSpace>(compute, 0, b.work()),
                            SkippedNonzero<T>{buffer[k % 2].data(), b, skip}, bad);
    if (bad > 0) {
      throw std::logic_error(concat("tessera::pairwise: ", bad, " skipped pairs of block rows ",
                                    b.rows.first, "..", b.rows.last, " x cols ", b.cols.first, "..",
                                    b.cols.last, " hold non-zero values"));
    }
  };
  // Host writes of rows [r, r + rows) of block k from data, timed.
  auto write_rows = [&](std::size_t k, std::size_t r, std::size_t rows, const T* data) {
    const auto t0 = Clock::now();
    writer.write_host(block(k), storage(k), r, rows, data);
    write_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  };
  auto written = [&](std::size_t k) {
    progress.blocks_done = k + 1;
    progress.bytes_written += sizeof(T) * kept_in_block(writer.layout(), block(k));
    if (options.progress) options.progress(progress);
  };

  if constexpr (device_output || !download) {
    // Outputs in the space's memory: blocks are copied into place on the compute instance.
    // Host backends: each block is written from its buffer once its kernel has run.
    for (std::size_t k = 0; k < n_blocks; ++k) {
      launch(k);
      check(k);
      if constexpr (!device_output) {
        compute.fence();
        write_rows(k, 0, block(k).rows.size(), buffer[k % 2].data());
      } else if (options.progress) {
        compute.fence();  // the block is in place when the callback says so
      }
      written(k);
    }
  } else {
    // Downloads: one stream of chunks over all blocks (see the file comment).
    // Queues the copy of the chunk of block k that starts at row r into staging buffer s, after
    // the previous chunk's copy (so that the timers count copies, not waits) and, for a block's
    // first chunk, after the block's kernel.
    auto issue = [&](std::size_t k, std::size_t r, int s) {
      const ExecSpace& copier = instances[1 + s];
      if (r == 0) Backend::wait_for(copier, compute);
      Backend::wait_for(copier, instances[2 - s]);
      const BlockStorage st   = storage(k);
      const std::size_t begin = st.row_start(r);
      const std::size_t end   = st.row_start(chunk_end(st, r, block(k).rows.size(), staging));
      download_timer[s]->start();
      Kokkos::deep_copy(copier,
                        Kokkos::subview(pinned[s], std::make_pair(std::size_t(0), end - begin)),
                        Kokkos::subview(buffer[k % 2], std::make_pair(begin, end)));
      download_timer[s]->stop();
    };
    if (n_blocks > 0) {
      launch(0);
      check(0);
      issue(0, 0, 0);
    }
    if (n_blocks > 1) launch(1);
    int s = 0;
    for (std::size_t k = 0; k < n_blocks; ++k) {
      const std::size_t rows = block(k).rows.size();
      for (std::size_t r = 0, e; r < rows; r = e, s = 1 - s) {
        e = chunk_end(storage(k), r, rows, staging);
        // Queue the next chunk (of this block or the next one) before waiting for this one.
        if (e < rows) {
          issue(k, e, 1 - s);
        } else if (k + 1 < n_blocks) {
          check(k + 1);
          issue(k + 1, 0, 1 - s);
        }
        instances[1 + s].fence();
        // Block k is downloaded once its last chunk is: its buffer takes block k + 2.
        if (e == rows && k + 2 < n_blocks) launch(k + 2);
        write_rows(k, r, e - r, pinned[s].data());
      }
      written(k);
    }
  }
  compute.fence();
  writer.finish();

  report.pairs            = layout_size(writer.layout(), scheduler.rows(), scheduler.cols());
  report.bytes_written    = progress.bytes_written;
  report.upload_seconds   = upload_timer.seconds();
  report.kernel_seconds   = kernel_timer.seconds();
  report.download_seconds = download_timer0.seconds() + download_timer1.seconds();
  report.write_seconds    = write_seconds;
  report.timings_measured = Backend::Timer::measures;
  report.seconds          = std::chrono::duration<double>(Clock::now() - t_start).count();
  return report;
}

}  // namespace Impl
}  // namespace tessera
