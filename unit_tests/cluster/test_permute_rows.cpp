// permute_rows / unpermute_rows: rows land where the permutation says, for rank-1 and rank-2
// Views of several layouts and types (strided subviews included); a round trip restores the
// original; bad permutations and extents are rejected before anything is written.
#include "genred/genred_test_support.hpp"

#include <tessera/cluster/permute_rows.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class PermuteRows : public ::testing::Test {};
TYPED_TEST_SUITE(PermuteRows, ExecutionSpaces);

std::vector<int> random_permutation(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), gen);
  return p;
}

/// The value stored in row r, column c of the test Views: distinct for every (r, c).
template <class T>
T tag(int r, int c) {
  return static_cast<T>(r * 16 + c);
}

template <class Space, class Layout, class T>
void check_rank2(int n, int width, unsigned seed) {
  using Mem                = typename Space::memory_space;
  const std::vector<int> p = random_permutation(n, seed);
  const auto perm          = int_view<Space>(p);
  Kokkos::View<T**, Layout, Mem> v("v", n, width), back("back", n, width);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c)
      h(r, c) = tag<T>(r, c);
  }
  Kokkos::deep_copy(v, h);
  tessera::permute_rows(Space(), perm, v);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c)
      ASSERT_EQ(hv(r, c), tag<T>(p[r], c)) << "n " << n << " row " << r << " column " << c;
  }
  tessera::unpermute_rows(Space(), perm, v, back);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c)
      ASSERT_EQ(hb(r, c), tag<T>(r, c)) << "round trip, n " << n << " row " << r;
  }
}

TYPED_TEST(PermuteRows, Rank2LayoutsAndTypes) {
  for (int n : {0, 1, 2, 7, 1000, 4099}) {
    check_rank2<TypeParam, Kokkos::LayoutRight, double>(n, 3, n + 1);
    check_rank2<TypeParam, Kokkos::LayoutLeft, double>(n, 4, n + 2);
    check_rank2<TypeParam, Kokkos::LayoutRight, int>(n, 2, n + 3);
    check_rank2<TypeParam, Kokkos::LayoutLeft, int>(n, 1, n + 4);
    check_rank2<TypeParam, Kokkos::LayoutLeft, float>(n, 5, n + 5);
  }
}

template <class Space, class T>
void check_rank1(int n, unsigned seed) {
  using Mem                = typename Space::memory_space;
  const std::vector<int> p = random_permutation(n, seed);
  const auto perm          = int_view<Space>(p);
  Kokkos::View<T*, Mem> v("v", n), back("back", n);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < n; ++r)
    h(r) = tag<T>(r, 1);
  Kokkos::deep_copy(v, h);
  tessera::permute_rows(Space(), perm, v);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(hv(r), tag<T>(p[r], 1)) << "n " << n << " row " << r;
  tessera::unpermute_rows(Space(), perm, v, back);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(hb(r), tag<T>(r, 1)) << "round trip, n " << n << " row " << r;
}

TYPED_TEST(PermuteRows, Rank1Types) {
  for (int n : {0, 1, 2, 7, 1000, 4099}) {
    check_rank1<TypeParam, int>(n, n + 11);
    check_rank1<TypeParam, double>(n, n + 12);
    check_rank1<TypeParam, std::int64_t>(n, n + 13);
  }
}

// A strided column of a LayoutRight View and a permutation held in a View of int64.
TYPED_TEST(PermuteRows, StridedViewAndWidePermutation) {
  using Space              = TypeParam;
  using Mem                = typename Space::memory_space;
  const int n              = 7;
  const std::vector<int> p = {6, 0, 5, 1, 4, 2, 3};
  Kokkos::View<std::int64_t*, Mem> perm("perm", n);
  auto hp = Kokkos::create_mirror_view(perm);
  for (int r = 0; r < n; ++r)
    hp(r) = p[r];
  Kokkos::deep_copy(perm, hp);
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> all("all", n, 3);
  auto ha = Kokkos::create_mirror_view(all);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < 3; ++c)
      ha(r, c) = tag<double>(r, c);
  }
  Kokkos::deep_copy(all, ha);
  const auto column = Kokkos::subview(all, Kokkos::ALL, 1);  // LayoutStride
  tessera::permute_rows(Space(), perm, column);
  Kokkos::deep_copy(ha, all);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(ha(r, 0), tag<double>(r, 0)) << "other columns untouched";
    EXPECT_EQ(ha(r, 1), tag<double>(p[r], 1)) << "row " << r;
    EXPECT_EQ(ha(r, 2), tag<double>(r, 2)) << "other columns untouched";
  }
}

TYPED_TEST(PermuteRows, RejectsBadInputBeforeWriting) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  Kokkos::View<double**, Mem> v("v", 4, 2), w3("w3", 4, 3), r5("r5", 5, 2), out("out", 4, 2);
  Kokkos::View<double*, Mem> r1("r1", 4);
  Kokkos::deep_copy(v, 7.0);
  Kokkos::deep_copy(r1, 7.0);
  Kokkos::deep_copy(out, 9.0);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::permute_rows(Space(), int_view<Space>({0, 1, 4, 2}), v);
      },
      {"tessera::permute_rows: perm values must lie in [0, 4) (got min 0, max 4"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::permute_rows(Space(), int_view<Space>({0, -1, 3, 2}), r1);
      },
      {"tessera::permute_rows: perm values must lie in [0, 4) (got min -1, max 3"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::permute_rows(Space(), int_view<Space>({0, 1, 2}), v);
      },
      {"tessera::permute_rows: perm extent (got 3, expected 4)"});
  for (double e : host_rows(v))
    ASSERT_EQ(e, 7.0) << "written before the exception";
  auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r1);
  for (int r = 0; r < 4; ++r)
    ASSERT_EQ(h1(r), 7.0) << "written before the exception";

  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::unpermute_rows(Space(), int_view<Space>({0, 1, 2, 3}), v, w3);
      },
      {"tessera::unpermute_rows: out columns (got 3, expected 2)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::unpermute_rows(Space(), int_view<Space>({0, 1, 2, 3}), v, r5);
      },
      {"tessera::unpermute_rows: out rows (got 5, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::unpermute_rows(Space(), int_view<Space>({0, 1, 2, 3, 4}), v, out);
      },
      {"tessera::unpermute_rows: perm extent (got 5, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::unpermute_rows(Space(), int_view<Space>({3, 2, 1, 8}), v, out);
      },
      {"tessera::unpermute_rows: perm values must lie in [0, 4) (got min 1, max 8"});
  for (double e : host_rows(out))
    ASSERT_EQ(e, 9.0) << "written before the exception";
}

// A View permuted in place must not share memory with perm; unpermute_rows' out shares memory
// with neither sorted nor perm (documented; each would read rows it has overwritten).
TYPED_TEST(PermuteRows, RejectsAliasedArguments) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  auto perm   = int_view<Space>({1, 0, 3, 2});
  Kokkos::View<int*, Mem> ints("ints", 4), out("out", 4);
  Kokkos::deep_copy(ints, 9);
  Kokkos::deep_copy(out, 9);
  expect_rejected<std::invalid_argument>([&] { tessera::permute_rows(Space(), perm, perm); },
                                         {"tessera::permute_rows: view shares memory with perm"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::unpermute_rows(Space(), perm, ints, ints); },
      {"tessera::unpermute_rows: out shares memory with sorted"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::unpermute_rows(Space(), perm, ints, perm); },
      {"tessera::unpermute_rows: out shares memory with perm"});
  EXPECT_EQ(host_ints(perm), (std::vector<int>{1, 0, 3, 2}));
  EXPECT_EQ(host_ints(ints), (std::vector<int>{9, 9, 9, 9}));
  // disjoint Views: accepted
  tessera::unpermute_rows(Space(), perm, ints, out);
  EXPECT_EQ(host_ints(out), (std::vector<int>{9, 9, 9, 9}));
}

}  // namespace
