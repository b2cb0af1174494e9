// The pipeline's planning helpers: chunks of a block's rows, staging size and block order.
#include <tessera/pairwise/impl/block_pipeline.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

namespace {

using tessera::Band;
using tessera::BlockInfo;
using tessera::BlockStorage;
using tessera::MatrixLayout;
using tessera::Impl::chunk_end;

TEST(BlockPipeline, ChunksCoverTheRowsWithTheMostThatFitTheStaging) {
  std::mt19937 gen(5);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + gen() % 60, staging = gen() % 200;
    const MatrixLayout layout =
        trial % 3 == 0 ? MatrixLayout::dense
                       : (trial % 3 == 1 ? MatrixLayout::condensed : MatrixLayout::symmetric);
    const BlockStorage s = BlockStorage::of(BlockInfo{Band{0, n - 1}, Band{0, n - 1}}, layout);
    std::size_t r = 0, chunks = 0;
    while (r < n) {
      const std::size_t e = chunk_end(s, r, n, staging);
      ASSERT_GT(e, r);
      ASSERT_LE(e, n);
      const std::size_t values = s.row_start(e) - s.row_start(r);
      // Within the staging buffer, or a single row; and one more row would not fit.
      EXPECT_TRUE(values <= staging || e == r + 1) << n << " " << staging << " " << r;
      if (e < n) EXPECT_GT(s.row_start(e + 1) - s.row_start(r), staging);
      EXPECT_LE(values, tessera::Impl::staging_elements({BlockInfo{Band{0, n - 1}, Band{0, n - 1}}},
                                                        staging));
      r = e;
      ++chunks;
    }
    EXPECT_EQ(r, n);
    if (staging >= s.size(n)) EXPECT_EQ(chunks, 1u);
  }
}

TEST(BlockPipeline, RunsTheSmallestBlockFirstThenTheOthersInOrder) {
  using tessera::Impl::pipeline_order;
  EXPECT_TRUE(pipeline_order({}).empty());
  const std::vector<BlockInfo> blocks(4);
  EXPECT_EQ(pipeline_order({blocks[0]}), (std::vector<std::size_t>{0}));
  EXPECT_EQ(pipeline_order(blocks), (std::vector<std::size_t>{3, 0, 1, 2}));
}

}  // namespace
