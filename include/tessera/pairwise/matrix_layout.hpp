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

#include <cstddef>

namespace tessera {

/// How a pairwise call lays its kept pairs out in memory (see the file comment).
enum class MatrixLayout { condensed, symmetric, dense };

namespace Impl {
// The layouts' position arithmetic, defined in impl/layout_positions.hpp (included below).
KOKKOS_INLINE_FUNCTION std::size_t layout_row_offset(MatrixLayout layout, std::size_t i,
                                                     std::size_t n_cols);
KOKKOS_INLINE_FUNCTION std::size_t layout_index(MatrixLayout layout, std::size_t i, std::size_t j,
                                                std::size_t n_cols);
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

// The position arithmetic (layout_row_first, layout_row_offset, layout_index, layout_size,
// kept_in_block). Last, since it reads MatrixLayout: its header includes this one, so either
// header may come first.
#include <tessera/pairwise/impl/layout_positions.hpp>
