// permute_rows / unpermute_rows: rows land where the permutation says, for rank-1 and rank-2
// Views of several layouts and types; a round trip restores the original; bad permutations and
// extents are rejected before anything is written.
#include "genred/genred_test_support.hpp"

#include <tessera/genred/permute_rows.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class PermuteRows : public ::testing::Test {};
TYPED_TEST_SUITE(PermuteRows, ExecutionSpaces);

template <class Space, class Layout, class T>
void check_rank2(int n, int width, unsigned seed) {
  using Mem = typename Space::memory_space;
  std::mt19937 gen(seed);
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), gen);
  Kokkos::View<T**, Layout, Mem> v("v", n, width), back("back", n, width);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c)
      h(r, c) = static_cast<T>(r * 100 + c);
  }
  Kokkos::deep_copy(v, h);
  const auto perm = int_view<Space>(p);
  tessera::permute_rows(Space(), perm, v);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c)
      ASSERT_EQ(hv(r, c), static_cast<T>(p[r] * 100 + c)) << "row " << r;
  }
  tessera::unpermute_rows(Space(), perm, v, back);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < width; ++c)
      ASSERT_EQ(hb(r, c), static_cast<T>(r * 100 + c)) << "row " << r;
  }
}

TYPED_TEST(PermuteRows, Rank2LayoutsAndTypes) {
  for (int n : {0, 1, 2, 7, 1000, 4099}) {
    check_rank2<TypeParam, Kokkos::LayoutRight, double>(n, 3, n + 1);
    check_rank2<TypeParam, Kokkos::LayoutLeft, float>(n, 5, n + 2);
    check_rank2<TypeParam, Kokkos::LayoutLeft, int>(n, 1, n + 3);
  }
}

TYPED_TEST(PermuteRows, Rank1) {
  using Mem                = typename TypeParam::memory_space;
  const std::vector<int> p = {3, 0, 4, 1, 2};
  Kokkos::View<long*, Mem> v("v", 5), back("back", 5);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < 5; ++r)
    h(r) = 10 + r;
  Kokkos::deep_copy(v, h);
  tessera::permute_rows(TypeParam(), int_view<TypeParam>(p), v);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  for (int r = 0; r < 5; ++r)
    EXPECT_EQ(hv(r), 10 + p[r]);
  tessera::unpermute_rows(TypeParam(), int_view<TypeParam>(p), v, back);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back);
  for (int r = 0; r < 5; ++r)
    EXPECT_EQ(hb(r), 10 + r);
}

TYPED_TEST(PermuteRows, RejectsBadInput) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  Kokkos::View<double**, Mem> v("v", 4, 2), w3("w3", 4, 3), r5("r5", 5, 2);
  Kokkos::deep_copy(v, 7.0);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::permute_rows(Space(), int_view<Space>({0, 1, 4, 2}), v);
      },
      {"tessera::permute_rows: perm holds 1 values outside [0, 4)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::permute_rows(Space(), int_view<Space>({0, -1, 3, 2}), v);
      },
      {"perm holds 1 values outside [0, 4)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::permute_rows(Space(), int_view<Space>({0, 1, 2}), v);
      },
      {"tessera::permute_rows: perm extent (got 3, expected 4)"});
  for (double e : host_rows(v))
    ASSERT_EQ(e, 7.0) << "written before the exception";
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
}

}  // namespace
