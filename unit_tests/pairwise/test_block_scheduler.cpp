// BlockScheduler and subdivide: the seed's examples exactly, coverage of every required pair
// exactly once for random shapes, budgets, hints and floors, and the rejected configurations.
#include <tessera/pairwise/block_scheduler.hpp>

#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace {

using tessera::Band;
using tessera::BlockScheduler;
using tessera::BlockTriangleMode;

std::vector<Band> bands(std::initializer_list<std::pair<std::size_t, std::size_t>> list) {
  std::vector<Band> out;
  for (const auto& [first, last] : list)
    out.push_back({first, last});
  return out;
}

tessera::BlockSchedulerConfig config(std::size_t elements, std::size_t hint,
                                     std::size_t floor = 0) {
  tessera::BlockSchedulerConfig c;
  c.max_output_elements = elements;
  c.n_splits_hint       = hint;
  c.min_block_side      = floor;
  return c;
}

TEST(Subdivide, SeedExamples) {
  EXPECT_EQ(tessera::subdivide(3, 10), bands({{0, 2}, {3, 5}, {6, 8}, {9, 9}}));
  EXPECT_EQ(tessera::subdivide(4, 8), bands({{0, 3}, {4, 7}}));
  EXPECT_EQ(tessera::subdivide(5, 3), bands({{0, 2}}));
  EXPECT_TRUE(tessera::subdivide(7, 0).empty());
  EXPECT_EQ(tessera::subdivide(1, 3), bands({{0, 0}, {1, 1}, {2, 2}}));
  tessera_test::expect_rejected<std::invalid_argument>([] { tessera::subdivide(0, 5); },
                                                       {"subdivide", "side is 0"});
}

TEST(BlockScheduler, SeedLowerTriangleNineByNine) {
  // side = floor(sqrt(36 / 4)) = 3: blocks A (0-2, 0-2), B (3-5, 0-2), C (3-5, 3-5),
  // D (6-8, 0-2), E (6-8, 3-5), F (6-8, 6-8); all 3 x 3, so the sort keeps grid order.
  const BlockScheduler s(9, 9, BlockTriangleMode::lower_triangle, config(36, 4));
  EXPECT_EQ(s.block_side(), 3u);
  EXPECT_EQ(s.row_bands(), bands({{0, 2}, {3, 5}, {6, 8}}));
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {{0, 0}, {3, 0}, {3, 3},
                                                                     {6, 0}, {6, 3}, {6, 6}};
  ASSERT_EQ(s.blocks().size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(s.blocks()[k].rows.first, expected[k].first) << "block " << k;
    EXPECT_EQ(s.blocks()[k].cols.first, expected[k].second) << "block " << k;
    EXPECT_EQ(s.blocks()[k].work(), 9u);
  }
  EXPECT_EQ(s.max_block_elements(), 9u);
}

TEST(BlockScheduler, SeedFullTwoByThree) {
  // side = floor(sqrt(4 / 1)) = 2: A = rows 0-1 x cols 0-1 (work 4), B = rows 0-1 x col 2 (2).
  const BlockScheduler s(2, 3, BlockTriangleMode::full, config(4, 1));
  EXPECT_EQ(s.block_side(), 2u);
  ASSERT_EQ(s.blocks().size(), 2u);
  EXPECT_EQ(s.blocks()[0].rows, (Band{0, 1}));
  EXPECT_EQ(s.blocks()[0].cols, (Band{0, 1}));
  EXPECT_EQ(s.blocks()[1].cols, (Band{2, 2}));
  EXPECT_EQ(s.blocks()[1].work(), 2u);
}

TEST(BlockScheduler, SortsByDescendingWorkAndAppliesTheFloor) {
  // side 4 over 10 rows: bands of 4, 4, 2; the 2-row band's blocks come last.
  const BlockScheduler s(10, 10, BlockTriangleMode::full, config(16, 1));
  ASSERT_EQ(s.blocks().size(), 9u);
  EXPECT_EQ(s.blocks().front().work(), 16u);
  EXPECT_EQ(s.blocks().back().work(), 4u);
  // The floor raises a side of 1 to 6, capped at max(rows, cols) = 10 and then at 10 itself.
  EXPECT_EQ(BlockScheduler(10, 7, BlockTriangleMode::full, config(1, 1, 6)).block_side(), 6u);
  EXPECT_EQ(BlockScheduler(10, 7, BlockTriangleMode::full, config(1, 1, 50)).block_side(), 10u);
  EXPECT_EQ(BlockScheduler(0, 0, BlockTriangleMode::lower_triangle, config(8, 1)).blocks().size(),
            0u);
}

TEST(BlockScheduler, EveryRequiredPairExactlyOnce) {
  std::mt19937 gen(5);
  const std::size_t sizes[] = {0, 1, 2, 7, 13, 31, 64, 97};
  for (int trial = 0; trial < 300; ++trial) {
    const bool lower        = trial % 2 == 0;
    const std::size_t rows  = sizes[gen() % 8];
    const std::size_t cols  = lower ? rows : sizes[gen() % 8];
    const std::size_t elems = 1 + gen() % 2000, hint = 1 + gen() % 40, floor = gen() % 12;
    const BlockScheduler s(rows, cols,
                           lower ? BlockTriangleMode::lower_triangle : BlockTriangleMode::full,
                           config(elems, hint, floor));
    std::vector<int> seen(rows * cols, 0);
    std::size_t previous = ~std::size_t(0), largest = 0;
    for (const auto& b : s.blocks()) {
      EXPECT_LE(b.work(), previous) << "blocks not sorted by descending work";
      previous = b.work();
      largest  = std::max(largest, b.work());
      ASSERT_LE(b.rows.last, rows - 1);
      ASSERT_LE(b.cols.last, cols - 1);
      for (std::size_t i = b.rows.first; i <= b.rows.last; ++i)
        for (std::size_t j = b.cols.first; j <= b.cols.last; ++j)
          ++seen[i * cols + j];
    }
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t j = 0; j < cols; ++j) {
        const int wanted = !lower || i >= j ? 1 : seen[i * cols + j] > 0;  // above: optional
        ASSERT_EQ(seen[i * cols + j], wanted) << "pair (" << i << ", " << j << ") of " << rows
                                              << " x " << cols << ", trial " << trial;
      }
    }
    EXPECT_EQ(s.max_block_elements(), largest);
    const std::size_t n = std::max(rows, cols);
    if (n > 0) {
      EXPECT_GE(s.block_side(), std::min(floor, n));
      EXPECT_LE(s.block_side(), n);
    }
  }
}

TEST(BlockScheduler, PairComputedFollowsTheSkipMode) {
  using tessera::TriangleSkipMode;
  using tessera::Impl::pair_computed;
  EXPECT_TRUE(pair_computed(TriangleSkipMode::none, 2, 5));
  EXPECT_TRUE(pair_computed(TriangleSkipMode::lower_triangle, 5, 5));
  EXPECT_FALSE(pair_computed(TriangleSkipMode::lower_triangle, 4, 5));
  EXPECT_FALSE(pair_computed(TriangleSkipMode::lower_triangle_skip_diag, 5, 5));
  EXPECT_TRUE(pair_computed(TriangleSkipMode::lower_triangle_skip_diag, 6, 5));
}

TEST(BlockScheduler, RejectsBadConfigurations) {
  using tessera_test::expect_rejected;
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(4, 4, BlockTriangleMode::full, config(0, 1)); },
      {"max_output_elements is 0"});
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(4, 4, BlockTriangleMode::full, config(8, 0)); }, {"n_splits_hint is 0"});
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(4, 5, BlockTriangleMode::lower_triangle, config(8, 1)); },
      {"square", "4 x 5"});
}

}  // namespace
