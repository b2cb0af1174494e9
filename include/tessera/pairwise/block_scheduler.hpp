// BlockScheduler: cuts an n_rows x n_cols pairwise matrix into blocks that fit a memory budget
// (masspcf's CudaBlockScheduler, step for step).
//
//   1. Block side: elements_per_block = max_output_elements / n_splits_hint,
//      side = floor(sqrt(elements_per_block)), clamped to [1, max(n_rows, n_cols)], then raised
//      to min_block_side (the occupancy floor) and capped at max(n_rows, n_cols) again.
//   2. Bands: subdivide(side, n_rows) and subdivide(side, n_cols) independently; the last band
//      of each takes the remainder.
//   3. Grid: every (row band, column band) is a block; in upper_triangle mode a block whose
//      columns all lie below the diagonal (cols.last < rows.first) is dropped. Blocks are sorted
//      by descending work (rows x cols; ties keep row-major grid order).
//
// masspcf computes the lower triangle; Tessera computes the upper one (pairs i < j, F(X_i, X_j)),
// whose rows, read in order, are scipy's condensed distance vector (matrix_layout.hpp).
#pragma once

#include <tessera/core/impl/errors.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace tessera {

/// Which blocks of the grid a pairwise operation needs.
enum class BlockTriangleMode {
  upper_triangle,  ///< symmetric operations (pdist, l2_kernel): n_rows == n_cols, i <= j only
  full,            ///< cross operations (cdist): every (i, j)
};

/// Which pairs of a block a kernel computes (masspcf's TriangleSkipMode, on the upper triangle).
enum class TriangleSkipMode {
  none,                      ///< every (i, j): cdist
  upper_triangle,            ///< i <= j: kernel matrices (l2_kernel)
  upper_triangle_skip_diag,  ///< i < j: distance matrices (pdist)
};

namespace Impl {
/// True when pair (i, j) (global indices) is one that a kernel with this skip mode computes.
KOKKOS_INLINE_FUNCTION bool pair_computed(TriangleSkipMode skip, std::size_t i, std::size_t j) {
  return skip == TriangleSkipMode::none || i < j ||
         (skip == TriangleSkipMode::upper_triangle && i == j);
}
}  // namespace Impl

/// A band of consecutive indices [first, last] (inclusive, as the seed writes them).
struct Band {
  std::size_t first = 0;  ///< first index of the band
  std::size_t last  = 0;  ///< last index of the band (included)
  /// Number of indices: last - first + 1.
  KOKKOS_INLINE_FUNCTION std::size_t size() const { return last - first + 1; }
  /// True when both bands have the same first and last index.
  friend bool operator==(const Band& a, const Band& b) {
    return a.first == b.first && a.last == b.last;
  }
};

/// One block of the matrix: rows x cols.
struct BlockInfo {
  Band rows;  ///< the matrix rows of the block
  Band cols;  ///< the matrix columns of the block
  /// Pairs in the block: rows.size() * cols.size().
  KOKKOS_INLINE_FUNCTION std::size_t work() const { return rows.size() * cols.size(); }
};

/// [0, n) in consecutive bands of `side` indices, the last band taking what remains:
/// subdivide(3, 10) = [0,2] [3,5] [6,8] [9,9]; subdivide(5, 3) = [0,2]; subdivide(side, 0) = {}.
/// Throws std::invalid_argument for side = 0.
inline std::vector<Band> subdivide(std::size_t side, std::size_t n) {
  Impl::require(side > 0, "subdivide", "side is 0 (expected at least 1)");
  std::vector<Band> bands;
  bands.reserve(n / side + 1);
  for (std::size_t first = 0; first < n; first += side) {
    const std::size_t left = n - first;  // never overflows, unlike first + side near SIZE_MAX
    bands.push_back({first, first + std::min(side, left) - 1});
    if (left <= side) break;
  }
  return bands;
}

/// The scheduler's inputs besides the matrix shape.
struct BlockSchedulerConfig {
  /// Output elements one block may hold (the memory budget, in scalars); at least 1.
  std::size_t max_output_elements = 0;
  /// Blocks the budget is split into (more, smaller blocks overlap better); at least 1.
  std::size_t n_splits_hint = 1;
  /// Occupancy floor on the block side (0: none); see PairwiseOptions::min_block_side.
  std::size_t min_block_side = 0;
};

/// The blocks of an n_rows x n_cols matrix, largest first (see the file comment). Throws
/// std::invalid_argument for a zero budget or hint, or for upper_triangle with n_rows != n_cols.
/// O(blocks log blocks) host work.
class BlockScheduler {
 public:
  /// Schedules the blocks of an n_rows x n_cols matrix as steps 1 to 3 of the file comment say.
  BlockScheduler(std::size_t n_rows, std::size_t n_cols, BlockTriangleMode mode,
                 const BlockSchedulerConfig& config)
      : n_rows_(n_rows), n_cols_(n_cols), mode_(mode) {
    Impl::require(config.max_output_elements > 0, "BlockScheduler",
                  "max_output_elements is 0 (expected at least 1)");
    Impl::require(config.n_splits_hint > 0, "BlockScheduler",
                  "n_splits_hint is 0 (expected at least 1)");
    if (mode == BlockTriangleMode::upper_triangle && n_rows != n_cols) {
      throw std::invalid_argument(
          Impl::concat("tessera::BlockScheduler: upper_triangle needs a square matrix (got ",
                       n_rows, " x ", n_cols, ")"));
    }
    const std::size_t n_max     = std::max(n_rows, n_cols);
    const std::size_t per_block = config.max_output_elements / config.n_splits_hint;
    std::size_t side = static_cast<std::size_t>(std::sqrt(static_cast<double>(per_block)));
    while (side > 0 && side > per_block / side)
      --side;  // floor(sqrt) exactly, past rounding
    while ((side + 1) <= per_block / (side + 1))
      ++side;
    side  = std::clamp<std::size_t>(side, 1, std::max<std::size_t>(n_max, 1));
    side  = std::max(side, config.min_block_side);
    side_ = std::min(side, std::max<std::size_t>(n_max, 1));

    row_bands_ = subdivide(side_, n_rows);
    col_bands_ = subdivide(side_, n_cols);
    for (const Band& r : row_bands_) {
      for (const Band& c : col_bands_) {
        if (mode == BlockTriangleMode::upper_triangle && c.last < r.first) continue;
        blocks_.push_back({r, c});
      }
    }
    std::stable_sort(blocks_.begin(), blocks_.end(),
                     [](const BlockInfo& a, const BlockInfo& b) { return a.work() > b.work(); });
  }

  /// Rows of the matrix (n_rows).
  std::size_t rows() const { return n_rows_; }
  /// Columns of the matrix (n_cols).
  std::size_t cols() const { return n_cols_; }
  /// Which blocks of the grid the schedule holds.
  BlockTriangleMode mode() const { return mode_; }
  /// The block side chosen in step 1.
  std::size_t block_side() const { return side_; }
  /// The row bands of step 2.
  const std::vector<Band>& row_bands() const { return row_bands_; }
  /// The column bands of step 2.
  const std::vector<Band>& col_bands() const { return col_bands_; }
  /// The blocks, largest first.
  const std::vector<BlockInfo>& blocks() const { return blocks_; }
  /// The blocks dealt to `part` of `parts` (a rank's share of a distributed call): the blocks,
  /// largest first, go one by one to the part with the least work so far (the lowest part on
  /// ties), so that every part gets about 1 / parts of the work; the share keeps the grid (bands,
  /// side) and its blocks' order. The same on every rank for the same schedule. Throws
  /// std::invalid_argument unless part < parts.
  BlockScheduler share(std::size_t part, std::size_t parts) const {
    Impl::require(part < parts, "BlockScheduler::share", "part (got ", part,
                  ") must be below parts (got ", parts, ")");
    std::vector<std::size_t> load(parts, 0);
    BlockScheduler mine = *this;
    mine.blocks_.clear();
    for (const BlockInfo& b : blocks_) {
      const std::size_t least =
          static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      load[least] += b.work();
      if (least == part) mine.blocks_.push_back(b);
    }
    return mine;
  }

  /// Largest rows x cols of any block (what a block buffer must hold).
  std::size_t max_block_elements() const {
    std::size_t m = 0;
    for (const auto& b : blocks_)
      m = std::max(m, b.work());
    return m;
  }

 private:
  std::size_t n_rows_, n_cols_;
  BlockTriangleMode mode_;
  std::size_t side_ = 1;
  std::vector<Band> row_bands_, col_bands_;
  std::vector<BlockInfo> blocks_;
};

}  // namespace tessera
