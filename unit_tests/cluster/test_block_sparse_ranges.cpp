// tessera::BlockSparseRanges: the validation of a user's triple (every defect is reported with
// the offending rows) and the transposed triple built on the device (it must keep exactly the
// same pairs as the original, and be itself a valid pattern).
#include "cluster/block_sparse_test_support.hpp"
#include "genred/genred_test_support.hpp"

#include <tessera/cluster/block_sparse_ranges.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class BlockSparseRanges : public ::testing::Test {};
TYPED_TEST_SUITE(BlockSparseRanges, ExecutionSpaces);

/// The transposed triple is a valid pattern over N-by-M that keeps (j, i) exactly when the
/// original keeps (i, j).
template <class Space>
void expect_transpose_matches(const HostPattern& p) {
  const auto r = p.to_device<Space>();
  ASSERT_EQ(r.m(), p.m);
  ASSERT_EQ(r.n(), p.n);
  const HostPattern t = host_pattern(r, tessera::Axis::i);
  // re-validating the transposed triple checks partition, slices and sortedness
  const auto again = t.to_device<Space>();
  EXPECT_EQ(again.kept_pairs(), r.kept_pairs());
  std::int64_t kept = 0;
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      const bool k = p.keeps(i, j);
      kept += k;
      ASSERT_EQ(t.keeps(j, i), k) << "pair (" << i << ", " << j << ")";
    }
  }
  EXPECT_EQ(r.kept_pairs(), kept);
  // the original triple is kept as given
  EXPECT_EQ(host_ints(r.ranges_i()), p.segments);
  EXPECT_EQ(host_ints(r.slices_i()), p.slices);
  EXPECT_EQ(host_ints(r.redranges_j()), p.ranges);
}

TYPED_TEST(BlockSparseRanges, TransposeKeepsThePairs) {
  unsigned seed = 3;
  for (auto [m, n, segments] : std::vector<std::tuple<int, int, int>>{{0, 0, 1},
                                                                      {0, 9, 1},
                                                                      {9, 0, 3},
                                                                      {1, 1, 1},
                                                                      {17, 23, 5},
                                                                      {200, 150, 12},
                                                                      {97, 301, 40}}) {
    expect_transpose_matches<TypeParam>(random_pattern(m, n, segments, ++seed));
    if (::testing::Test::HasFailure()) return;
  }
}

// Consecutive i-segments covering the same j-interval become one i-range, and j-intervals are
// cut only at range end points.
TYPED_TEST(BlockSparseRanges, TransposeMergesRunsOfSegments) {
  HostPattern p(30, 10);
  p.add_segment(10, {{0, 10}});
  p.add_segment(20, {{0, 4}, {6, 10}});
  p.add_segment(30, {{0, 10}});
  expect_transpose_matches<TypeParam>(p);
  const HostPattern t = host_pattern(p.to_device<TypeParam>(), tessera::Axis::i);
  EXPECT_EQ(t.segments, (std::vector<int>{0, 4, 4, 6, 6, 10}));
  EXPECT_EQ(t.slices, (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(t.ranges, (std::vector<int>{0, 30, 0, 10, 20, 30, 0, 30}));
}

TYPED_TEST(BlockSparseRanges, AcceptsAnyLayout) {
  using Mem               = typename TypeParam::memory_space;
  const HostPattern p     = random_pattern(50, 60, 6, 8);
  const auto [ri, si, rj] = p.device_views<TypeParam>();
  Kokkos::View<int**, Kokkos::LayoutLeft, Mem> ri_left("ri_left", ri.extent(0), 2),
      rj_left("rj_left", rj.extent(0), 2);
  Kokkos::deep_copy(ri_left, ri);
  Kokkos::deep_copy(rj_left, rj);
  const auto r = tessera::make_block_sparse_ranges(TypeParam(), 50, 60, ri_left, si, rj_left);
  EXPECT_EQ(host_ints(r.ranges_i()), p.segments);
  EXPECT_EQ(host_ints(r.redranges_j()), p.ranges);
}

/// Expects the triple to be rejected with a message holding every part.
template <class Space>
void expect_invalid(const HostPattern& p, const std::vector<std::string>& parts) {
  expect_rejected<std::invalid_argument>([&] { p.to_device<Space>(); }, parts);
}

TYPED_TEST(BlockSparseRanges, RejectsBadTriples) {
  using Space = TypeParam;
  auto base   = [] {
    HostPattern p(10, 8);
    p.add_segment(4, {{0, 2}, {5, 8}});
    p.add_segment(10, {{1, 3}});
    return p;
  };
  {
    HostPattern p = base();
    p.segments[1] = 3;  // [0, 3) then [4, 10): a gap
    expect_invalid<Space>(p, {"tessera::BlockSparseRanges: ranges_i[1] = [4, 10) starts at 4",
                              "(expected 3)", "partition [0, M)"});
  }
  {
    HostPattern p = base();
    p.segments[0] = 1;
    expect_invalid<Space>(p, {"ranges_i[0] = [1, 4) starts at 1 (expected 0)"});
  }
  {
    HostPattern p = base();
    p.segments[2] = 5;  // overlap [0, 4) and [5, 10) -> gap; use a reversed one instead
    p.segments[3] = 3;
    expect_invalid<Space>(p, {"ranges_i[1] = [5, 3) has start > end"});
  }
  {
    HostPattern p(12, 8);
    p.add_segment(4, {});
    p.add_segment(10, {});
    expect_invalid<Space>(
        p, {"ranges_i[1] = [4, 10) is the last segment and ends at 10", "(expected M = 12)"});
  }
  {
    HostPattern p = base();
    p.slices[0]   = 3;  // slices {3, 3}: fine; {3, 2} decreasing
    p.slices[1]   = 2;
    expect_invalid<Space>(p, {"slices_i[1] = 2 is smaller than the previous end offset 3"});
  }
  {
    HostPattern p = base();
    p.slices[1]   = 2;
    expect_invalid<Space>(p, {"slices_i[1] = 2 (expected 3, the rows of redranges_j)"});
  }
  {
    HostPattern p = base();
    p.ranges[3]   = 9;  // [5, 9) with N = 8
    expect_invalid<Space>(p, {"redranges_j[1] = [5, 9) is not a range inside [0, N = 8)"});
  }
  {
    HostPattern p = base();
    p.ranges[4]   = -1;
    expect_invalid<Space>(p, {"redranges_j[2] = [-1, 3) is not a range inside [0, N = 8)"});
  }
  {
    HostPattern p(10, 8);
    p.add_segment(10, {{0, 3}, {2, 5}});  // overlap
    expect_invalid<Space>(
        p, {"redranges_j[0] = [0, 3) and redranges_j[1] = [2, 5)", "overlap or are not sorted"});
  }
  {
    HostPattern p(10, 8);
    p.add_segment(10, {{4, 6}, {0, 2}});  // unsorted
    expect_invalid<Space>(p, {"redranges_j[0] = [4, 6) and redranges_j[1] = [0, 2)"});
  }
  {
    HostPattern p(10, 8);  // unsorted across segments is fine: each segment has its own list
    p.add_segment(5, {{4, 6}});
    p.add_segment(10, {{0, 2}});
    EXPECT_EQ(p.to_device<Space>().kept_pairs(), 5 * 2 + 5 * 2);
  }
  {
    HostPattern p(10, 8);
    expect_invalid<Space>(p, {"ranges_i is empty but M = 10"});
  }
  {
    HostPattern p(0, 8);
    p.add_segment(0, {{0, 8}});  // an empty segment over M = 0 is valid
    EXPECT_EQ(p.to_device<Space>().kept_pairs(), 0);
  }
  using Mem = typename Space::memory_space;
  Kokkos::View<int**, Mem> three("three", 2, 3);
  Kokkos::View<int*, Mem> slices("slices", 2);
  Kokkos::View<int**, Mem> two("two", 2, 2);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::make_block_sparse_ranges(Space(), 4, 4, three, slices, two); },
      {"ranges_i columns (got 3, expected 2)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::make_block_sparse_ranges(Space(), 4, 4, two, slices, three); },
      {"redranges_j columns (got 3, expected 2)"});
  Kokkos::View<int*, Mem> slices3("slices3", 3);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::make_block_sparse_ranges(Space(), 4, 4, two, slices3, two); },
      {"slices_i extent (got 3, expected 2)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::make_block_sparse_ranges(Space(), -1, 4, two, slices, two); },
      {"M and N must be >= 0"});
}

}  // namespace
