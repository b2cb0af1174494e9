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
//
// The code: PipelineResources is what a call allocates (the instances, the block buffers, the
// staging buffers); BlockPipeline is a call's state and the steps every block takes (launch,
// check, host write, progress); run_direct_blocks and run_streamed_blocks are the two runners
// (blocks that need no download: outputs in the space's memory and host backends; the stream of
// downloaded chunks), of which run_block_pipeline runs one.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/backend.hpp>
#include <tessera/pairwise/impl/concept_checks.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <utility>
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

/// What a pipeline allocates: the compute instance and the two download instances, a block
/// buffer per block (two at most) and, for downloads, the two pinned staging buffers.
template <class ExecSpace, class T>
struct PipelineResources {
  using DevSpace = typename ExecSpace::memory_space;

  /// compute, then the download instances of staging buffers 0 and 1
  std::array<ExecSpace, 3> instances;
  /// Elements of a staging buffer (staging_elements).
  std::size_t staging;
  Kokkos::View<T*, DevSpace> buffer[2];
  Kokkos::View<T*, PinnedHostSpace> pinned[2];

  /// Allocates for the blocks of `scheduler` (staging buffers only when `download`).
  PipelineResources(const ExecSpace& space, const BlockScheduler& scheduler, bool download)
      : instances(independent_instances<3>(space)),
        staging(staging_elements(scheduler.blocks(),
                                 Tuning<ExecSpace>::pairwise_staging_bytes / sizeof(T))) {
    const std::size_t n_blocks = scheduler.blocks().size();
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
  }
  PipelineResources(const PipelineResources&)            = delete;
  PipelineResources& operator=(const PipelineResources&) = delete;
  /// On an exception (a failed file write, a throwing progress callback) the queued work must
  /// end before the buffers it uses are released: this waits for it, before they are.
  ~PipelineResources() {
    for (const ExecSpace& instance : instances)
      instance.fence();
  }

  const ExecSpace& compute() const { return instances[0]; }
};

/// A call's pipeline: its blocks in the order they run (pipeline_order), its resources, timers
/// and progress, and the steps every block takes whichever runner runs it.
template <class ExecSpace, class BlockOp, class Writer>
struct BlockPipeline {
  using T       = typename BlockOp::value_type;
  using Clock   = std::chrono::steady_clock;
  using Backend = PairwiseBackend<ExecSpace>;
  using Timer   = typename Backend::Timer;
  /// The writer takes blocks in the space's memory: each is copied into place on the device.
  static constexpr bool device_output = !Writer::on_host;
  /// The writer takes blocks in host memory from a device space: blocks are downloaded.
  static constexpr bool download = Writer::on_host && is_device_space<ExecSpace>;

  BlockPipeline(const ExecSpace& space, BlockOp& block_op, Writer& block_writer,
                const BlockScheduler& blocks, TriangleSkipMode skip_mode,
                const PairwiseOptions& call_options)
      : op(block_op),
        writer(block_writer),
        scheduler(blocks),
        skip(skip_mode),
        options(call_options),
        order(pipeline_order(blocks.blocks())),
        resources(space, blocks, download),
        upload_timer(resources.compute()),
        kernel_timer(resources.compute()),
        download_timer0(resources.instances[1]),
        download_timer1(resources.instances[2]) {
    progress.blocks_total = order.size();
    progress.bytes_total =
        sizeof(T) * layout_size(writer.layout(), scheduler.rows(), scheduler.cols());
  }

  /// Blocks of the call.
  std::size_t size() const { return order.size(); }
  /// The k-th block to run.
  const BlockInfo& block(std::size_t k) const { return scheduler.blocks()[order[k]]; }
  /// How block k is stored: diagonal blocks of triangular outputs packed, unless the debug
  /// check needs every pair.
  BlockStorage storage(std::size_t k) const {
    return BlockStorage::of(block(k), writer.layout(), !options.check_skipped_zero);
  }
  const ExecSpace& compute() const { return resources.compute(); }
  /// The timer of the copies into staging buffer s.
  Timer& download_timer(int s) { return s == 0 ? download_timer0 : download_timer1; }

  /// Lets the op allocate for the blocks; data_bytes: the budget's share for function data.
  void reserve(std::size_t data_bytes) {
    upload_timer.start();
    op.reserve(compute(), scheduler, data_bytes);
    upload_timer.stop();
  }

  /// Queues block k's uploads and kernel on the compute instance, into buffer k mod 2 (and, for
  /// outputs in the space's memory, the copy of the block into place).
  void launch(std::size_t k) {
    const BlockInfo& b = block(k);
    T* out             = resources.buffer[k % 2].data();
    if (options.check_skipped_zero) {
      Kokkos::deep_copy(
          compute(),
          Kokkos::subview(resources.buffer[k % 2], std::make_pair(std::size_t(0), b.work())), T(0));
    }
    upload_timer.start();
    op.upload(compute(), b);
    upload_timer.stop();
    kernel_timer.start();
    op.launch(compute(), b, skip, storage(k), out);
    kernel_timer.stop();
    if constexpr (device_output) writer.write_device(compute(), b, storage(k), out);
  }

  /// Debug option: block k's kernel has written nothing where the skip mode computes nothing
  /// (waits for the compute instance).
  void check(std::size_t k) {
    if (!options.check_skipped_zero) return;
    const BlockInfo& b = block(k);
    std::size_t bad    = 0;
    Kokkos::parallel_reduce("tessera::pairwise::check_skipped",
                            Kokkos::RangePolicy<ExecSpace>(compute(), 0, b.work()),
                            SkippedNonzero<T>{resources.buffer[k % 2].data(), b, skip}, bad);
    if (bad > 0) {
      throw std::logic_error(concat("tessera::pairwise: ", bad, " skipped pairs of block rows ",
                                    b.rows.first, "..", b.rows.last, " x cols ", b.cols.first, "..",
                                    b.cols.last, " hold non-zero values"));
    }
  }

  /// Host writes of rows [r, r + rows) of block k from data, timed.
  void write_rows(std::size_t k, std::size_t r, std::size_t rows, const T* data) {
    const auto t0 = Clock::now();
    writer.write_host(block(k), storage(k), r, rows, data);
    write_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  }

  /// Block k is in place: the progress callback hears of it.
  void written(std::size_t k) {
    progress.blocks_done = k + 1;
    progress.bytes_written += sizeof(T) * kept_in_block(writer.layout(), block(k));
    if (options.progress) options.progress(progress);
  }

  /// Once every block is written: waits for the compute instance, finishes the writer and
  /// reports the call.
  PairwiseReport finish() {
    compute().fence();
    writer.finish();
    PairwiseReport report;
    report.blocks           = order.size();
    report.block_side       = scheduler.block_side();
    report.pairs            = layout_size(writer.layout(), scheduler.rows(), scheduler.cols());
    report.bytes_written    = progress.bytes_written;
    report.upload_seconds   = upload_timer.seconds();
    report.kernel_seconds   = kernel_timer.seconds();
    report.download_seconds = download_timer0.seconds() + download_timer1.seconds();
    report.write_seconds    = write_seconds;
    report.timings_measured = Timer::measures;
    report.seconds          = std::chrono::duration<double>(Clock::now() - t_start).count();
    return report;
  }

  const Clock::time_point t_start = Clock::now();  // first: the report's seconds count it all
  BlockOp& op;
  Writer& writer;
  const BlockScheduler& scheduler;
  const TriangleSkipMode skip;
  const PairwiseOptions& options;
  const std::vector<std::size_t> order;
  PipelineResources<ExecSpace, T> resources;
  Timer upload_timer, kernel_timer, download_timer0, download_timer1;
  PairwiseProgress progress;
  double write_seconds = 0;
};

/// The runner of blocks that need no download. Outputs in the space's memory: blocks are copied
/// into place on the compute instance. Host backends: each block is written from its buffer once
/// its kernel has run.
template <class Pipeline>
void run_direct_blocks(Pipeline& p) {
  for (std::size_t k = 0; k < p.size(); ++k) {
    p.launch(k);
    p.check(k);
    if constexpr (!Pipeline::device_output) {
      p.compute().fence();
      p.write_rows(k, 0, p.block(k).rows.size(), p.resources.buffer[k % 2].data());
    } else if (p.options.progress) {
      p.compute().fence();  // the block is in place when the callback says so
    }
    p.written(k);
  }
}

/// The runner of downloads: one stream of chunks over all blocks (see the file comment).
template <class Pipeline>
void run_streamed_blocks(Pipeline& p) {
  using Backend              = typename Pipeline::Backend;
  const std::size_t n_blocks = p.size();
  auto& res                  = p.resources;
  // Queues the copy of the chunk of block k that starts at row r into staging buffer s, after
  // the previous chunk's copy (so that the timers count copies, not waits) and, for a block's
  // first chunk, after the block's kernel.
  auto issue = [&](std::size_t k, std::size_t r, int s) {
    const auto& copier = res.instances[1 + s];
    if (r == 0) Backend::wait_for(copier, p.compute());
    Backend::wait_for(copier, res.instances[2 - s]);
    const BlockStorage st   = p.storage(k);
    const std::size_t begin = st.row_start(r);
    const std::size_t end   = st.row_start(chunk_end(st, r, p.block(k).rows.size(), res.staging));
    p.download_timer(s).start();
    Kokkos::deep_copy(copier,
                      Kokkos::subview(res.pinned[s], std::make_pair(std::size_t(0), end - begin)),
                      Kokkos::subview(res.buffer[k % 2], std::make_pair(begin, end)));
    p.download_timer(s).stop();
  };
  if (n_blocks > 0) {
    p.launch(0);
    p.check(0);
    issue(0, 0, 0);
  }
  if (n_blocks > 1) p.launch(1);
  int s = 0;
  for (std::size_t k = 0; k < n_blocks; ++k) {
    const std::size_t rows = p.block(k).rows.size();
    for (std::size_t r = 0, e; r < rows; r = e, s = 1 - s) {
      e = chunk_end(p.storage(k), r, rows, res.staging);
      // Queue the next chunk (of this block or the next one) before waiting for this one.
      if (e < rows) {
        issue(k, e, 1 - s);
      } else if (k + 1 < n_blocks) {
        p.check(k + 1);
        issue(k + 1, 0, 1 - s);
      }
      res.instances[1 + s].fence();
      // Block k is downloaded once its last chunk is: its buffer takes block k + 2.
      if (e == rows && k + 2 < n_blocks) p.launch(k + 2);
      p.write_rows(k, r, e - r, res.pinned[s].data());
    }
    p.written(k);
  }
}

/// Runs every block of `scheduler` through op and writer (see the file comment); returns when
/// all blocks are written. data_bytes: the budget's share for function data (BlockOp::reserve,
/// BlockPlan::data_bytes).
template <class ExecSpace, class BlockOp, class Writer>
PairwiseReport run_block_pipeline(const ExecSpace& space, BlockOp& op, Writer& writer,
                                  const BlockScheduler& scheduler, std::size_t data_bytes,
                                  TriangleSkipMode skip, const PairwiseOptions& options) {
  check_result_writer<Writer, typename BlockOp::value_type, ExecSpace>();
  using Pipeline = BlockPipeline<ExecSpace, BlockOp, Writer>;
  Pipeline pipeline(space, op, writer, scheduler, skip, options);
  pipeline.reserve(data_bytes);
  if constexpr (Pipeline::download) {
    run_streamed_blocks(pipeline);
  } else {
    run_direct_blocks(pipeline);
  }
  return pipeline.finish();
}

}  // namespace Impl
}  // namespace tessera
