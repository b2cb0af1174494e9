// BlockScheduler and subdivide: the seed's examples exactly, coverage of every required pair
// exactly once for random shapes, budgets, hints and floors, and the rejected configurations.
#include <tessera/pairwise/block_scheduler.hpp>

#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tessera {
// Readable failures: GoogleTest finds this by argument-dependent lookup (internal linkage, so no
// other translation unit is affected).
static void PrintTo(const Band& b, std::ostream* os) {
  *os << "[" << b.first << "," << b.last << "]";
}
}  // namespace tessera

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

/// floor(sqrt(x)) by exact integer search: step 1's reference.
std::size_t isqrt(std::size_t x) {
  std::size_t r = 0;
  while ((r + 1) * (r + 1) <= x)
    ++r;
  return r;
}

/// The block side of the file comment's step 1, computed independently.
std::size_t reference_side(std::size_t rows, std::size_t cols,
                           const tessera::BlockSchedulerConfig& c) {
  const std::size_t cap = std::max<std::size_t>(std::max(rows, cols), 1);
  std::size_t side =
      std::clamp<std::size_t>(isqrt(c.max_output_elements / c.n_splits_hint), 1, cap);
  return std::min(std::max(side, c.min_block_side), cap);
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

TEST(BlockScheduler, SeedNineByNineMirroredToTheUpperTriangle) {
  // side = floor(sqrt(36 / 4)) = 3: blocks A (0-2, 0-2), B (0-2, 3-5), C (0-2, 6-8),
  // D (3-5, 3-5), E (3-5, 6-8), F (6-8, 6-8) (the seed's lower-triangle blocks, transposed);
  // all 3 x 3, so the sort keeps grid order.
  const BlockScheduler s(9, 9, BlockTriangleMode::upper_triangle, config(36, 4));
  EXPECT_EQ(s.block_side(), 3u);
  EXPECT_EQ(s.row_bands(), bands({{0, 2}, {3, 5}, {6, 8}}));
  EXPECT_EQ(s.col_bands(), bands({{0, 2}, {3, 5}, {6, 8}}));
  const Band b0{0, 2}, b1{3, 5}, b2{6, 8};
  const std::vector<std::pair<Band, Band>> expected = {{b0, b0}, {b0, b1}, {b0, b2},
                                                       {b1, b1}, {b1, b2}, {b2, b2}};
  ASSERT_EQ(s.blocks().size(), expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(s.blocks()[k].rows, expected[k].first) << "block " << k;
    EXPECT_EQ(s.blocks()[k].cols, expected[k].second) << "block " << k;
    EXPECT_EQ(s.blocks()[k].work(), 9u);
  }
  EXPECT_EQ(s.max_block_elements(), 9u);
  EXPECT_EQ(s.rows(), 9u);
  EXPECT_EQ(s.cols(), 9u);
  EXPECT_EQ(s.mode(), BlockTriangleMode::upper_triangle);
  // The same grid from a one-block budget of 9 elements, and in full mode all 9 blocks.
  EXPECT_EQ(BlockScheduler(9, 9, BlockTriangleMode::upper_triangle, config(9, 1)).blocks().size(),
            6u);
  EXPECT_EQ(BlockScheduler(9, 9, BlockTriangleMode::full, config(9, 1)).blocks().size(), 9u);
}

TEST(BlockScheduler, SeedFullTwoByThree) {
  // side = floor(sqrt(4 / 1)) = 2: A = rows 0-1 x cols 0-1 (work 4), B = rows 0-1 x col 2 (2).
  const BlockScheduler s(2, 3, BlockTriangleMode::full, config(4, 1));
  EXPECT_EQ(s.block_side(), 2u);
  ASSERT_EQ(s.blocks().size(), 2u);
  EXPECT_EQ(s.blocks()[0].rows, (Band{0, 1}));
  EXPECT_EQ(s.blocks()[0].cols, (Band{0, 1}));
  EXPECT_EQ(s.blocks()[1].rows, (Band{0, 1}));
  EXPECT_EQ(s.blocks()[1].cols, (Band{2, 2}));
  EXPECT_EQ(s.blocks()[0].work(), 4u);
  EXPECT_EQ(s.blocks()[1].work(), 2u);
  EXPECT_EQ(s.row_bands(), bands({{0, 1}}));
  EXPECT_EQ(s.col_bands(), bands({{0, 1}, {2, 2}}));
  EXPECT_EQ(s.max_block_elements(), 4u);
  EXPECT_EQ(s.mode(), BlockTriangleMode::full);
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
  EXPECT_EQ(BlockScheduler(0, 0, BlockTriangleMode::upper_triangle, config(8, 1)).blocks().size(),
            0u);
}

TEST(BlockScheduler, EveryRequiredPairExactlyOnce) {
  std::mt19937 gen(5);
  const std::size_t sizes[] = {0, 1, 2, 7, 13, 31, 64, 97};
  for (int trial = 0; trial < 300; ++trial) {
    const bool upper        = trial % 2 == 0;
    const std::size_t rows  = sizes[gen() % 8];
    const std::size_t cols  = upper ? rows : sizes[gen() % 8];
    const std::size_t elems = 1 + gen() % 2000, hint = 1 + gen() % 40, floor = gen() % 12;
    const BlockScheduler s(rows, cols,
                           upper ? BlockTriangleMode::upper_triangle : BlockTriangleMode::full,
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
        const int wanted = !upper || i <= j ? 1 : seen[i * cols + j] > 0;  // below: optional
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
  EXPECT_TRUE(pair_computed(TriangleSkipMode::upper_triangle, 5, 5));
  EXPECT_FALSE(pair_computed(TriangleSkipMode::upper_triangle, 5, 4));
  EXPECT_FALSE(pair_computed(TriangleSkipMode::upper_triangle_skip_diag, 5, 5));
  EXPECT_TRUE(pair_computed(TriangleSkipMode::upper_triangle_skip_diag, 5, 6));
}

TEST(BlockScheduler, RejectsBadConfigurations) {
  using tessera_test::expect_rejected;
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(4, 4, BlockTriangleMode::full, config(0, 1)); },
      {"max_output_elements is 0"});
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(4, 4, BlockTriangleMode::full, config(8, 0)); }, {"n_splits_hint is 0"});
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(4, 5, BlockTriangleMode::upper_triangle, config(8, 1)); },
      {"square", "4 x 5"});
}

TEST(Subdivide, ConsecutiveBandsOfSideWithTheRemainderLast) {
  for (std::size_t side = 1; side <= 13; ++side) {
    for (std::size_t n = 0; n <= 50; ++n) {
      const auto b = tessera::subdivide(side, n);
      ASSERT_EQ(b.size(), (n + side - 1) / side) << "side " << side << ", n " << n;
      std::size_t next = 0;
      for (std::size_t k = 0; k < b.size(); ++k) {
        ASSERT_EQ(b[k].first, next) << "side " << side << ", n " << n << ", band " << k;
        ASSERT_EQ(b[k].size(), k + 1 < b.size() ? side : n - side * k)
            << "side " << side << ", n " << n << ", band " << k;
        next = b[k].last + 1;
      }
      ASSERT_EQ(next, n) << "side " << side << ", n " << n;
    }
  }
  // Large extents: two bands, the second one index shorter.
  const std::size_t big = std::size_t(1) << 40;
  EXPECT_EQ(tessera::subdivide(big / 2 + 1, big), bands({{0, big / 2}, {big / 2 + 1, big - 1}}));
  EXPECT_EQ(tessera::subdivide(big, big), bands({{0, big - 1}}));
  EXPECT_EQ(tessera::subdivide(big, 1), bands({{0, 0}}));
}

// The last band starting within `side` of SIZE_MAX (first + side would wrap).
TEST(Subdivide, LastBandNearSizeMax) {
  const std::size_t max  = std::numeric_limits<std::size_t>::max();
  const std::size_t half = std::size_t(1) << 63;
  EXPECT_EQ(tessera::subdivide(max - 1, max), bands({{0, max - 2}, {max - 1, max - 1}}));
  EXPECT_EQ(tessera::subdivide(half, max), bands({{0, half - 1}, {half, max - 1}}));
}

TEST(BlockScheduler, MatchesTheThreeStepsForRandomConfigurations) {
  std::mt19937 gen(11);
  const std::size_t sizes[] = {0, 1, 2, 3, 5, 11, 17, 37, 64, 101, 127};
  const std::size_t n_sizes = sizeof(sizes) / sizeof(sizes[0]);
  for (int trial = 0; trial < 600; ++trial) {
    const bool upper       = trial % 3 != 0;
    const std::size_t rows = sizes[gen() % n_sizes];
    const std::size_t cols = upper ? rows : sizes[gen() % n_sizes];
    // Budgets from 1 to 2^20 elements (log-uniform), so that sides from 1 to past the matrix occur.
    const auto c    = config(1 + gen() % (std::size_t(1) << (gen() % 21)), 1 + gen() % 100,
                          trial % 4 == 0 ? 0 : gen() % 130);
    const auto mode = upper ? BlockTriangleMode::upper_triangle : BlockTriangleMode::full;
    const BlockScheduler s(rows, cols, mode, c);
    const std::string what =
        "trial " + std::to_string(trial) + ": " + std::to_string(rows) + " x " +
        std::to_string(cols) + ", budget " + std::to_string(c.max_output_elements) + ", hint " +
        std::to_string(c.n_splits_hint) + ", floor " + std::to_string(c.min_block_side);

    // Step 1 and step 2.
    const std::size_t side = reference_side(rows, cols, c);
    ASSERT_EQ(s.block_side(), side) << what;
    ASSERT_EQ(s.row_bands(), tessera::subdivide(side, rows)) << what;
    ASSERT_EQ(s.col_bands(), tessera::subdivide(side, cols)) << what;

    // Step 3: exactly the grid's blocks that reach the upper triangle (all of them in full
    // mode), each once.
    std::vector<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>> expected, got;
    for (const Band& r : s.row_bands())
      for (const Band& col : s.col_bands())
        if (!upper || col.last >= r.first)
          expected.emplace_back(r.first, r.last, col.first, col.last);
    for (const auto& b : s.blocks())
      got.emplace_back(b.rows.first, b.rows.last, b.cols.first, b.cols.last);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, expected) << what;

    // Order: non-increasing work, equal work in row-major grid order.
    std::size_t largest = 0;
    for (std::size_t k = 0; k < s.blocks().size(); ++k) {
      const auto& b = s.blocks()[k];
      largest       = std::max(largest, b.work());
      EXPECT_LE(b.work(), side * side) << what;
      if (k == 0) continue;
      const auto& a = s.blocks()[k - 1];
      ASSERT_GE(a.work(), b.work()) << what << ", block " << k;
      if (a.work() == b.work()) {
        ASSERT_LT(std::make_pair(a.rows.first, a.cols.first),
                  std::make_pair(b.rows.first, b.cols.first))
            << what << ", block " << k;
      }
    }
    EXPECT_EQ(s.max_block_elements(), largest) << what;
    if (rows > 0 && cols > 0) {
      EXPECT_EQ(largest, std::min(side, rows) * std::min(side, cols)) << what;
    } else {
      EXPECT_TRUE(s.blocks().empty()) << what;
    }
  }
}

TEST(BlockScheduler, PairComputedForEveryPairOfASmallGrid) {
  using tessera::TriangleSkipMode;
  using tessera::Impl::pair_computed;
  for (std::size_t i = 0; i < 7; ++i) {
    for (std::size_t j = 0; j < 7; ++j) {
      EXPECT_TRUE(pair_computed(TriangleSkipMode::none, i, j)) << i << ", " << j;
      EXPECT_EQ(pair_computed(TriangleSkipMode::upper_triangle, i, j), i <= j) << i << ", " << j;
      EXPECT_EQ(pair_computed(TriangleSkipMode::upper_triangle_skip_diag, i, j), i < j)
          << i << ", " << j;
    }
  }
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  EXPECT_TRUE(pair_computed(TriangleSkipMode::upper_triangle_skip_diag, max - 1, max));
  EXPECT_FALSE(pair_computed(TriangleSkipMode::upper_triangle_skip_diag, max, 0));
  EXPECT_TRUE(pair_computed(TriangleSkipMode::upper_triangle, max, max));

  // Over the blocks of an upper-triangle schedule (13 x 13, side 4: bands 4, 4, 4, 1), each skip
  // mode computes exactly its pairs: n (n + 1) / 2 with the diagonal, n (n - 1) / 2 without.
  const std::size_t n = 13;
  const BlockScheduler s(n, n, BlockTriangleMode::upper_triangle, config(16, 1));
  ASSERT_EQ(s.block_side(), 4u);
  ASSERT_EQ(s.blocks().size(), 10u);
  std::size_t with_diag = 0, without_diag = 0, all = 0;
  for (const auto& b : s.blocks()) {
    for (std::size_t i = b.rows.first; i <= b.rows.last; ++i) {
      for (std::size_t j = b.cols.first; j <= b.cols.last; ++j) {
        with_diag += pair_computed(TriangleSkipMode::upper_triangle, i, j);
        without_diag += pair_computed(TriangleSkipMode::upper_triangle_skip_diag, i, j);
        all += pair_computed(TriangleSkipMode::none, i, j);
      }
    }
  }
  EXPECT_EQ(with_diag, n * (n + 1) / 2);
  EXPECT_EQ(without_diag, n * (n - 1) / 2);
  EXPECT_EQ(all, 6u * 16u + 3u * 4u + 1u);  // 6 blocks of 4 x 4, 3 of 4 x 1, 1 of 1 x 1
}

TEST(BlockScheduler, RejectsEveryNonSquareUpperTriangle) {
  using tessera_test::expect_rejected;
  for (const auto& shape :
       std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {1, 0}, {7, 8}, {13, 2}}) {
    const std::size_t r = shape.first, c = shape.second;  // captured below (C++17)
    expect_rejected<std::invalid_argument>(
        [&] { BlockScheduler(r, c, BlockTriangleMode::upper_triangle, config(100, 3)); },
        {"tessera::BlockScheduler", "square", std::to_string(r) + " x " + std::to_string(c)});
    EXPECT_EQ(BlockScheduler(r, c, BlockTriangleMode::full, config(100, 3)).rows(), r);
  }
  // A zero budget or hint is rejected whatever the shape, an empty matrix included.
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(0, 0, BlockTriangleMode::upper_triangle, config(0, 1)); },
      {"tessera::BlockScheduler", "max_output_elements is 0"});
  expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(0, 3, BlockTriangleMode::full, config(5, 0)); },
      {"tessera::BlockScheduler", "n_splits_hint is 0"});
}

// share() deals the blocks over parts: every block to exactly one part, in the schedule's order,
// each part's work within the largest block of the mean (greedy dealing of blocks sorted by
// descending work); more parts than blocks leave some parts empty.
TEST(BlockScheduler, ShareDealsEveryBlockOnceAndBalancesTheWork) {
  for (const auto mode : {BlockTriangleMode::upper_triangle, BlockTriangleMode::full}) {
    const BlockScheduler all(103, 103, mode, config(17 * 17, 1));
    const std::size_t largest = all.blocks().front().work();
    for (std::size_t parts : {1, 2, 3, 7, 1000}) {
      std::vector<int> seen(all.blocks().size(), 0);
      std::size_t most = 0, least = ~std::size_t{0};
      for (std::size_t part = 0; part < parts; ++part) {
        const BlockScheduler mine = all.share(part, parts);
        EXPECT_EQ(mine.block_side(), all.block_side());
        EXPECT_EQ(mine.rows(), all.rows());
        std::size_t work = 0, at = 0;
        for (const tessera::BlockInfo& b : mine.blocks()) {
          work += b.work();
          while (at < all.blocks().size() &&
                 !(all.blocks()[at].rows == b.rows && all.blocks()[at].cols == b.cols)) {
            ++at;  // the share keeps the schedule's order
          }
          ASSERT_LT(at, all.blocks().size())
              << "a block that is not in the schedule, or out of order";
          ++seen[at];
        }
        most  = std::max(most, work);
        least = std::min(least, work);
      }
      for (std::size_t k = 0; k < seen.size(); ++k)
        EXPECT_EQ(seen[k], 1) << "block " << k << " with " << parts << " parts";
      EXPECT_LE(most - least, largest) << parts << " parts";
    }
  }
  tessera_test::expect_rejected<std::invalid_argument>(
      [] { BlockScheduler(5, 5, BlockTriangleMode::full, config(4, 1)).share(2, 2); },
      {"tessera::BlockScheduler::share", "part (got 2) must be below parts (got 2)"});
}

}  // namespace
