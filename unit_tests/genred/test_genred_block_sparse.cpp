// Block-sparse genred: every reduction, both axes, float and double, batch, against the
// double-precision host reference restricted to the same (i, j) pairs, through the portable and
// the host kernel on host spaces (block_sparse_genred_check.hpp). Patterns are random (empty
// segments, segments without ranges, empty and touching ranges, segments shorter than a team,
// ranges that ignore tile boundaries), full (must equal the dense call bit for bit) and empty
// (empty-range values).
#include "cluster/block_sparse_genred_check.hpp"
#include "cluster/block_sparse_test_support.hpp"
#include "genred/genred_test_support.hpp"

#include <tessera/genred/genred.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class GenredBlockSparse : public ::testing::Test {};
TYPED_TEST_SUITE(GenredBlockSparse, ExecutionSpaces);

std::vector<SparseCase> sparse_sizes() {
  return {{0, 1, 1, 1},   {0, 0, 5, 1},   {0, 5, 0, 2},   {0, 1000, 1500, 9}, {0, 1000, 1500, 2},
          {0, 300, 7, 5}, {0, 7, 300, 3}, {3, 37, 61, 4}, {2, 601, 263, 3}};
}

template <class Space, class T, class Reduction, class Formula = MixedFormula>
void check_random_patterns(const Reduction& reduction) {
  unsigned seed = 11;
  for (const SparseCase& s : sparse_sizes()) {
    const HostPattern pattern = random_pattern(s.m, s.n, s.segments, ++seed);
    check_sparse<Space, T, Reduction, Formula>(reduction, s, pattern, "random pattern");
    if (::testing::Test::HasFailure()) return;
  }
}

#define TESSERA_SPARSE_REDUCTION_TEST(Name, Reduction, ctor)           \
  TYPED_TEST(GenredBlockSparse, Name) {                                \
    check_random_patterns<TypeParam, float>(tessera::Reduction ctor);  \
    check_random_patterns<TypeParam, double>(tessera::Reduction ctor); \
  }
TESSERA_FOR_EACH_REDUCTION(TESSERA_SPARSE_REDUCTION_TEST)
#undef TESSERA_SPARSE_REDUCTION_TEST

// A staged formula (rows staged into the tiles by stage_i / stage_j) through the packed ranges.
TYPED_TEST(GenredBlockSparse, StagedFormula) {
  check_random_patterns<TypeParam, float, tessera::Sum, StagedMixedFormula>(tessera::Sum{});
  check_random_patterns<TypeParam, double, tessera::KMinArgKMin, StagedMixedFormula>(
      tessera::KMinArgKMin{2});
}

// Patterns whose segments are shorter than any team, or one long segment with many one-row
// ranges, exercise the team tables and the packing of ranges into staged tiles.
TYPED_TEST(GenredBlockSparse, ExtremeSegmentAndRangeLengths) {
  const SparseCase s{0, 700, 900, 0};
  HostPattern tiny(s.m, s.n);  // 700 one-row segments, each with 3 ranges of 1..3 rows
  for (int i = 0; i < s.m; ++i) {
    const int j0 = (i * 37) % (s.n - 20);
    tiny.add_segment(i + 1, {{j0, j0 + 1}, {j0 + 4, j0 + 6}, {j0 + 6, j0 + 9}});
  }
  check_sparse<TypeParam, float>(tessera::Sum{}, s, tiny, "one-row segments");
  check_sparse<TypeParam, double>(tessera::ArgKMin{5}, s, tiny, "one-row segments");

  HostPattern singles(s.m, s.n);  // one segment, every third j as its own range
  std::vector<std::pair<int, int>> every_third;
  for (int j = 0; j < s.n; j += 3)
    every_third.push_back({j, j + 1});
  singles.add_segment(s.m, every_third);
  check_sparse<TypeParam, float>(tessera::LogSumExp{}, s, singles, "one-row ranges");
  check_sparse<TypeParam, double>(tessera::MinArgMin{}, s, singles, "one-row ranges");
}

/// Both axes with every kernel of sparse_implementations().
template <class Space>
std::vector<std::pair<tessera::Axis, tessera::Implementation>> axes_and_kernels() {
  std::vector<std::pair<tessera::Axis, tessera::Implementation>> all;
  for (tessera::Implementation implementation : sparse_implementations<Space>()) {
    for (tessera::Axis axis : {tessera::Axis::j, tessera::Axis::i})
      all.push_back({axis, implementation});
  }
  return all;
}

// Every pair kept: the block-sparse call visits the same pairs in the same order as the dense
// 1D call of the same kernel, so selections agree bit for bit, whatever the segment and range
// cuts, and sums up to rounding (the cuts change where a tile's block sum ends).
TYPED_TEST(GenredBlockSparse, FullPatternEqualsDense) {
  using Space = TypeParam;
  using T     = float;
  using Mem   = typename Space::memory_space;
  const int m = 1001, n = 1300;
  HostPattern full(m, n);
  for (int end : {0, 100, 101, 600, 600, m})
    full.add_segment(end, {{0, 517}, {517, n}});
  const auto ranges = full.to_device<Space>();
  EXPECT_EQ(ranges.kept_pairs(), static_cast<std::int64_t>(m) * n);

  const ProblemData d = make_problem<T>(0, m, n, 5);
  auto sub2           = [](auto v) { return Kokkos::subview(v, 0, Kokkos::ALL, Kokkos::ALL); };
  auto p              = sub2(to_view<T, Space>("p", d.p, 0, 1, 1));
  auto x              = sub2(to_view<T, Space>("x", d.x, 0, m, 3));
  auto y              = sub2(to_view<T, Space>("y", d.y, 0, n, 3));
  auto b              = sub2(to_view<T, Space>("b", d.b, 0, n, 2));
  for (const auto& [axis, implementation] : axes_and_kernels<Space>()) {
    SCOPED_TRACE("kernel " + implementation_name(implementation));
    tessera::GenredOptions opt = tessera_test::test_options();
    opt.axis                   = axis;
    opt.scheme                 = tessera::Scheme::tiled_1d;
    opt.implementation         = implementation;
    const int rows             = axis == tessera::Axis::j ? m : n;
    using Out                  = Kokkos::View<T**, Mem>;
    using Idx                  = Kokkos::View<int**, Mem>;
    auto run_both              = [&](const auto& reduction, int cols, const std::string& name) {
      Out dense("dense", rows, cols), sparse("sparse", rows, cols);
      Idx dense_i("dense_i", rows, cols), sparse_i("sparse_i", rows, cols);
      tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                                   tessera::j_vars(y, b), tessera::outputs(dense, dense_i), opt);
      tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                                   tessera::j_vars(y, b), tessera::outputs(sparse, sparse_i), ranges, opt);
      EXPECT_EQ(host_rows(dense), host_rows(sparse)) << name;
      EXPECT_EQ(host_rows(dense_i), host_rows(sparse_i)) << name;
    };
    run_both(tessera::KMinArgKMin{3}, 9, "KMinArgKMin");
    run_both(tessera::MinArgMin{}, 3, "MinArgMin");
    Out dense("dense", rows, 3), sparse("sparse", rows, 3);
    tessera::genred(Space(), tessera::Sum{}, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                    tessera::j_vars(y, b), dense, opt);
    tessera::genred(Space(), tessera::Sum{}, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                    tessera::j_vars(y, b), sparse, ranges, opt);
    // Selections are exact; a sum may differ in the last bits, because the block sum flushes
    // once per tile and the tiles differ: the CUDA kernels give the dense scheme wider y tiles
    // than the sparse one, the host kernel cuts its tiles at the ranges' ends.
    const auto dense_h = host_rows(dense), sparse_h = host_rows(sparse);
    for (std::size_t e = 0; e < dense_h.size(); ++e)
      EXPECT_NEAR(dense_h[e], sparse_h[e], 1e-5 * (1 + std::abs(dense_h[e]))) << "Sum " << e;
  }
}

// No pair kept: every output row holds the reduction's empty-range value (reductions.hpp).
TYPED_TEST(GenredBlockSparse, EmptyPatternGivesEmptyRangeValues) {
  const SparseCase s{2, 300, 200, 0};
  HostPattern none(s.m, s.n);
  none.add_segment(120, {});
  none.add_segment(120, {{50, 50}});  // an empty segment with an empty range
  none.add_segment(s.m, {{7, 7}});
  check_sparse<TypeParam, float>(tessera::Sum{}, s, none, "empty pattern");
  check_sparse<TypeParam, float>(tessera::MinArgMin{}, s, none, "empty pattern");
  check_sparse<TypeParam, double>(tessera::KMinArgKMin{2}, s, none, "empty pattern");
  check_sparse<TypeParam, double>(tessera::LogSumExpWeighted{}, s, none, "empty pattern");
  check_sparse<TypeParam, double>(tessera::SumSoftMaxWeight{}, s, none, "empty pattern");
}

// Team sizes that are not powers of two are rounded down, and small tiles pack many ranges (the
// portable kernel's options: on host spaces it is forced, the host kernel has its own tiles).
TYPED_TEST(GenredBlockSparse, TeamAndTileOptions) {
  using Space = TypeParam;
  using T     = double;
  using Mem   = typename Space::memory_space;
  const int m = 333, n = 444;
  const HostPattern pattern = random_pattern(m, n, 6, 99);
  const auto ranges         = pattern.to_device<Space>();
  const ProblemData d       = make_problem<T>(0, m, n, 17);
  auto sub2 = [](auto v) { return Kokkos::subview(v, 0, Kokkos::ALL, Kokkos::ALL); };
  auto p    = sub2(to_view<T, Space>("p", d.p, 0, 1, 1));
  auto x    = sub2(to_view<T, Space>("x", d.x, 0, m, 3));
  auto y    = sub2(to_view<T, Space>("y", d.y, 0, n, 3));
  auto b    = sub2(to_view<T, Space>("b", d.b, 0, n, 2));
  const auto ref =
      tessera_ref::reduce(tessera::Sum{}, 1, m, n, 3, reference_formula(d, tessera::Axis::j),
                          [&](int i, int j) { return pattern.keeps(i, j); });
  for (int team : {0, 1, 3, 48, 100}) {
    for (int tile : {0, 1, 5, 64}) {
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.team_size              = std::min(team, tessera_test::largest_team<Space>());
      opt.tile_j                 = tile;
      if (tessera::Impl::GenredBackend<Space>::implementation == tessera::Implementation::host)
        opt.implementation = tessera::Implementation::portable;
      Kokkos::View<T**, Mem> out("out", m, 3);
      tessera::genred(Space(), tessera::Sum{}, MixedFormula{}, tessera::params(p),
                      tessera::i_vars(x), tessera::j_vars(y, b), out, ranges, opt);
      expect_matches(tessera::Sum{}, ref, host_rows(out), {}, 3, 1, tolerance<T>(),
                     "team " + std::to_string(team) + " tile " + std::to_string(tile));
    }
  }
}

TYPED_TEST(GenredBlockSparse, RejectsMismatchedRangesAndScheme) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  HostPattern pattern(10, 20);
  pattern.add_segment(10, {{0, 20}});
  const auto ranges = pattern.to_device<Space>();
  Kokkos::View<float**, Mem> x("x", 10, 3), y("y", 20, 3), x11("x11", 11, 3), y19("y19", 19, 3);
  Kokkos::View<float**, Mem> out("out", 10, 1), out11("out11", 11, 1);
  const auto sq = tessera::SquaredDistance<3>{};
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Min{}, sq, tessera::i_vars(x11), tessera::j_vars(y),
                        out11, ranges);
      },
      {"ranges M (got 10, expected 11, the call's i rows)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Min{}, sq, tessera::i_vars(x), tessera::j_vars(y19), out,
                        ranges);
      },
      {"ranges N (got 20, expected 19, the call's j rows)"});
  tessera::GenredOptions opt = tessera_test::test_options();
  opt.scheme                 = tessera::Scheme::tiled_2d;
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Min{}, sq, tessera::i_vars(x), tessera::j_vars(y), out,
                        ranges, opt);
      },
      {"Scheme::tiled_2d is not available with ranges"});
}

}  // namespace
