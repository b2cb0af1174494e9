// The double-buffered block pipeline (masspcf's CudaBlockPipeline, on Kokkos instances).
//
// Two device block buffers, a compute instance, two download instances and two small pinned
// host staging buffers. For block k (device buffer k mod 2):
//   1. upload the block's function data and launch its kernel on the compute instance
//      (asynchronous; the buffer was last read by block k - 2's downloads, finished in 2.);
//   2. while the kernel runs, download block k - 1 and write it on the host, chunk by chunk:
//      chunk c + 1 is copied into one staging buffer (on one download instance) while the host
//      writes chunk c from the other, so that the copies hide behind the host writes;
//   3. wait for the kernel;
// and at the end download and write the last block. The kernel of block k + 1 thus overlaps the
// download and the host writes of block k. The staging buffers are small
// (Tuning::pairwise_staging_bytes each) because page-locking host memory costs about as much
// time as copying it: a call pins megabytes, not blocks. Outputs in the execution space's
// memory skip the download: a kernel on the compute instance copies each block into place. On
// host backends the block buffer is already host memory and is written directly.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/tiling.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/backend.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace tessera {
namespace Impl {

/// Counts the non-zero values of a block at pairs the skip mode leaves alone.
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

/// The rows of a block that fit one staging buffer of `staging` elements (at least one row).
inline std::size_t rows_per_chunk(const BlockInfo& b, std::size_t staging) {
  return std::max<std::size_t>(staging / b.cols.size(), 1);
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

  const auto& blocks = scheduler.blocks();
  PairwiseReport report;
  report.blocks     = blocks.size();
  report.block_side = scheduler.block_side();
  PairwiseProgress progress;
  progress.blocks_total = blocks.size();
  progress.bytes_total =
      sizeof(T) * layout_size(writer.layout(), scheduler.rows(), scheduler.cols());

  // compute, then the download instances of staging buffers 0 and 1
  const auto instances     = independent_instances<3>(space);
  const ExecSpace& compute = instances[0];
  const std::size_t cap    = scheduler.max_block_elements();
  std::size_t staging      = 0;  // elements per staging buffer
  for (const BlockInfo& b : blocks) {
    staging = std::max(
        staging, std::min(b.work(),
                          rows_per_chunk(b, Tuning<ExecSpace>::pairwise_staging_bytes / sizeof(T)) *
                              b.cols.size()));
  }
  Kokkos::View<T*, DevSpace> buffer[2];
  Kokkos::View<T*, PinnedHostSpace> pinned[2];
  for (int b = 0; b < 2 && b < int(blocks.size()); ++b) {
    buffer[b] = Kokkos::View<T*, DevSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::block"), cap);
    if constexpr (download) {
      pinned[b] = Kokkos::View<T*, PinnedHostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::staging"), staging);
    }
  }

  typename Backend::Timer upload_timer(compute), kernel_timer(compute);
  typename Backend::Timer download_timer0(instances[1]), download_timer1(instances[2]);
  typename Backend::Timer* download_timer[2] = {&download_timer0, &download_timer1};
  double write_seconds                       = 0;
  upload_timer.start();
  op.reserve(compute, scheduler, data_bytes);
  upload_timer.stop();

  // Queues the download of rows [r, r + rows) of block k into staging buffer s.
  auto download_rows = [&](std::size_t k, std::size_t r, std::size_t rows, int s) {
    const std::size_t cols = blocks[k].cols.size();
    const auto range       = std::make_pair(r * cols, (r + rows) * cols);
    download_timer[s]->start();
    Kokkos::deep_copy(instances[1 + s],
                      Kokkos::subview(pinned[s], std::make_pair(std::size_t(0), rows * cols)),
                      Kokkos::subview(buffer[k % 2], range));
    download_timer[s]->stop();
  };

  // Writes block k (its kernel has completed) and reports progress.
  auto write = [&](std::size_t k) {
    const BlockInfo& b = blocks[k];
    const T* block     = buffer[k % 2].data();
    if (options.check_skipped_zero) {
      std::size_t bad = 0;
      Kokkos::parallel_reduce("tessera::pairwise::check_skipped",
                              Kokkos::RangePolicy<ExecSpace>(compute, 0, b.work()),
                              SkippedNonzero<T>{block, b, skip}, bad);
      if (bad > 0) {
        throw std::logic_error(concat("tessera::pairwise: ", bad, " skipped pairs of block rows ",
                                      b.rows.first, "..", b.rows.last, " x cols ", b.cols.first,
                                      "..", b.cols.last, " hold non-zero values"));
      }
    }
    if constexpr (!device_output) {
      // Host writes of rows [r, r + rows) from data, timed.
      auto write_rows = [&](std::size_t r, std::size_t rows, const T* data) {
        const auto t0 = Clock::now();
        writer.write_host(b, r, rows, data);
        write_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      };
      if constexpr (download) {
        const std::size_t chunk = rows_per_chunk(b, staging), rows = b.rows.size();
        download_rows(k, 0, std::min(chunk, rows), 0);
        for (std::size_t r = 0, c = 0; r < rows; r += chunk, ++c) {
          const int s = int(c % 2);
          if (r + chunk < rows) {
            download_rows(k, r + chunk, std::min(chunk, rows - r - chunk), 1 - s);
          }
          instances[1 + s].fence();
          write_rows(r, std::min(chunk, rows - r), pinned[s].data());
        }
      } else {
        write_rows(0, b.rows.size(), block);
      }
    }
    progress.blocks_done = k + 1;
    progress.bytes_written += sizeof(T) * kept_in_block(writer.layout(), b);
    if (options.progress) options.progress(progress);
  };

  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const BlockInfo& b = blocks[k];
    T* out             = buffer[k % 2].data();
    if (options.check_skipped_zero) {
      Kokkos::deep_copy(
          compute, Kokkos::subview(buffer[k % 2], std::make_pair(std::size_t(0), b.work())), T(0));
    }
    upload_timer.start();
    op.upload(compute, b);
    upload_timer.stop();
    kernel_timer.start();
    op.launch(compute, b, skip, out);
    kernel_timer.stop();
    if constexpr (device_output) {
      writer.write_device(compute, b, out);
      write(k);  // progress only (the copy is queued)
    } else {
      if (k > 0) write(k - 1);
      compute.fence();
    }
  }
  if constexpr (!device_output) {
    if (!blocks.empty()) write(blocks.size() - 1);
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
