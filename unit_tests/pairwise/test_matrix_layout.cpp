// Matrix layouts and block storage: positions of kept pairs in outputs and in block buffers.
#include <tessera/pairwise/matrix_layout.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace {

using tessera::Band;
using tessera::BlockInfo;
using tessera::BlockStorage;
using tessera::MatrixLayout;

/// Block with rows [r0, r0 + rows) and columns [c0, c0 + cols).
BlockInfo block(std::size_t r0, std::size_t rows, std::size_t c0, std::size_t cols) {
  return BlockInfo{Band{r0, r0 + rows - 1}, Band{c0, c0 + cols - 1}};
}

/// True when the layout keeps pair (i, j): i < j (condensed), i <= j (symmetric), all (dense).
bool kept(MatrixLayout layout, std::size_t i, std::size_t j) {
  return layout == MatrixLayout::condensed   ? i < j
         : layout == MatrixLayout::symmetric ? i <= j
                                             : true;
}

TEST(MatrixLayout, CondensedIsScipysFormulaAndSymmetricIsTriuIndicesOrder) {
  using tessera::Impl::layout_index;
  using tessera::Impl::layout_size;
  // scipy.spatial.distance.squareform: pair i < j at n i - i (i + 1) / 2 + j - i - 1 (evaluated
  // in double here, as an independent computation); np.triu_indices(n): pairs i <= j counted row
  // by row.
  for (std::size_t n : {0, 1, 2, 3, 37, 1001}) {
    std::size_t triu = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i; j < n; ++j) {
        if (j > i) {
          const double scipy =
              double(n) * double(i) - double(i) * double(i + 1) / 2 + double(j) - double(i) - 1;
          ASSERT_EQ(double(layout_index(MatrixLayout::condensed, i, j, n)), scipy)
              << "n " << n << ", pair (" << i << ", " << j << ")";
        }
        ASSERT_EQ(layout_index(MatrixLayout::symmetric, i, j, n), triu++)
            << "n " << n << ", pair (" << i << ", " << j << ")";
      }
    }
    EXPECT_EQ(layout_size(MatrixLayout::condensed, n, n), n * (n - (n > 0)) / 2);
    EXPECT_EQ(layout_size(MatrixLayout::symmetric, n, n), triu);
  }
  EXPECT_EQ(layout_index(MatrixLayout::dense, 3, 4, 7), 25u);
  EXPECT_EQ(layout_size(MatrixLayout::dense, 5, 3), 15u);
}

TEST(BlockStorage, PacksOnlyDiagonalBlocksOfTriangularLayouts) {
  const BlockInfo diagonal = block(10, 5, 10, 5), above = block(10, 5, 15, 5);
  for (MatrixLayout layout : {MatrixLayout::condensed, MatrixLayout::symmetric}) {
    EXPECT_EQ(BlockStorage::of(diagonal, layout).layout, layout);
    EXPECT_EQ(BlockStorage::of(diagonal, layout, false).layout, MatrixLayout::dense);
    EXPECT_EQ(BlockStorage::of(above, layout).layout, MatrixLayout::dense);
  }
  EXPECT_EQ(BlockStorage::of(diagonal, MatrixLayout::dense).layout, MatrixLayout::dense);
  EXPECT_EQ(BlockStorage::of(above, MatrixLayout::condensed).cols, 5u);
}

TEST(BlockStorage, EveryKeptPairHasItsOwnSlotRowByRowInTheOutputsOrder) {
  // For each storage of an n x n diagonal block, the kept pairs (c > r, c >= r, or all) map one
  // to one onto [0, size(n)), consecutively in the order of the output's own layout.
  for (std::size_t n : {1, 2, 3, 8, 37}) {
    for (MatrixLayout layout :
         {MatrixLayout::condensed, MatrixLayout::symmetric, MatrixLayout::dense}) {
      const BlockStorage s = BlockStorage::of(block(4, n, 4, n), layout);
      std::size_t next     = 0;
      for (std::size_t r = 0; r < n; ++r) {
        EXPECT_EQ(s.row_start(r), next);
        for (std::size_t c = 0; c < n; ++c) {
          if (kept(layout, r, c)) ASSERT_EQ(s.index(r, c), next++) << r << ", " << c;
        }
      }
      EXPECT_EQ(next, s.size(n));
    }
  }
}

TEST(BlockStorage, KeptInBlockCountsWhatTheOutputKeeps) {
  using tessera::Impl::kept_in_block;
  EXPECT_EQ(kept_in_block(MatrixLayout::condensed, block(0, 6, 0, 6)), 15u);
  EXPECT_EQ(kept_in_block(MatrixLayout::symmetric, block(0, 6, 0, 6)), 21u);
  EXPECT_EQ(kept_in_block(MatrixLayout::condensed, block(0, 6, 6, 3)), 18u);
  EXPECT_EQ(kept_in_block(MatrixLayout::condensed, block(6, 3, 0, 6)), 0u);   // below: none
  EXPECT_EQ(kept_in_block(MatrixLayout::symmetric, block(2, 4, 3, 5)), 17u);  // straddling
  EXPECT_EQ(kept_in_block(MatrixLayout::dense, block(2, 3, 5, 4)), 12u);
}

}  // namespace
