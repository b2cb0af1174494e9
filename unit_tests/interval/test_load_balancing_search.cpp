// exclusive_scan and load_balancing_search (interval/) against direct host loops: the seed's
// demonstration, random, all-zero, one-huge, power-law and alternating counts; sizes 0, 1 and
// primes; bad counts and offsets rejected before any write.
#include "execution_spaces.hpp"
#include "interval/interval_test_support.hpp"

#include <tessera/interval/exclusive_scan.hpp>
#include <tessera/interval/load_balancing_search.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tessera_test::device_view;
using tessera_test::host_vector;
using tessera_test::make_counts;

template <class Space>
class IntervalSearch : public ::testing::Test {};
TYPED_TEST_SUITE(IntervalSearch, tessera_test::ExecutionSpaces);

// The seed's IntervalExpand demonstration: its printed scan and load-balancing search.
TYPED_TEST(IntervalSearch, SeedDemonstration) {
  using Space                   = TypeParam;
  const std::vector<int> counts = tessera_test::seed_expand_counts();
  const std::vector<int> scan   = {0,  2,  7,  14, 30, 30, 31, 31, 31, 45,
                                   55, 58, 72, 74, 75, 86, 88, 89, 89, 94};
  const std::vector<int> owner  = {
       0,  0,  1,  1,  1,  1,  1,  2,  2,  2,  2,  2,  2,  2,  3,  3,  3,  3,  3,  3,
       3,  3,  3,  3,  3,  3,  3,  3,  3,  3,  5,  8,  8,  8,  8,  8,  8,  8,  8,  8,
       8,  8,  8,  8,  8,  9,  9,  9,  9,  9,  9,  9,  9,  9,  9,  10, 10, 10, 11, 11,
       11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 12, 12, 13, 14, 14, 14, 14, 14,
       14, 14, 14, 14, 14, 14, 15, 15, 16, 18, 18, 18, 18, 18, 19, 19, 19, 19, 19, 19};
  const auto c = device_view<int, Space>(counts);
  Kokkos::View<int*, typename Space::memory_space> offsets("offsets", counts.size());
  const std::int64_t total = tessera::exclusive_scan(Space(), c, offsets);
  EXPECT_EQ(total, 100);
  EXPECT_EQ(host_vector(offsets), scan);
  Kokkos::View<int*, typename Space::memory_space> found("owner", total);
  tessera::load_balancing_search(Space(), total, offsets, found);
  EXPECT_EQ(host_vector(found), owner);
}

// Every distribution and size against the host loop "item offsets[k] + r belongs to k".
TYPED_TEST(IntervalSearch, MatchesHostLoop) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  tessera::Workspace workspace;  // grows with the sizes and tiles
  for (const std::string& kind : tessera_test::count_kinds()) {
    for (const auto& tc : tessera_test::tile_cases<Space>({0, 1, 2, 13, 1009, 40009})) {
      const int n                   = tc.n;
      const std::vector<int> counts = make_counts(kind, n, 17 + n);
      std::vector<std::int64_t> scan(n);
      std::vector<int> expected;
      std::int64_t sum = 0;
      for (int k = 0; k < n; ++k) {
        scan[k] = sum;
        sum += counts[k];
        expected.insert(expected.end(), counts[k], k);
      }
      const auto c = device_view<int, Space>(counts);
      Kokkos::View<std::int64_t*, Mem> offsets("offsets", n);
      const std::int64_t total = tessera::exclusive_scan(Space(), c, offsets);
      const std::string where  = kind + ", " + tessera_test::describe(tc);
      ASSERT_EQ(total, sum) << where;
      EXPECT_EQ(host_vector(offsets), scan) << where;
      tessera::IntervalOptions options;
      options.tile = tc.tile;
      // owners written from every item of a 16-byte line on (the 16-byte stores shift)
      Kokkos::View<int*, Mem> line("line", total + 3);
      for (const std::int64_t first : {std::int64_t{0}, std::int64_t{3}}) {
        const auto owner = Kokkos::subview(line, std::make_pair(first, first + total));
        tessera::IntervalOptions reused = options;
        reused.workspace                = first == 0 ? &workspace : nullptr;
        tessera::load_balancing_search(Space(), total, offsets, owner, reused);
        EXPECT_EQ(host_vector(owner), expected) << where << ", first item " << first;
      }
      Kokkos::View<std::int16_t*, Mem> narrow("narrow", total);  // 8 per 16-byte store
      if (n <= 32767) {
        tessera::load_balancing_search(Space(), total, offsets, narrow, options);
        EXPECT_TRUE(host_vector(narrow) ==
                    std::vector<std::int16_t>(expected.begin(), expected.end()))
            << where << ", 16-bit owners";
      }
    }
  }
}

// Negative counts and totals beyond the offsets' type are errors, and nothing is written.
TYPED_TEST(IntervalSearch, ScanRejectsBadCounts) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  Kokkos::View<int*, Mem> offsets("offsets", 4);
  Kokkos::deep_copy(offsets, -7);
  const auto negative = device_view<int, Space>({3, 0, -2, 5});
  EXPECT_THROW(tessera::exclusive_scan(Space(), negative, offsets), std::invalid_argument);
  const auto big = device_view<std::int64_t, Space>({2000000000, 2000000000, 1, 1});
  EXPECT_THROW(tessera::exclusive_scan(Space(), big, offsets), std::length_error);
  EXPECT_EQ(host_vector(offsets), std::vector<int>(4, -7));
  Kokkos::View<std::int64_t*, Mem> wide("wide", 4);
  EXPECT_EQ(tessera::exclusive_scan(Space(), big, wide), 4000000002);
  Kokkos::View<int*, Mem> short_offsets("short", 3);
  EXPECT_THROW(tessera::exclusive_scan(Space(), negative, short_offsets), std::invalid_argument);
  try {
    tessera::exclusive_scan(Space(), negative, offsets);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("counts[2]"), std::string::npos) << e.what();
  }
}

// Offsets that do not start at 0, decrease or pass total are rejected unless check is off.
TYPED_TEST(IntervalSearch, SearchRejectsBadOffsets) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  Kokkos::View<int*, Mem> owner("owner", 10);
  Kokkos::deep_copy(owner, -7);
  for (const auto& bad : std::vector<std::vector<int>>{{1, 2, 3}, {0, 5, 4}, {0, 3, 11}}) {
    const auto offsets = device_view<int, Space>(bad);
    EXPECT_THROW(tessera::load_balancing_search(Space(), 10, offsets, owner),
                 std::invalid_argument);
  }
  EXPECT_EQ(host_vector(owner), std::vector<int>(10, -7));
  const auto good = device_view<int, Space>({0, 4, 4, 9});
  EXPECT_THROW(tessera::load_balancing_search(Space(), 11, good, owner), std::invalid_argument);
  EXPECT_THROW(tessera::load_balancing_search(Space(), -1, good, owner), std::length_error);
  const auto none = device_view<int, Space>({});
  EXPECT_THROW(tessera::load_balancing_search(Space(), 3, none, owner), std::invalid_argument);
  tessera::IntervalOptions unchecked;
  unchecked.check = false;
  tessera::load_balancing_search(Space(), 10, good, owner, unchecked);
  EXPECT_EQ(host_vector(owner), (std::vector<int>{0, 0, 0, 0, 2, 2, 2, 2, 2, 3}));
}

// An output sharing memory with an input is rejected before any write (documented in
// docs/interval.md): the scan in place returned offsets [0 0 0 0] for counts {3, 1, 2, 4}, and
// owner over the offsets would overwrite the offsets it searches.
TYPED_TEST(IntervalSearch, RejectsOutputsSharingMemory) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  auto counts = device_view<int, Space>({3, 1, 2, 4});
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] { tessera::exclusive_scan(Space(), counts, counts); },
      {"tessera::exclusive_scan: offsets shares memory with counts"});
  EXPECT_EQ(host_vector(counts), (std::vector<int>{3, 1, 2, 4}));
  // partial overlap: offsets one element into the counts' allocation
  Kokkos::View<int*, Mem> both("both", 5);
  Kokkos::deep_copy(Kokkos::subview(both, std::make_pair(0, 4)), counts);
  auto first4 = Kokkos::subview(both, std::make_pair(0, 4));
  auto last4  = Kokkos::subview(both, std::make_pair(1, 5));
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] { tessera::exclusive_scan(Space(), first4, last4); },
      {"tessera::exclusive_scan: offsets shares memory with counts"});
  // the offsets of {3, 1, 2, 4}, and owner over them
  Kokkos::View<int*, Mem> offsets("offsets", 10);
  auto scan = Kokkos::subview(offsets, std::make_pair(0, 4));
  EXPECT_EQ(tessera::exclusive_scan(Space(), counts, scan), 10);
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] { tessera::load_balancing_search(Space(), 10, scan, offsets); },
      {"tessera::load_balancing_search: owner shares memory with offsets"});
  EXPECT_EQ(host_vector(offsets), (std::vector<int>{0, 3, 4, 6, 0, 0, 0, 0, 0, 0}));
  // disjoint Views: accepted
  Kokkos::View<int*, Mem> owner("owner", 10);
  tessera::load_balancing_search(Space(), 10, scan, owner);
  EXPECT_EQ(host_vector(owner), (std::vector<int>{0, 0, 0, 1, 2, 2, 3, 3, 3, 3}));
}

}  // namespace
