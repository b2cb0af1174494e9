// The position arithmetic of the matrix layouts (matrix_layout.hpp describes them): a row's
// first kept column and first position, a pair's position, an output's size and the values a
// block keeps. Included at the end of matrix_layout.hpp, whose BlockStorage reads them.
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/matrix_layout.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>

namespace tessera {
namespace Impl {

/// First kept column of row i (see matrix_layout.hpp); the row keeps every column from there on.
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
}  // namespace tessera
