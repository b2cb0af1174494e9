// interval_expand against a direct host loop: the seed's demonstration exactly; random, all-zero,
// one-huge, power-law and alternating counts; sizes 0, 1 and primes; default and small tiles;
// int, short, double, 12- and 32-byte structs; outputs at any alignment or strided; bad extents
// and tiles rejected before any write.
#include "execution_spaces.hpp"
#include "interval/interval_test_support.hpp"

#include <tessera/interval/interval_expand.hpp>

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tessera_test::device_view;
using tessera_test::host_vector;
using tessera_test::make_counts;
using tessera_test::value_of;
using tessera_test::Vec3;

template <class Space>
class IntervalExpand : public ::testing::Test {};
TYPED_TEST_SUITE(IntervalExpand, tessera_test::ExecutionSpaces);

// The seed's IntervalExpand demonstration: 20 Fibonacci values, its printed expanded data.
TYPED_TEST(IntervalExpand, SeedDemonstration) {
  using Space                     = TypeParam;
  const std::vector<int> counts   = tessera_test::seed_expand_counts();
  const std::vector<int> values   = {1,  1,   2,   3,   5,   8,   13,   21,   34,   55,
                                     89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765};
  const std::vector<int> expanded = {
      1,    1,    1,    1,    1,    1,    1,    2,    2,    2,   2,   2,   2,   2,    3,
      3,    3,    3,    3,    3,    3,    3,    3,    3,    3,   3,   3,   3,   3,    3,
      8,    34,   34,   34,   34,   34,   34,   34,   34,   34,  34,  34,  34,  34,   34,
      55,   55,   55,   55,   55,   55,   55,   55,   55,   55,  89,  89,  89,  144,  144,
      144,  144,  144,  144,  144,  144,  144,  144,  144,  144, 144, 144, 233, 233,  377,
      610,  610,  610,  610,  610,  610,  610,  610,  610,  610, 610, 987, 987, 1597, 4181,
      4181, 4181, 4181, 4181, 6765, 6765, 6765, 6765, 6765, 6765};
  std::int64_t total = 0;
  const auto offsets = tessera_test::scan_counts<Space>(counts, total);
  Kokkos::View<int*, typename Space::memory_space> out("out", total);
  tessera::interval_expand(Space(), total, offsets, device_view<int, Space>(values), out);
  EXPECT_EQ(host_vector(out), expanded);
}

/// interval_expand of value_of(k) repeated counts[k] times into out (of extent the total) with
/// the tile, against the host loop.
template <class Space, class T, class Out>
void expand_and_check(const std::vector<int>& counts, const Out& out,
                      const tessera::IntervalTile& tile, const std::string& where,
                      tessera::Workspace* workspace = nullptr) {
  std::vector<T> values(counts.size()), expected;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    values[k] = value_of<T>(static_cast<int>(k));
    expected.insert(expected.end(), counts[k], values[k]);
  }
  std::int64_t total = 0;
  const auto offsets = tessera_test::scan_counts<Space>(counts, total);
  ASSERT_EQ(out.extent(0), expected.size()) << where;
  tessera::IntervalOptions options;
  options.tile      = tile;
  options.workspace = workspace;
  tessera::interval_expand(Space(), total, offsets, device_view<T, Space>(values), out, options);
  EXPECT_TRUE(host_vector(out) == expected) << where;
}

/// The sum of counts.
inline std::size_t sum_of(const std::vector<int>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

// One workspace serves every call: it grows with the sizes and tiles.
template <class Space, class T>
void check_distributions() {
  tessera::Workspace workspace;
  for (const std::string& kind : tessera_test::count_kinds()) {
    for (const auto& c : tessera_test::tile_cases<Space>({0, 1, 13, 1009, 4001})) {
      const std::vector<int> counts = make_counts(kind, c.n, 29 + c.n);
      Kokkos::View<T*, typename Space::memory_space> out("out", sum_of(counts));
      expand_and_check<Space, T>(counts, out, c.tile, kind + ", " + tessera_test::describe(c),
                                 c.n % 2 == 1 ? &workspace : nullptr);
    }
  }
  EXPECT_GT(workspace.bytes<typename Space::memory_space>(), 0u);
}

TYPED_TEST(IntervalExpand, MatchesHostLoop) {
  check_distributions<TypeParam, int>();
  check_distributions<TypeParam, double>();
  check_distributions<TypeParam, Vec3>();
  check_distributions<TypeParam, short>();
  check_distributions<TypeParam, tessera_test::Wide>();
}

/// Outputs that start at every item of a 16-byte line (the 16-byte stores shift to the output's
/// alignment), a strided output and one misaligned for its type (stored item by item).
template <class Space, class T>
void check_outputs() {
  using Mem                     = typename Space::memory_space;
  const std::vector<int> counts = make_counts("uniform", 1009, 5);
  const std::size_t total       = sum_of(counts);
  for (const tessera::IntervalTile tile : {tessera::IntervalTile{}, tessera::IntervalTile{1, 7}}) {
    const std::string in_tile = ", tile " + std::to_string(tile.items_per_team);
    Kokkos::View<T*, Mem> line("line", total + 16);
    for (std::size_t first = 0; first < 16 / sizeof(T) + 1; ++first) {
      const auto out = Kokkos::subview(line, std::make_pair(first, first + total));
      expand_and_check<Space, T>(counts, out, tile,
                                 "first item " + std::to_string(first) + in_tile);
    }
    Kokkos::View<T**, Kokkos::LayoutRight, Mem> table("table", total, 3);
    expand_and_check<Space, T>(counts, Kokkos::subview(table, Kokkos::ALL, 1), tile,
                               "strided" + in_tile);
    // the items 4 bytes past a 16-byte boundary: aligned for T only if alignof(T) <= 4
    Kokkos::View<std::int32_t*, Mem> words("words", (total * sizeof(T)) / 4 + 8);
    Kokkos::View<T*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> shifted(
        reinterpret_cast<T*>(words.data() + 1), total);
    if (alignof(T) <= 4)
      expand_and_check<Space, T>(counts, shifted, tile, "4-byte shifted" + in_tile);
  }
}

TYPED_TEST(IntervalExpand, AnyOutputAlignmentOrStride) {
  check_outputs<TypeParam, int>();
  check_outputs<TypeParam, double>();
  check_outputs<TypeParam, short>();
  check_outputs<TypeParam, Vec3>();
  check_outputs<TypeParam, tessera_test::IntPair>();
}

// With IntervalOptions::check off, bad offsets (decreasing, past total, negative, not starting
// at 0) give unspecified results but never write outside out: its guard items stay intact.
TYPED_TEST(IntervalExpand, UncheckedBadOffsetsStayInBounds) {
  using Space       = TypeParam;
  const auto values = device_view<int, Space>({1, 2, 3, 4});
  for (const auto& o : std::vector<std::vector<int>>{
           {0, 5, 2, 9}, {3, 1, 0, 2}, {-4, 0, 6, 6}, {0, 2, 7, 100}, {INT_MIN, 0, INT_MAX, 1}}) {
    for (const tessera::IntervalTile tile :
         {tessera::IntervalTile{}, tessera::IntervalTile{1, 3}}) {
      tessera::IntervalOptions unchecked;
      unchecked.check = false;
      unchecked.tile  = tile;
      const tessera_test::Guarded<int, Space> out(std::vector<int>(6, -1), -555);
      tessera::interval_expand(Space(), 6, device_view<int, Space>(o), values, out.inside,
                               unchecked);
      EXPECT_TRUE(out.guards_intact()) << "offsets " << o[0] << ", " << o[1];
    }
  }
}

// Tiles: zero fields take the default; negative, oversized or unrunnable ones are rejected
// before any write.
TYPED_TEST(IntervalExpand, RejectsBadTiles) {
  using Space        = TypeParam;
  using Mem          = typename Space::memory_space;
  const auto offsets = device_view<int, Space>({0, 2, 2, 5});
  const auto values  = device_view<int, Space>({1, 2, 3, 4});
  Kokkos::View<int*, Mem> out("out", 6);
  Kokkos::deep_copy(out, -7);
  const int team_max =
      Kokkos::TeamPolicy<Space>(Space(), 1, 1)
          .team_size_max(tessera_test::NoTeamWork<Space>{}, Kokkos::ParallelForTag());
  std::vector<tessera::IntervalTile> bad = {
      {-1, 0}, {0, -5}, {1, (1 << 24) + 1}, {team_max * 2, 0}};
  if constexpr (tessera::Impl::is_device_space<Space>) bad.push_back({0, 1 << 20});  // scratch
  for (const tessera::IntervalTile& tile : bad) {
    tessera::IntervalOptions options;
    options.tile = tile;
    EXPECT_THROW(tessera::interval_expand(Space(), 6, offsets, values, out, options),
                 std::invalid_argument)
        << tile.team_size << " x " << tile.items_per_team;
  }
  EXPECT_EQ(host_vector(out), std::vector<int>(6, -7));
  tessera::IntervalOptions options;
  options.tile = {0, 3};
  tessera::interval_expand(Space(), 6, offsets, values, out, options);
  EXPECT_EQ(host_vector(out), (std::vector<int>{1, 1, 3, 3, 3, 4}));
}

// values must match the offsets, out must hold total items; nothing is written otherwise.
TYPED_TEST(IntervalExpand, RejectsBadExtents) {
  using Space        = TypeParam;
  using Mem          = typename Space::memory_space;
  const auto offsets = device_view<int, Space>({0, 2, 2, 5});
  Kokkos::View<int*, Mem> out("out", 6);
  Kokkos::deep_copy(out, -7);
  EXPECT_THROW(
      tessera::interval_expand(Space(), 6, offsets, device_view<int, Space>({1, 2, 3}), out),
      std::invalid_argument);
  EXPECT_THROW(
      tessera::interval_expand(Space(), 7, offsets, device_view<int, Space>({1, 2, 3, 4}), out),
      std::invalid_argument);
  EXPECT_THROW(tessera::interval_expand(Space(), 6, device_view<int, Space>({0, 2, 1, 5}),
                                        device_view<int, Space>({1, 2, 3, 4}), out),
               std::invalid_argument);
  EXPECT_EQ(host_vector(out), std::vector<int>(6, -7));
  tessera::interval_expand(Space(), 6, offsets, device_view<int, Space>({1, 2, 3, 4}), out);
  EXPECT_EQ(host_vector(out), (std::vector<int>{1, 1, 3, 3, 3, 4}));
}

// An out sharing memory with values or offsets is rejected before any write: with one count of
// 5000 among 5001 intervals, an out over the values gave half of the output wrong.
TYPED_TEST(IntervalExpand, RejectsOutputSharingMemory) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  const int n = 5001;
  std::vector<int> counts(n, 0), values(n);
  counts[n / 2] = 5000;
  std::iota(values.begin(), values.end(), 0);
  std::int64_t total = 0;
  const auto offsets = tessera_test::scan_counts<Space>(counts, total);
  ASSERT_EQ(total, 5000);
  Kokkos::View<int*, Mem> shared("shared", n);
  Kokkos::deep_copy(shared, device_view<int, Space>(values));
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] { tessera::interval_expand(Space(), total, offsets, shared, shared); },
      {"tessera::interval_expand: out shares memory with values"});
  auto tail = Kokkos::subview(shared, std::make_pair(1, n));  // partial overlap
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] { tessera::interval_expand(Space(), total, offsets, shared, tail); },
      {"tessera::interval_expand: out shares memory with values"});
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] {
        tessera::interval_expand(Space(), total, offsets, device_view<int, Space>(values), offsets);
      },
      {"tessera::interval_expand: out shares memory with offsets"});
  EXPECT_EQ(host_vector(shared), values);
  // a separate out: the value of the one non-empty interval, 5000 times
  Kokkos::View<int*, Mem> out("out", 5000);
  tessera::interval_expand(Space(), total, offsets, shared, out);
  EXPECT_EQ(host_vector(out), std::vector<int>(5000, n / 2));
}

}  // namespace
