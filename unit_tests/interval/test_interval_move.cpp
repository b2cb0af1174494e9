// interval_move, interval_gather and interval_scatter against direct host loops: the seed's
// IntervalMove demonstration exactly (counting-sequence input); random, all-zero, one-huge,
// power-law and alternating counts with shuffled destinations and overlapping sources; sizes 0,
// 1 and primes; int, double and a 12-byte struct; ranges outside the Views, aliasing and
// overlapping destinations rejected before any write.
#include "execution_spaces.hpp"
#include "interval/interval_test_support.hpp"
#include "profiling_regions.hpp"

#include <tessera/interval/interval_expand.hpp>
#include <tessera/interval/interval_move.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using tessera_test::device_view;
using tessera_test::host_vector;
using tessera_test::make_counts;
using tessera_test::value_of;
using tessera_test::Vec3;

template <class Space>
class IntervalMove : public ::testing::Test {};
TYPED_TEST_SUITE(IntervalMove, tessera_test::ExecutionSpaces);

// The seed's IntervalMove demonstration: 20 moves of a counting sequence, its printed result.
TYPED_TEST(IntervalMove, SeedDemonstration) {
  using Space                    = TypeParam;
  const std::vector<int> counts  = {3, 9, 1, 9, 8, 5, 10, 2, 5, 2, 8, 6, 5, 2, 4, 0, 8, 2, 5, 6};
  const std::vector<int> gather  = {75, 86, 17, 2, 67, 24, 37, 11, 95, 35,
                                    52, 18, 47, 0, 13, 75, 78, 60, 62, 29};
  const std::vector<int> scatter = {10, 80, 99, 27, 41, 71, 15, 0,  36, 13,
                                    89, 49, 66, 97, 76, 76, 2,  25, 61, 55};
  const std::vector<int> moved   = {
        11, 12, 78, 79, 80, 81, 82, 83, 84, 85, 75, 76, 77, 35, 36, 37, 38, 39, 40, 41,
        42, 43, 44, 45, 46, 60, 61, 2,  3,  4,  5,  6,  7,  8,  9,  10, 95, 96, 97, 98,
        99, 67, 68, 69, 70, 71, 72, 73, 74, 18, 19, 20, 21, 22, 23, 29, 30, 31, 32, 33,
        34, 62, 63, 64, 65, 66, 47, 48, 49, 50, 51, 24, 25, 26, 27, 28, 13, 14, 15, 16,
        86, 87, 88, 89, 90, 91, 92, 93, 94, 52, 53, 54, 55, 56, 57, 58, 59, 0,  1,  17};
  std::int64_t total = 0;
  const auto offsets = tessera_test::scan_counts<Space>(counts, total);
  ASSERT_EQ(total, 100);
  tessera::IntervalOptions all_checks;
  all_checks.check_overlap = true;
  Kokkos::View<int*, typename Space::memory_space> data("data", total);
  tessera::interval_move(Space(), total, device_view<int, Space>(gather),
                         device_view<int, Space>(scatter), offsets, tessera::counting_sequence(0),
                         data, all_checks);
  EXPECT_EQ(host_vector(data), moved);

  // The same moves from a View of 0..99, and gather / scatter on their own (the seed's
  // IntervalGather takes scatter = offsets, IntervalScatter gather = offsets).
  std::vector<int> iota(100);
  std::iota(iota.begin(), iota.end(), 0);
  Kokkos::deep_copy(data, -1);
  tessera::interval_move(Space(), total, device_view<int, Space>(gather),
                         device_view<int, Space>(scatter), offsets, device_view<int, Space>(iota),
                         data);
  EXPECT_EQ(host_vector(data), moved);
  std::vector<int> gathered, scattered(100, -1);
  for (std::size_t k = 0, start = 0; k < counts.size(); start += counts[k], ++k) {
    for (int r = 0; r < counts[k]; ++r) {
      gathered.push_back(gather[k] + r);
      scattered[scatter[k] + r] = static_cast<int>(start) + r;
    }
  }
  tessera::interval_gather(Space(), total, device_view<int, Space>(gather), offsets,
                           tessera::counting_sequence(0), data);
  EXPECT_EQ(host_vector(data), gathered);
  Kokkos::deep_copy(data, -1);
  tessera::interval_scatter(Space(), total, device_view<int, Space>(scatter), offsets,
                            tessera::counting_sequence(0), data, all_checks);
  EXPECT_EQ(host_vector(data), scattered);
}

/// Random moves over counts: destinations in a shuffled order with gaps of 0-2 items (disjoint,
/// some touching), sources anywhere in an input of at least total items (overlapping each other).
struct RandomMoves {
  std::vector<int> gather, scatter;
  std::int64_t input_extent = 0, output_extent = 0;
};

RandomMoves random_moves(const std::vector<int>& counts, unsigned seed) {
  const int n = static_cast<int>(counts.size());
  std::mt19937 gen(seed);
  RandomMoves m;
  m.gather.resize(n);
  m.scatter.resize(n);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), gen);
  std::int64_t pos = 0;
  for (const int k : order) {
    pos += std::uniform_int_distribution<int>(0, 2)(gen);
    m.scatter[k] = static_cast<int>(pos);
    pos += counts[k];
  }
  m.output_extent        = pos + 3;
  const int longest      = n == 0 ? 0 : *std::max_element(counts.begin(), counts.end());
  const std::int64_t sum = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  m.input_extent         = std::max<std::int64_t>(sum, longest + 2 * n) + 5;  // scatter reads total
  for (int k = 0; k < n; ++k) {
    m.gather[k] =
        std::uniform_int_distribution<int>(0, static_cast<int>(m.input_extent) - counts[k])(gen);
  }
  return m;
}

template <class Space, class T>
void check_distributions() {
  using Mem     = typename Space::memory_space;
  const T blank = value_of<T>(-1);
  for (const std::string& kind : tessera_test::count_kinds()) {
    for (const auto& c : tessera_test::tile_cases<Space>({0, 1, 13, 1009, 4001})) {
      const int n                   = c.n;
      const std::vector<int> counts = make_counts(kind, n, 31 + n);
      const RandomMoves m           = random_moves(counts, 7 + n);
      std::vector<T> input(m.input_extent);
      for (std::int64_t j = 0; j < m.input_extent; ++j)
        input[j] = value_of<T>(static_cast<int>(j));
      std::vector<T> moved(m.output_extent, blank), gathered, scattered(m.output_extent, blank);
      for (int k = 0, start = 0; k < n; start += counts[k], ++k) {
        for (int r = 0; r < counts[k]; ++r) {
          moved[m.scatter[k] + r] = input[m.gather[k] + r];
          gathered.push_back(input[m.gather[k] + r]);
          scattered[m.scatter[k] + r] = input[start + r];
        }
      }
      std::int64_t total                    = 0;
      const auto offsets                    = tessera_test::scan_counts<Space>(counts, total);
      const auto in                         = device_view<T, Space>(input);
      const auto gather                     = device_view<int, Space>(m.gather),
                 scatter                    = device_view<int, Space>(m.scatter);
      const std::string where               = kind + ", " + tessera_test::describe(c);
      using Order                           = tessera::IntervalOrder;
      const std::pair<bool, Order> orders[] = {{true, Order::automatic},
                                               {false, Order::given},
                                               {true, Order::by_destination},
                                               {false, Order::by_destination}};
      tessera::Workspace workspace;  // used by the unchecked calls
      for (const auto& [checked, order] : orders) {
        tessera::IntervalOptions options;
        options.workspace     = checked ? nullptr : &workspace;
        options.tile          = c.tile;
        options.check         = checked;
        options.check_overlap = checked;
        options.order         = order;
        const std::string how = where + ", order " + std::to_string(static_cast<int>(order)) +
                                (checked ? ", checked" : ", unchecked");
        Kokkos::View<T*, Mem> out("out", m.output_extent);
        Kokkos::deep_copy(out, blank);
        tessera::interval_move(Space(), total, gather, scatter, offsets, in, out, options);
        EXPECT_TRUE(host_vector(out) == moved) << "move, " << how;
        Kokkos::deep_copy(out, blank);
        tessera::interval_scatter(Space(), total, scatter, offsets, in, out, options);
        EXPECT_TRUE(host_vector(out) == scattered) << "scatter, " << how;
        Kokkos::View<T*, Mem> packed("packed", total);
        tessera::interval_gather(Space(), total, gather, offsets, in, packed, options);
        EXPECT_TRUE(host_vector(packed) == gathered) << "gather, " << how;
      }
    }
  }
}

// A size query checks the arguments, records the memory a move needs and runs nothing; a
// workspace reserved from it then serves the move without growing, in both orders.
TYPED_TEST(IntervalMove, ASizeQueryRunsNothingAndSizesTheWorkspace) {
  using Space                   = TypeParam;
  const std::vector<int> counts = {5, 0, 9, 2, 7, 1};
  std::int64_t total            = 0;
  const auto offsets            = tessera_test::scan_counts<Space>(counts, total);
  const auto gather             = device_view<int, Space>({0, 10, 20, 40, 50, 60});
  const auto scatter            = device_view<int, Space>({70, 0, 10, 30, 40, 60});
  for (const auto order : {tessera::IntervalOrder::given, tessera::IntervalOrder::by_destination}) {
    Kokkos::View<int*, typename Space::memory_space> out("out", 80);
    Kokkos::deep_copy(out, -1);
    auto query = tessera::Workspace::size_query();
    tessera::IntervalOptions options;
    options.order     = order;
    options.workspace = &query;
    tessera::interval_move(Space(), total, gather, scatter, offsets, tessera::counting_sequence(0),
                           out, options);
    EXPECT_EQ(host_vector(out), std::vector<int>(80, -1)) << "a size query writes nothing";
    using Mem           = typename Space::memory_space;
    const auto required = query.required_bytes<Mem>();
    EXPECT_GT(required, 0u);
    EXPECT_EQ(query.bytes<Mem>(), 0u);
    tessera::Workspace workspace;
    workspace.reserve(query);
    options.workspace = &workspace;
    tessera::interval_move(Space(), total, gather, scatter, offsets, tessera::counting_sequence(0),
                           out, options);
    EXPECT_EQ(workspace.bytes<Mem>(), required) << "the query's size was enough";
    const auto moved = host_vector(out);
    for (int k = 0, at = 0; k < 6; at += counts[k], ++k) {
      for (int r = 0; r < counts[k]; ++r) {
        const int dest = host_vector(scatter)[k] + r;
        ASSERT_EQ(moved[dest], host_vector(gather)[k] + r) << "interval " << k;
      }
    }
  }
  // a bad argument is still rejected by a size query
  auto query = tessera::Workspace::size_query();
  tessera::IntervalOptions options;
  options.workspace = &query;
  Kokkos::View<int*, typename Space::memory_space> short_out("short_out", 3);
  EXPECT_THROW(tessera::interval_expand(Space(), total, offsets, gather, short_out, options),
               std::invalid_argument);
}

// A profiler sees each move (a partition, a check and the move's kernels) as one Kokkos Tools
// region named for the call, closed when it returns.
TYPED_TEST(IntervalMove, EachCallIsOneToolsRegion) {
  using Space                   = TypeParam;
  const std::vector<int> counts = {4, 0, 7, 1, 3};
  std::int64_t total            = 0;
  const auto offsets            = tessera_test::scan_counts<Space>(counts, total);
  const auto index              = device_view<int, Space>({30, 0, 10, 20, 25});
  Kokkos::View<int*, typename Space::memory_space> data("data", 40);
  Kokkos::fence();
  tessera_test::RegionRecording recording;
  tessera::interval_move(Space(), total, index, index, offsets, tessera::counting_sequence(0),
                         data);
  tessera::interval_gather(Space(), total, index, offsets, tessera::counting_sequence(0), data);
  tessera::interval_scatter(Space(), total, index, offsets, tessera::counting_sequence(0), data);
  const std::vector<std::string> expected{"tessera::interval::interval_move",
                                          "tessera::interval::interval_gather",
                                          "tessera::interval::interval_scatter"};
  EXPECT_EQ(tessera_test::RegionRecording::pushed(), expected);
  EXPECT_TRUE(tessera_test::RegionRecording::balanced());
}

TYPED_TEST(IntervalMove, MatchesHostLoop) {
  check_distributions<TypeParam, int>();
  check_distributions<TypeParam, double>();
  check_distributions<TypeParam, Vec3>();
}

// The regrouping behind IntervalOrder::by_destination, with regions of a few items (the
// library's are 1 MiB, more than these outputs): a permutation of the intervals (gather,
// scatter and count kept together) with offsets that are the exclusive scan of the counts in
// the new order; for mean counts up to regroup_sort_max_mean_count the non-empty intervals of
// each sorting chunk in the order of their output windows, all of them in the chunk's bins, and
// the merge-path points of pieces of 61 entries on those offsets, for larger ones the non-empty
// intervals in the order of their regions; several teams of each pass included, and with 3
// regions chunks of the sort's largest size (on GPUs several scratch segments per chunk).
TYPED_TEST(IntervalMove, RegroupsByDestinationWindow) {
  using Space     = TypeParam;
  using Regrouped = tessera::Impl::RegroupedMoves<Space, int, int>;
  using tessera::Impl::MergePoint;
  constexpr int bins          = tessera::Impl::Tuning<Space>::interval_regroup_sort_bins;
  const std::int64_t per_team = 61;
  constexpr int most          = tessera::Impl::Tuning<Space>::max_destination_regions;
  // (intervals, most regions)
  const std::vector<std::pair<int, int>> sizes = {
      {1, most}, {13, most}, {2048, most}, {2049, most}, {5003, most}, {20011, most}, {20011, 3}};
  for (const std::string& kind : tessera_test::count_kinds()) {
    for (const auto& size : sizes) {
      const int n = size.first, most_regions = size.second;
      const std::vector<int> counts = make_counts(kind, n, 5 + n);
      const RandomMoves m           = random_moves(counts, 9 + n);
      tessera::Impl::DestinationRegions regions{0, 0};
      do {  // regions of 2^shift items, at most most_regions of them
        ++regions.shift;
        regions.count = static_cast<int>((m.output_extent >> regions.shift) + 1);
      } while (regions.count > most_regions);
      std::int64_t total = 0;
      const auto offsets = tessera_test::scan_counts<Space>(counts, total);
      Kokkos::View<std::uint64_t*, typename Space::memory_space> words(
          "words", Regrouped::words(n, regions));
      const Regrouped r(words.data(), n, regions);
      const std::int64_t pieces = tessera::Impl::merge_path_pieces(total, n, per_team);
      Kokkos::View<MergePoint*, typename Space::memory_space> points("points", pieces + 1);
      bool sorts = false;
      for (int call = 0; call < 2; ++call) {  // the second on the first one's memory
        sorts = tessera::Impl::regroup_by_destination(
            Space(), total, offsets, device_view<int, Space>(m.gather),
            device_view<int, Space>(m.scatter), r, points, per_team, pieces);
      }
      // sorted by window for mean counts up to regroup_sort_max_mean_count, else by region only
      EXPECT_EQ(sorts, total <= tessera::Impl::Tuning<Space>::regroup_sort_max_mean_count * n);
      const std::vector<int> o = host_vector(r.offsets), g = host_vector(r.gather),
                             d = host_vector(r.scatter);
      const auto ends        = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.reserved);
      const int window_shift = tessera::Impl::regroup_window_shift<Space>(regions, n);
      const int chunk        = tessera::Impl::regroup_sort_chunk<Space>(regions, n);
      std::vector<std::array<int, 3>> given, regrouped;
      bool sorted     = true;  // by region (not sorts), or by window within each chunk
      int last_region = 0;
      for (int k = 0; k < n; ++k) {
        given.push_back({m.gather[k], m.scatter[k], counts[k]});
        const int count = (k + 1 < n ? o[k + 1] : static_cast<int>(total)) - o[k];
        regrouped.push_back({g[k], d[k], count});
        if (!sorts && count > 0) {
          sorted      = sorted && (d[k] >> regions.shift) >= last_region;
          last_region = d[k] >> regions.shift;
        }
      }
      for (int p0 = 0; sorts && p0 < n; p0 += chunk) {
        const int p1          = std::min(n, p0 + chunk);
        const auto windows    = tessera::Impl::chunk_windows(ends, regions, window_shift, p0, p1);
        std::int64_t last_bin = 0;
        for (int k = p0; k < p1; ++k) {
          if (regrouped[k][2] == 0) continue;
          const std::int64_t bin = (d[k] >> windows.shift) - windows.first;
          sorted                 = sorted && bin >= last_bin && bin < bins;
          last_bin               = bin;
        }
      }
      // the points: on diagonal j * per_team (the last one total + n), the cut inside the
      // entries of the last interval q whose offset entry o[q] + q comes at or before it
      std::vector<MergePoint> expected(pieces + 1);
      int q = 0;
      for (std::int64_t j = 0; sorts && j <= pieces; ++j) {
        const std::int64_t diag = std::min(j * per_team, total + n);
        while (q + 1 < n && o[q + 1] + q + 1 <= diag)
          ++q;
        expected[j] = diag == total + n  ? MergePoint{static_cast<int>(total), n}
                      : diag == o[q] + q ? MergePoint{o[q], q}
                                         : MergePoint{static_cast<int>(diag - q - 1), q + 1};
      }
      const auto got    = host_vector(points);
      bool points_match = true;
      for (std::int64_t j = 0; sorts && j <= pieces; ++j) {
        points_match = points_match && got[j].items == expected[j].items &&
                       got[j].offsets == expected[j].offsets;
      }
      std::sort(given.begin(), given.end());
      std::sort(regrouped.begin(), regrouped.end());
      const std::string where =
          kind + ", n = " + std::to_string(n) + ", regions = " + std::to_string(regions.count);
      EXPECT_EQ(o[0], 0) << where;
      EXPECT_TRUE(given == regrouped) << where;
      EXPECT_TRUE(sorted) << where;
      EXPECT_TRUE(points_match) << where;
    }
  }
}

/// interval_move of m (counts) in IntervalOrder::by_destination with gather and scatter starts
/// of types G and S, against a host loop over int items.
template <class Space, class G, class S>
void check_move_by_destination(const std::vector<int>& counts, const RandomMoves& m,
                               const std::string& where) {
  std::vector<int> input(m.input_extent), moved(m.output_extent, -1);
  std::iota(input.begin(), input.end(), 0);
  for (std::size_t k = 0; k < counts.size(); ++k) {
    for (int r = 0; r < counts[k]; ++r)
      moved[m.scatter[k] + r] = input[m.gather[k] + r];
  }
  std::int64_t total = 0;
  const auto offsets = tessera_test::scan_counts<Space>(counts, total);
  Kokkos::View<int*, typename Space::memory_space> out("out", m.output_extent);
  Kokkos::deep_copy(out, -1);
  tessera::IntervalOptions options;
  options.order = tessera::IntervalOrder::by_destination;
  tessera::interval_move(Space(), total,
                         device_view<G, Space>(std::vector<G>(m.gather.begin(), m.gather.end())),
                         device_view<S, Space>(std::vector<S>(m.scatter.begin(), m.scatter.end())),
                         offsets, device_view<int, Space>(input), out, options);
  EXPECT_TRUE(host_vector(out) == moved) << where;
}

// Moves regrouped by destination over an output of several 1 MiB regions (a million items).
TYPED_TEST(IntervalMove, ByDestinationOverManyRegions) {
  const int n = 40009;
  std::vector<int> counts(n);
  std::mt19937 gen(3);
  for (int& c : counts)
    c = std::uniform_int_distribution<int>(0, 60)(gen);
  const RandomMoves m = random_moves(counts, 4);
  EXPECT_GT(m.output_extent * sizeof(int), 4u << 20);  // more than four regions
  check_move_by_destination<TypeParam, int, int>(counts, m, "int starts");
}

// Moves regrouped by destination with gather and scatter starts of other widths than int (the
// regrouped intervals hold them as given: 16-bit starts share a 4-byte word, 64-bit ones take
// 32-byte intervals), both with and without the sort by window (mean count 4 and 300).
template <class Space, class G, class S>
void check_regrouped_start_types() {
  for (const int mean : {4, 300}) {
    const int n = mean == 4 ? 6007 : 101;  // outputs under 2^15 items
    std::vector<int> counts(n);
    std::mt19937 gen(11 + mean);
    for (int& c : counts)
      c = std::uniform_int_distribution<int>(0, 2 * mean)(gen);
    const RandomMoves m = random_moves(counts, 12 + mean);
    ASSERT_LT(std::max(m.input_extent, m.output_extent), 32767);
    check_move_by_destination<Space, G, S>(counts, m, "mean " + std::to_string(mean));
  }
}

TYPED_TEST(IntervalMove, ByDestinationWithStartTypes) {
  check_regrouped_start_types<TypeParam, std::int16_t, std::int16_t>();
  check_regrouped_start_types<TypeParam, std::int64_t, std::int16_t>();
  check_regrouped_start_types<TypeParam, std::uint32_t, std::int64_t>();
}

// Counting sequences as gather and scatter (of two integer types): interval k reads item 3 + k
// of a 64-bit input and writes item k.
TYPED_TEST(IntervalMove, CountingSequenceStarts) {
  using Space                   = TypeParam;
  const std::vector<int> counts = {1, 0, 1, 1, 0, 1, 1};
  std::int64_t total            = 0;
  const auto offsets            = tessera_test::scan_counts<Space>(counts, total);
  std::vector<std::int64_t> input(12), expected(9, -1);
  for (int j = 0; j < 12; ++j)
    input[j] = 1000 + j;
  for (int k = 0; k < static_cast<int>(counts.size()); ++k) {
    if (counts[k] == 1) expected[k] = input[3 + k];
  }
  Kokkos::View<std::int64_t*, typename Space::memory_space> out("out", 9);
  Kokkos::deep_copy(out, -1);
  tessera::IntervalOptions all_checks;
  all_checks.check_overlap = true;
  tessera::interval_move(Space(), total, tessera::counting_sequence(3),
                         tessera::counting_sequence<std::int64_t>(0), offsets,
                         device_view<std::int64_t, Space>(input), out, all_checks);
  EXPECT_EQ(host_vector(out), expected);
}

// With IntervalOptions::check off, bad starts (negative, past the end, near the limits of their
// type) and bad offsets (decreasing, past total, not starting at 0) give unspecified results
// but never touch memory outside the Views: the guard items around input and output (in the
// same allocations) are neither read into the output nor overwritten.
template <class Space, class Start>
void check_unchecked_moves(const tessera::IntervalTile& tile, tessera::IntervalOrder order) {
  constexpr Start big                             = std::numeric_limits<Start>::max();
  constexpr Start small                           = std::numeric_limits<Start>::min();
  const std::vector<std::vector<int>> bad_offsets = {
      {0, 2, 2, 5}, {0, 5, 2, 9}, {3, 1, 0, 2}, {-4, 0, 6, 6}, {0, 2, 7, 100}};
  const std::vector<std::vector<Start>> bad_starts = {{0, 8, 6, 1},
                                                      {Start(-1), 8, 5, 1},
                                                      {big, Start(big - 1), 0, 2},
                                                      {small, Start(small + 1), 3, Start(-7)},
                                                      {5, 6, 7, 8}};
  const std::vector<int> values                    = {10, 11, 12, 13, 14, 15, 16, 17};
  tessera::IntervalOptions unchecked;
  unchecked.check = false;
  unchecked.tile  = tile;
  unchecked.order = order;
  for (const auto& o : bad_offsets) {
    for (const auto& g : bad_starts) {
      for (const auto& d : bad_starts) {
        const tessera_test::Guarded<int, Space> input(values, -999);
        const tessera_test::Guarded<int, Space> out(std::vector<int>(6, -1), -555);
        const auto offsets = device_view<int, Space>(o);
        const auto gather = device_view<Start, Space>(g), scatter = device_view<Start, Space>(d);
        tessera::interval_move(Space(), 6, gather, scatter, offsets, input.inside, out.inside,
                               unchecked);
        tessera::interval_gather(Space(), 6, gather, offsets, input.inside, out.inside, unchecked);
        tessera::interval_scatter(Space(), 6, scatter, offsets, input.inside, out.inside,
                                  unchecked);
        const std::vector<int> result = host_vector(out.inside);
        EXPECT_TRUE(out.guards_intact() && input.guards_intact() &&
                    std::find(result.begin(), result.end(), -999) == result.end())
            << "offsets " << o[1] << ", gather " << +g[0] << ", scatter " << +d[0] << ", tile "
            << tile.items_per_team << ", order " << static_cast<int>(order);
      }
    }
  }
}

TYPED_TEST(IntervalMove, UncheckedBadInputStaysInBounds) {
  for (const tessera::IntervalTile tile :
       {tessera::IntervalTile{}, tessera::IntervalTile{1, 1}, tessera::IntervalTile{1, 3}}) {
    for (const auto order :
         {tessera::IntervalOrder::given, tessera::IntervalOrder::by_destination}) {
      check_unchecked_moves<TypeParam, int>(tile, order);
      check_unchecked_moves<TypeParam, std::int64_t>(tile, order);
      check_unchecked_moves<TypeParam, std::uint32_t>(tile, order);
      check_unchecked_moves<TypeParam, std::int16_t>(tile, order);
    }
  }
}

// Ranges outside the input or output, sequences of the wrong length and an output that shares
// memory with the input are errors; nothing is written (also when the intervals would be
// regrouped by destination).
template <class Space>
void check_rejects_bad_ranges(tessera::IntervalOrder order) {
  using Mem          = typename Space::memory_space;
  const auto offsets = device_view<int, Space>({0, 2, 2, 5});  // counts 2, 0, 3, 1; total 6
  const auto input   = device_view<int, Space>({10, 11, 12, 13, 14, 15, 16, 17});
  const auto gather  = device_view<int, Space>({0, 8, 5, 1});
  const auto scatter = device_view<int, Space>({4, 6, 0, 3});
  Kokkos::View<int*, Mem> out("out", 6);
  Kokkos::deep_copy(out, -7);
  tessera::IntervalOptions options;
  options.order   = order;
  const auto move = [&](const std::vector<int>& g, const std::vector<int>& s, auto in) {
    tessera::interval_move(Space(), 6, device_view<int, Space>(g), device_view<int, Space>(s),
                           offsets, in, out, options);
  };
  EXPECT_THROW(move({0, 8, 6, 1}, {4, 6, 0, 3}, input), std::invalid_argument);   // 6 + 3 > 8
  EXPECT_THROW(move({-1, 8, 5, 1}, {4, 6, 0, 3}, input), std::invalid_argument);  // negative
  EXPECT_THROW(move({0, 9, 5, 1}, {4, 6, 0, 3}, input), std::invalid_argument);   // empty, past 8
  EXPECT_THROW(move({0, 8, 5, 1}, {5, 0, 0, 3}, input), std::invalid_argument);   // 5 + 2 > 6
  EXPECT_THROW(move({0, 8, 5, 1}, {4, 0, 0, -3}, input), std::invalid_argument);
  EXPECT_THROW(move({0, 8, 5}, {4, 6, 0, 3}, input), std::invalid_argument);  // 3 gathers
  EXPECT_THROW(move({0, 8, 5, 1}, {4, 6, 0, 3, 1}, input), std::invalid_argument);
  // a counting sequence ends where its type does
  EXPECT_THROW(move({0, 0, 1, 1}, {4, 6, 0, 3},
                    tessera::counting_sequence(std::numeric_limits<int>::max() - 2)),
               std::invalid_argument);
  EXPECT_THROW(tessera::interval_gather(Space(), 6, gather, offsets, input,
                                        Kokkos::subview(out, std::make_pair(0, 5))),
               std::invalid_argument);  // output shorter than total
  EXPECT_THROW(
      tessera::interval_scatter(Space(), 6, scatter, offsets,
                                Kokkos::subview(input, std::make_pair(0, 5)), out, options),
      std::invalid_argument);  // input shorter than total
  EXPECT_THROW(tessera::interval_move(Space(), 6, gather, scatter, offsets, out, out, options),
               std::invalid_argument);  // output aliases input
  EXPECT_THROW(tessera::interval_move(Space(), 6, gather, scatter,
                                      device_view<int, Space>({0, 2, 1, 5}), input, out, options),
               std::invalid_argument);  // offsets decrease
  EXPECT_EQ(host_vector(out), std::vector<int>(6, -7));
  move({0, 8, 5, 1}, {4, 6, 0, 3}, input);
  EXPECT_EQ(host_vector(out), (std::vector<int>{15, 16, 17, 11, 10, 11}));
}

TYPED_TEST(IntervalMove, RejectsBadRanges) {
  for (const auto order : {tessera::IntervalOrder::given, tessera::IntervalOrder::by_destination}) {
    check_rejects_bad_ranges<TypeParam>(order);
  }
}

// Overlapping destinations are reported only under check_overlap; touching ranges and empty
// intervals inside another's range are not overlaps.
TYPED_TEST(IntervalMove, DetectsOverlappingDestinations) {
  using Space        = TypeParam;
  using Mem          = typename Space::memory_space;
  const auto offsets = device_view<int, Space>({0, 2, 2, 5});  // counts 2, 0, 3, 1
  const auto gather  = device_view<int, Space>({0, 0, 0, 0});
  Kokkos::View<int*, Mem> out("out", 8);
  tessera::IntervalOptions overlap;
  overlap.check_overlap = true;
  for (const auto& bad : std::vector<std::vector<int>>{{0, 0, 1, 4}, {3, 0, 0, 2}, {0, 0, 4, 6}}) {
    Kokkos::deep_copy(out, -7);
    EXPECT_THROW(tessera::interval_move(Space(), 6, gather, device_view<int, Space>(bad), offsets,
                                        tessera::counting_sequence(0), out, overlap),
                 std::invalid_argument);
    EXPECT_THROW(tessera::interval_scatter(Space(), 6, device_view<int, Space>(bad), offsets,
                                           tessera::counting_sequence(0), out, overlap),
                 std::invalid_argument);
    EXPECT_EQ(host_vector(out), std::vector<int>(8, -7));
  }
  // touching ranges [0, 2), [2, 5), [5, 6) and an empty interval at 1, inside [0, 2)
  tessera::interval_move(Space(), 6, gather, device_view<int, Space>({0, 1, 2, 5}), offsets,
                         tessera::counting_sequence(0), out, overlap);
  EXPECT_EQ(host_vector(out), (std::vector<int>{0, 1, 0, 1, 2, 0, -7, -7}));
}

}  // namespace
