// Result writers: where the engine puts each finished block (masspcf's DistanceMatrix,
// SymmetricMatrix and Tensor writers).
//
// A layout maps the kept pairs (i, j) of an n_rows x n_cols matrix to positions of a flat array:
//   condensed  (pdist)       i > j,  position i (i - 1) / 2 + j   (scipy's condensed form read
//                                    row-wise over the lower triangle), n (n - 1) / 2 values;
//   symmetric  (l2_kernel)   i >= j, position i (i + 1) / 2 + j   (packed lower triangle with
//                                    the diagonal), n (n + 1) / 2 values;
//   dense      (cdist)       all,    position i n_cols + j        (row-major; the shape
//                                    (*X.shape, *Y.shape) has the same layout).
// In every layout the kept columns of one row of a block are consecutive positions, so a writer
// moves a block as one copy per row. Blocks do not overlap: writers need no locking.
//
// Targets: a rank-1 (or contiguous LayoutRight) View in host memory, filled by host threads from
// the downloaded block; a View in the execution space's memory, filled by a kernel from the
// block on the device (no download); a .npy file (npy_file.hpp), written by host threads.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/host_stream_copy.hpp>
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

/// How a pairwise call lays its kept pairs out in memory (see the file comment).
enum class MatrixLayout { condensed, symmetric, dense };

namespace Impl {

/// Position of pair (i, first kept column of the row) minus that column: row i's base.
KOKKOS_INLINE_FUNCTION std::size_t layout_row_base(MatrixLayout layout, std::size_t i,
                                                   std::size_t n_cols) {
  switch (layout) {
    case MatrixLayout::condensed:
      return i * (i - (i > 0)) / 2;  // i (i - 1) / 2
    case MatrixLayout::symmetric:
      return i * (i + 1) / 2;
    default:
      return i * n_cols;
  }
}

/// One past the last kept column of row i among columns [.., col_end).
KOKKOS_INLINE_FUNCTION std::size_t layout_row_end(MatrixLayout layout, std::size_t i,
                                                  std::size_t col_end) {
  switch (layout) {
    case MatrixLayout::condensed:
      return col_end < i ? col_end : i;
    case MatrixLayout::symmetric:
      return col_end < i + 1 ? col_end : i + 1;
    default:
      return col_end;
  }
}

/// Values an output of the layout holds; throws std::length_error on overflow.
inline std::size_t layout_size(MatrixLayout layout, std::size_t n_rows, std::size_t n_cols) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  if (layout == MatrixLayout::dense) {
    if (n_cols != 0 && n_rows > max / n_cols) {
      throw std::length_error("tessera::pairwise: the output size overflows std::size_t");
    }
    return n_rows * n_cols;
  }
  const std::size_t n = n_rows;
  if (n > 0 && n + 1 > max / n) {
    throw std::length_error("tessera::pairwise: the output size overflows std::size_t");
  }
  return layout == MatrixLayout::condensed ? n * (n - (n > 0)) / 2 : n * (n + 1) / 2;
}

/// Values of a block that the layout keeps.
inline std::size_t kept_in_block(MatrixLayout layout, const BlockInfo& b) {
  std::size_t kept = 0;
  for (std::size_t i = b.rows.first; i <= b.rows.last; ++i) {
    const std::size_t end = layout_row_end(layout, i, b.cols.last + 1);
    kept += end > b.cols.first ? end - b.cols.first : 0;
  }
  return kept;
}

/// Copies the kept values of block rows r0 + r from `rows` (row r of the block's rows
/// [r0, ..), cols values each) to a host array, one stream_copy per row (run on host threads).
template <class T>
struct HostRowCopy {
  T* out;
  const T* rows;
  BlockInfo b;
  std::size_t r0;
  MatrixLayout layout;
  std::size_t n_cols;
  void operator()(std::size_t r) const {
    const std::size_t i = b.rows.first + r0 + r, end = layout_row_end(layout, i, b.cols.last + 1);
    if (end <= b.cols.first) return;
    stream_copy(out + layout_row_base(layout, i, n_cols) + b.cols.first, rows + r * b.cols.size(),
                (end - b.cols.first) * sizeof(T));
  }
};

/// As HostRowCopy into a .npy file; counts the rows whose write failed.
template <class T>
struct FileRowCopy {
  const NpyFileWriter<T>* file;
  const T* rows;
  BlockInfo b;
  std::size_t r0;
  MatrixLayout layout;
  std::size_t n_cols;
  void operator()(std::size_t r, std::size_t& failures) const {
    const std::size_t i = b.rows.first + r0 + r, end = layout_row_end(layout, i, b.cols.last + 1);
    if (end <= b.cols.first) return;
    if (!file->write(rows + r * b.cols.size(), layout_row_base(layout, i, n_cols) + b.cols.first,
                     end - b.cols.first)) {
      ++failures;
    }
  }
};

/// The device-side copy: a team per block row, its threads over the row's kept columns.
template <class ExecSpace, class T>
struct DeviceRowCopy {
  T* out;
  const T* block;
  BlockInfo b;
  MatrixLayout layout;
  std::size_t n_cols;
  KOKKOS_INLINE_FUNCTION void operator()(
      const typename Kokkos::TeamPolicy<ExecSpace>::member_type& m) const {
    const std::size_t r = m.league_rank(), i = b.rows.first + r;
    const std::size_t end = layout_row_end(layout, i, b.cols.last + 1);
    if (end <= b.cols.first) return;
    T* dst       = out + layout_row_base(layout, i, n_cols) + b.cols.first;
    const T* src = block + r * b.cols.size();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, end - b.cols.first),
                         [&](std::size_t k) { dst[k] = src[k]; });
  }
};

}  // namespace Impl

/// Writes blocks into a contiguous array of layout_size() values: host memory (HostOutput =
/// true: host threads copy the downloaded block) or the execution space's memory (a kernel
/// copies the block on the device, no download).
template <class T, class MemorySpace>
class ArrayWriter {
 public:
  static constexpr bool on_host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  ArrayWriter(T* data, MatrixLayout layout, std::size_t n_cols)
      : data_(data), layout_(layout), n_cols_(n_cols) {}

  MatrixLayout layout() const { return layout_; }

  /// Host target: copies rows [r0, r0 + n) of block b from `rows` (n x cols, row-major, in
  /// host memory) into place.
  void write_host(const BlockInfo& b, std::size_t r0, std::size_t n, const T* rows) const {
    Kokkos::parallel_for("tessera::pairwise::write_block_host",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                         Impl::HostRowCopy<T>{data_, rows, b, r0, layout_, n_cols_});
  }

  /// Device target: copies block b (in the space's memory) into place on `space` (asynchronous).
  template <class ExecSpace>
  void write_device(const ExecSpace& space, const BlockInfo& b, const T* block) const {
    Kokkos::parallel_for("tessera::pairwise::write_block_device",
                         Kokkos::TeamPolicy<ExecSpace>(space, int(b.rows.size()), Kokkos::AUTO),
                         Impl::DeviceRowCopy<ExecSpace, T>{data_, block, b, layout_, n_cols_});
  }

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
  static constexpr bool on_host = true;

  NpyWriter(const NpyFile& file, const std::vector<std::size_t>& shape, MatrixLayout layout,
            std::size_t n_cols)
      : file_(std::make_unique<Impl::NpyFileWriter<T>>(file.path, shape)),
        layout_(layout),
        n_cols_(n_cols) {}

  MatrixLayout layout() const { return layout_; }

  /// Writes rows [r0, r0 + n) of block b from `rows` (n x cols, row-major, host memory).
  void write_host(const BlockInfo& b, std::size_t r0, std::size_t n, const T* rows) const {
    std::size_t failures = 0;
    Kokkos::parallel_reduce("tessera::pairwise::write_block_file",
                            Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                            Impl::FileRowCopy<T>{file_.get(), rows, b, r0, layout_, n_cols_},
                            failures);
    if (failures > 0) file_->fail("cannot write to");
  }

  template <class ExecSpace>
  void write_device(const ExecSpace&, const BlockInfo&, const T*) const {}

  /// Closes the file (throws if the data did not reach it).
  void finish() { file_->close(); }

 private:
  std::unique_ptr<Impl::NpyFileWriter<T>> file_;
  MatrixLayout layout_;
  std::size_t n_cols_;
};

}  // namespace tessera
