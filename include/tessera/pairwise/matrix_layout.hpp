// Matrix layouts: where the kept pairs of a pairwise output lie in a flat array, and where a
// block's values lie in the pipeline's block buffer.
//
// A layout maps the kept pairs (i, j) of an n_rows x n_cols matrix to positions of a flat array:
//   condensed  (pdist)       i > j,  position i (i - 1) / 2 + j   (scipy's condensed form read
//                                    row-wise over the lower triangle), n (n - 1) / 2 values;
//   symmetric  (l2_kernel)   i >= j, position i (i + 1) / 2 + j   (packed lower triangle with
//                                    the diagonal), n (n + 1) / 2 values;
//   dense      (cdist)       all,    position i n_cols + j        (row-major; the shape
//                                    (*X.shape, *Y.shape) has the same layout).
//
// A block (rows x cols pairs of the matrix, BlockInfo) is computed into a buffer as a BlockStorage
// says: row-major, except a diagonal block of a triangular output (its rows and columns the same
// band), which is stored as a small matrix of the output's own layout, its kept pairs alone: the
// pairs above the diagonal, half of the block, are never downloaded or written.
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <limits>
#include <stdexcept>

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

}  // namespace Impl

/// Where the values of one block lie in its buffer: pair (r, c) of the block (counted from its
/// first row and column) at index(r, c); row r's kept pairs are consecutive from row_start(r).
struct BlockStorage {
  MatrixLayout layout;  ///< dense: row-major; condensed, symmetric: a diagonal block's kept pairs
  std::size_t cols;     ///< the block's columns (the row pitch of row-major storage)

  /// Index of pair (r, 0), where row r's kept pairs start.
  KOKKOS_INLINE_FUNCTION std::size_t row_start(std::size_t r) const {
    return Impl::layout_row_base(layout, r, cols);
  }
  /// Index of pair (r, c), a pair the storage keeps.
  KOKKOS_INLINE_FUNCTION std::size_t index(std::size_t r, std::size_t c) const {
    return row_start(r) + c;
  }
  /// Values that rows [0, rows) take.
  KOKKOS_INLINE_FUNCTION std::size_t size(std::size_t rows) const { return row_start(rows); }

  /// Row-major storage of a block of `cols` columns.
  static BlockStorage row_major(std::size_t cols) { return {MatrixLayout::dense, cols}; }
  /// How the pipeline stores block b of an output in `layout`: a diagonal block of a triangular
  /// layout packed (unless pack is false), every other block row-major.
  static BlockStorage of(const BlockInfo& b, MatrixLayout layout, bool pack = true) {
    const bool packed = pack && layout != MatrixLayout::dense && b.rows == b.cols;
    return {packed ? layout : MatrixLayout::dense, b.cols.size()};
  }
};

}  // namespace tessera
