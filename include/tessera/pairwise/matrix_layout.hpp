// Matrix layouts: where the kept pairs of a pairwise output lie in a flat array, and where a
// block's values lie in the pipeline's block buffer.
//
// A layout maps the kept pairs (i, j) of an n_rows x n_cols matrix, row by row, to consecutive
// positions of a flat array; row i keeps the columns [first(i), n_cols):
//   condensed  (pdist)      i < j,  first(i) = i + 1, position n i - i (i + 1) / 2 + j - i - 1,
//                                   n (n - 1) / 2 values: scipy's condensed distance vector, the
//                                   upper triangle row by row, which
//                                   scipy.spatial.distance.squareform() expands;
//   symmetric  (l2_kernel)  i <= j, first(i) = i,     position n i - i (i - 1) / 2 + j - i,
//                                   n (n + 1) / 2 values: the upper triangle with the diagonal
//                                   row by row, numpy's np.triu_indices(n) order (LAPACK's
//                                   packed storage of the lower triangle, 'L', column by
//                                   column). A numpy reader:
//                                     M = np.empty((n, n)); M[np.triu_indices(n)] = v
//                                     M.T[np.triu_indices(n)] = v
//   dense      (cdist)      all,    first(i) = 0,     position i n_cols + j (row-major; the
//                                   shape (*X.shape, *Y.shape) has the same layout).
// Position = offset(i) + j - first(i), where offset(i), row i's first position, depends on n.
//
// A block (rows x cols pairs of the matrix, BlockInfo) is computed into a buffer as a BlockStorage
// says: row-major, except a diagonal block of a triangular output (its rows and columns the same
// band), which is stored as a small matrix of the output's own layout, its kept pairs alone: the
// pairs below the diagonal, half of the block, are never downloaded or written.
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace tessera {

/// How a pairwise call lays its kept pairs out in memory (see the file comment).
enum class MatrixLayout { condensed, symmetric, dense };

namespace Impl {

/// First kept column of row i (see the file comment); the row keeps every column from there on.
KOKKOS_INLINE_FUNCTION std::size_t layout_row_first(MatrixLayout layout, std::size_t i) {
  switch (layout) {
    case MatrixLayout::condensed:
      return i + 1;
    case MatrixLayout::symmetric:
      return i;
    default:
      return 0;
  }
}

/// Position of pair (i, layout_row_first(i)) in an output of n_cols columns, i <= n_cols for the
/// triangular layouts: the values that rows [0, i) keep.
KOKKOS_INLINE_FUNCTION std::size_t layout_row_offset(MatrixLayout layout, std::size_t i,
                                                     std::size_t n_cols) {
  // Rows 0, 1, ... keep n - 1, n - 2, ... (condensed) or n, n - 1, ... (symmetric) values; the
  // products are even, and at most n (n + 1), which layout_size checks.
  switch (layout) {
    case MatrixLayout::condensed:
      return i * (2 * n_cols - i - 1) / 2;
    case MatrixLayout::symmetric:
      return i * (2 * n_cols - i + 1) / 2;
    default:
      return i * n_cols;
  }
}

/// Position of pair (i, j), a pair the layout keeps, in an output of n_cols columns.
KOKKOS_INLINE_FUNCTION std::size_t layout_index(MatrixLayout layout, std::size_t i, std::size_t j,
                                                std::size_t n_cols) {
  return layout_row_offset(layout, i, n_cols) + (j - layout_row_first(layout, i));
}

/// Values an output of the layout holds (a triangular one: of n_rows x n_rows pairs); throws
/// std::length_error on overflow.
inline std::size_t layout_size(MatrixLayout layout, std::size_t n_rows, std::size_t n_cols) {
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  const bool dense      = layout == MatrixLayout::dense;
  if (dense ? n_cols != 0 && n_rows > max / n_cols : n_rows > 0 && n_rows + 1 > max / n_rows) {
    throw std::length_error("tessera::pairwise: the output size overflows std::size_t");
  }
  return layout_row_offset(layout, n_rows, dense ? n_cols : n_rows);
}

/// Values of a block that the layout keeps.
inline std::size_t kept_in_block(MatrixLayout layout, const BlockInfo& b) {
  std::size_t kept = 0;
  for (std::size_t i = b.rows.first; i <= b.rows.last; ++i) {
    const std::size_t first = std::max(layout_row_first(layout, i), b.cols.first);
    kept += b.cols.last + 1 > first ? b.cols.last + 1 - first : 0;
  }
  return kept;
}

}  // namespace Impl

/// Where the values of one block lie in its buffer: pair (r, c) of the block (counted from its
/// first row and column) at index(r, c); row r's kept pairs are consecutive from row_start(r).
struct BlockStorage {
  MatrixLayout layout;  ///< dense: row-major; condensed, symmetric: a diagonal block's kept pairs
  std::size_t cols;     ///< the block's columns (the row pitch of row-major storage)

  /// Index of row r's first kept pair.
  KOKKOS_INLINE_FUNCTION std::size_t row_start(std::size_t r) const {
    return Impl::layout_row_offset(layout, r, cols);
  }
  /// Index of pair (r, c), a pair the storage keeps.
  KOKKOS_INLINE_FUNCTION std::size_t index(std::size_t r, std::size_t c) const {
    return Impl::layout_index(layout, r, c, cols);
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
