// The row copies of the result writers (result_writers.hpp): where each kept row of a block goes
// in the output (row_move), and the three ways it gets there: host threads into a host array
// (HostRowCopy), host threads into a .npy file (FileRowCopy), a team per row on the device
// (DeviceRowCopy).
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/host_stream_copy.hpp>
#include <tessera/pairwise/impl/npy_write.hpp>
#include <tessera/pairwise/matrix_layout.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

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
}  // namespace tessera
