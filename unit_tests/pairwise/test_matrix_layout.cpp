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

TEST(MatrixLayout, RowBasesAndSizesOfEachLayout) {
  using tessera::Impl::layout_row_base;
  using tessera::Impl::layout_size;
  // condensed: rows 0, 1, 2, 3 start at 0, 0, 1, 3; symmetric: 0, 1, 3, 6; dense: 0, 7, 14, 21
  const std::size_t condensed[] = {0, 0, 1, 3}, symmetric[] = {0, 1, 3, 6};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(layout_row_base(MatrixLayout::condensed, i, 7), condensed[i]);
    EXPECT_EQ(layout_row_base(MatrixLayout::symmetric, i, 7), symmetric[i]);
    EXPECT_EQ(layout_row_base(MatrixLayout::dense, i, 7), 7 * i);
  }
  EXPECT_EQ(layout_size(MatrixLayout::condensed, 5, 5), 10u);
  EXPECT_EQ(layout_size(MatrixLayout::symmetric, 5, 5), 15u);
  EXPECT_EQ(layout_size(MatrixLayout::dense, 5, 3), 15u);
  EXPECT_EQ(layout_size(MatrixLayout::condensed, 0, 0), 0u);
}

TEST(BlockStorage, PacksOnlyDiagonalBlocksOfTriangularLayouts) {
  const BlockInfo diagonal = block(10, 5, 10, 5), below = block(15, 5, 10, 5);
  for (MatrixLayout layout : {MatrixLayout::condensed, MatrixLayout::symmetric}) {
    EXPECT_EQ(BlockStorage::of(diagonal, layout).layout, layout);
    EXPECT_EQ(BlockStorage::of(diagonal, layout, false).layout, MatrixLayout::dense);
    EXPECT_EQ(BlockStorage::of(below, layout).layout, MatrixLayout::dense);
  }
  EXPECT_EQ(BlockStorage::of(diagonal, MatrixLayout::dense).layout, MatrixLayout::dense);
  EXPECT_EQ(BlockStorage::of(below, MatrixLayout::condensed).cols, 5u);
}

TEST(BlockStorage, EveryKeptPairHasItsOwnSlotAndTheSlotsFillTheStorage) {
  // For each storage of an n x n diagonal block, the kept pairs (c < r, c <= r, or all) map
  // one to one onto [0, size(n)), row by row.
  for (std::size_t n : {1, 2, 3, 8, 37}) {
    for (MatrixLayout layout :
         {MatrixLayout::condensed, MatrixLayout::symmetric, MatrixLayout::dense}) {
      const BlockStorage s = BlockStorage::of(block(4, n, 4, n), layout);
      std::vector<int> hits(s.size(n), 0);
      std::size_t next = 0;
      for (std::size_t r = 0; r < n; ++r) {
        EXPECT_EQ(s.row_start(r), next);
        const std::size_t kept = layout == MatrixLayout::condensed   ? r
                                 : layout == MatrixLayout::symmetric ? r + 1
                                                                     : n;
        for (std::size_t c = 0; c < kept; ++c) {
          ASSERT_LT(s.index(r, c), hits.size());
          ++hits[s.index(r, c)];
        }
        next += kept;
      }
      EXPECT_EQ(next, s.size(n));
      for (int h : hits)
        ASSERT_EQ(h, 1);
    }
  }
}

TEST(BlockStorage, KeptInBlockCountsWhatTheOutputKeeps) {
  using tessera::Impl::kept_in_block;
  EXPECT_EQ(kept_in_block(MatrixLayout::condensed, block(0, 6, 0, 6)), 15u);
  EXPECT_EQ(kept_in_block(MatrixLayout::symmetric, block(0, 6, 0, 6)), 21u);
  EXPECT_EQ(kept_in_block(MatrixLayout::condensed, block(6, 3, 0, 6)), 18u);
  EXPECT_EQ(kept_in_block(MatrixLayout::dense, block(2, 3, 5, 4)), 12u);
}

}  // namespace
