// Result writers: where the engine puts each finished block (masspcf's DistanceMatrix,
// SymmetricMatrix and Tensor writers).
//
// The layouts (condensed, symmetric, dense) are described in matrix_layout.hpp: condensed is
// scipy's condensed distance vector (pairs i < j, the upper triangle row by row), symmetric the
// upper triangle with the diagonal in np.triu_indices(n) order. In every layout the kept columns
// of one row of a block (from the row's first kept column to the block's last column) are
// consecutive positions, and consecutive values of the block's row in its buffer (BlockStorage),
// so a writer moves a block as one copy per row. Blocks do not overlap: writers need no locking.
//
// Targets: a rank-1 (or contiguous LayoutRight) View in host memory, filled by host threads from
// the downloaded block; a View in the execution space's memory, filled by a kernel from the
// block on the device (no download); a .npy file (npy_file.hpp), written by host threads.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/host_stream_copy.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {

namespace Impl {

/// Where the kept values of row r0 + r of block b go: output position `to`, `count` values,
/// read from `from` values past the start of rows [r0, ..) in the block's storage.
struct RowMove {
  std::size_t to, from, count;
};
KOKKOS_INLINE_FUNCTION RowMove row_move(const BlockInfo& b, const BlockStorage& storage,
                                        std::size_t r0, std::size_t r, MatrixLayout layout,
                                        std::size_t n_cols) {
  const std::size_t i = b.rows.first + r0 + r, row_first = layout_row_first(layout, i);
  const std::size_t first = row_first > b.cols.first ? row_first : b.cols.first;
  const std::size_t end   = b.cols.last + 1;
  if (first >= end) return {0, 0, 0};  // the row keeps none of the block's columns
  return {layout_index(layout, i, first, n_cols),
          storage.index(r0 + r, first - b.cols.first) - storage.row_start(r0), end - first};
}

/// Copies the kept values of block rows r0 + r from `rows` (the block's rows [r0, ..) as its
/// storage lays them out) to a host array, one stream_copy per row (run on host threads).
template <class T>
struct HostRowCopy {
  T* out;
  const T* rows;
  BlockInfo b;
  BlockStorage storage;
  std::size_t r0;
  MatrixLayout layout;
  std::size_t n_cols;
  void operator()(std::size_t r) const {
    const RowMove m = row_move(b, storage, r0, r, layout, n_cols);
    if (m.count > 0) stream_copy(out + m.to, rows + m.from, m.count * sizeof(T));
  }
};

/// As HostRowCopy into a .npy file; counts the rows whose write failed.
template <class T>
struct FileRowCopy {
  const NpyFileWriter<T>* file;
  const T* rows;
  BlockInfo b;
  BlockStorage storage;
  std::size_t r0;
  MatrixLayout layout;
  std::size_t n_cols;
  void operator()(std::size_t r, std::size_t& failures) const {
    const RowMove m = row_move(b, storage, r0, r, layout, n_cols);
    if (m.count > 0 && !file->write(rows + m.from, m.to, m.count)) ++failures;
  }
};

/// The device-side copy: a team per block row, its threads over the row's kept columns.
template <class ExecSpace, class T>
struct DeviceRowCopy {
  T* out;
  const T* block;
  BlockInfo b;
  BlockStorage storage;
  MatrixLayout layout;
  std::size_t n_cols;
  KOKKOS_INLINE_FUNCTION void operator()(
      const typename Kokkos::TeamPolicy<ExecSpace>::member_type& m) const {
    const RowMove move = row_move(b, storage, 0, m.league_rank(), layout, n_cols);
    T* dst             = out + move.to;
    const T* src       = block + move.from;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, move.count),
                         [&](std::size_t k) { dst[k] = src[k]; });
  }
};

}  // namespace Impl

/// Writes blocks into a contiguous array of layout_size() values: host memory (on_host =
/// true: host threads copy the downloaded block) or the execution space's memory (a kernel
/// copies the block on the device, no download).
template <class T, class MemorySpace>
class ArrayWriter {
 public:
  /// True when the host can write MemorySpace: the pipeline then calls write_host, else
  /// write_device.
  static constexpr bool on_host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  /// Writes into `data` (held, not owned) in `layout`; n_cols: the matrix's columns.
  ArrayWriter(T* data, MatrixLayout layout, std::size_t n_cols)
      : data_(data), layout_(layout), n_cols_(n_cols) {}

  /// The layout of the output.
  MatrixLayout layout() const { return layout_; }

  /// Host target: copies rows [r0, r0 + n) of block b from `rows` (host memory, laid out as
  /// `storage` lays out those rows) into place.
  void write_host(const BlockInfo& b, const BlockStorage& storage, std::size_t r0, std::size_t n,
                  const T* rows) const {
    Kokkos::parallel_for("tessera::pairwise::write_block_host",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                         Impl::HostRowCopy<T>{data_, rows, b, storage, r0, layout_, n_cols_});
  }

  /// Device target: copies block b (in the space's memory, as `storage`) into place on `space`
  /// (asynchronous).
  template <class ExecSpace>
  void write_device(const ExecSpace& space, const BlockInfo& b, const BlockStorage& storage,
                    const T* block) const {
    Kokkos::parallel_for(
        "tessera::pairwise::write_block_device",
        Kokkos::TeamPolicy<ExecSpace>(space, int(b.rows.size()), Kokkos::AUTO),
        Impl::DeviceRowCopy<ExecSpace, T>{data_, block, b, storage, layout_, n_cols_});
  }

  /// Does nothing: the values are in place once the blocks' copies have run.
  void finish() {}

 private:
  T* data_;
  MatrixLayout layout_;
  std::size_t n_cols_;
};

/// Streams blocks into a .npy file (host threads write each row with pwrite).
template <class T>
class NpyWriter {
 public:
  /// Always true: blocks reach the file from host memory (write_host).
  static constexpr bool on_host = true;

  /// Creates (or truncates) file.path as a .npy array of `shape`, its data region allocated;
  /// n_cols: the matrix's columns. Throws std::runtime_error if the file cannot be made.
  NpyWriter(const NpyFile& file, const std::vector<std::size_t>& shape, MatrixLayout layout,
            std::size_t n_cols)
      : file_(std::make_unique<Impl::NpyFileWriter<T>>(file.path, shape)),
        layout_(layout),
        n_cols_(n_cols) {}

  /// The layout of the output.
  MatrixLayout layout() const { return layout_; }

  /// Writes rows [r0, r0 + n) of block b from `rows` (host memory, laid out as `storage` lays
  /// out those rows).
  void write_host(const BlockInfo& b, const BlockStorage& storage, std::size_t r0, std::size_t n,
                  const T* rows) const {
    std::size_t failures = 0;
    Kokkos::parallel_reduce(
        "tessera::pairwise::write_block_file",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
        Impl::FileRowCopy<T>{file_.get(), rows, b, storage, r0, layout_, n_cols_}, failures);
    if (failures > 0) file_->fail("cannot write to");
  }

  /// Does nothing: the pipeline never calls it for a writer on the host (on_host).
  template <class ExecSpace>
  void write_device(const ExecSpace&, const BlockInfo&, const BlockStorage&, const T*) const {}

  /// Closes the file (throws if the data did not reach it).
  void finish() { file_->close(); }

 private:
  std::unique_ptr<Impl::NpyFileWriter<T>> file_;
  MatrixLayout layout_;
  std::size_t n_cols_;
};

}  // namespace tessera
