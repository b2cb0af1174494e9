// Point vectors of every layout: pdist, cdist and pairwise() over LayoutLeft, LayoutStride and
// padded LayoutRight Views give exactly the values of the same call on a packed LayoutRight copy
// (whatever order the condensed output has), from host memory and from the execution space's.
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/pairwise/pairwise.hpp>

#include "execution_spaces.hpp"
#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>

namespace {

using tessera_test::expect_rejected;

template <class ExecSpace>
class PointLayouts : public ::testing::Test {};
TYPED_TEST_SUITE(PointLayouts, tessera_test::ExecutionSpaces);

template <class T, class MemorySpace>
using Right = Kokkos::View<T**, Kokkos::LayoutRight, MemorySpace>;

/// n x d normal points, LayoutRight in host memory.
Right<double, Kokkos::HostSpace> random_points(int n, int d, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  Right<double, Kokkos::HostSpace> x("points", n, d);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k)
      x(i, k) = normal(gen);
  return x;
}

/// The points x in MemorySpace in four layouts: packed LayoutRight (the reference), LayoutLeft,
/// LayoutStride (every other element of a rank-3 array: strides (2 d, 2)) and the first d
/// columns of rows of d + 3 (a subview: rows d + 3 values apart).
template <class MemorySpace>
struct Layouts {
  Right<double, MemorySpace> right;
  Kokkos::View<double**, Kokkos::LayoutLeft, MemorySpace> left;
  Kokkos::View<double**, Kokkos::LayoutStride, MemorySpace> strided;
  decltype(Kokkos::subview(Right<double, MemorySpace>(), Kokkos::ALL,
                           std::make_pair(std::size_t(0), std::size_t(0)))) padded;

  explicit Layouts(const Right<double, Kokkos::HostSpace>& x) {
    const std::size_t n = x.extent(0), d = x.extent(1);
    Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> left_h("left", n, d);
    Kokkos::View<double***, Kokkos::LayoutRight, Kokkos::HostSpace> pairs_h("pairs", n, d, 2);
    Right<double, Kokkos::HostSpace> wide_h("wide", n, d + 3);
    Kokkos::deep_copy(pairs_h, -1e300);  // the unused elements would spoil any value read
    Kokkos::deep_copy(wide_h, -1e300);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < d; ++k) {
        left_h(i, k)     = x(i, k);
        pairs_h(i, k, 1) = x(i, k);
        wide_h(i, k)     = x(i, k);
      }
    }
    right   = Kokkos::create_mirror_view_and_copy(MemorySpace{}, x);
    left    = Kokkos::create_mirror_view_and_copy(MemorySpace{}, left_h);
    strided = Kokkos::subview(Kokkos::create_mirror_view_and_copy(MemorySpace{}, pairs_h),
                              Kokkos::ALL, Kokkos::ALL, 1);
    padded  = Kokkos::subview(Kokkos::create_mirror_view_and_copy(MemorySpace{}, wide_h),
                              Kokkos::ALL, std::make_pair(std::size_t(0), d));
  }
};

/// Expects two Views of one extent, in any memory, to hold the same values exactly.
template <class A, class B>
void expect_same_values(const A& got, const B& want, const std::string& what) {
  const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, got);
  const auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, want);
  ASSERT_EQ(g.size(), w.size()) << what;
  for (std::size_t k = 0; k < g.size(); ++k)
    ASSERT_EQ(g.data()[k], w.data()[k]) << what << ", value " << k;
}

/// pdist, cdist and pairwise() on every layout of x (n x D) and y (m x D) in MemorySpace,
/// against the same calls on the packed LayoutRight Views, with several blocks.
template <class ExecSpace, class MemorySpace, int D, class F>
void check_layouts(const F& f, int n, int m) {
  const Layouts<MemorySpace> x(random_points(n, D, 5 + n)), y(random_points(m, D, 7 + m));
  tessera::PairwiseOptions options;
  options.budget_bytes   = 4 * 16 * 16 * sizeof(double);  // several blocks
  options.min_block_side = 0;
  const ExecSpace space;
  using Out = typename ExecSpace::memory_space;
  Kokkos::View<double*, Out> condensed_ref("condensed_ref", n * (n - (n > 0)) / 2);
  Kokkos::View<double**, Kokkos::LayoutRight, Out> cross_ref("cross_ref", n, m);
  tessera::pdist(space, f, x.right, condensed_ref, options);
  tessera::cdist(space, f, x.right, y.right, cross_ref, options);
  auto each = [&](const auto& xv, const auto& yv, const std::string& what) {
    Kokkos::View<double*, Out> condensed("condensed", condensed_ref.extent(0));
    Kokkos::View<double**, Kokkos::LayoutRight, Out> cross("cross", n, m), generic("generic", n, m);
    tessera::pdist(space, f, xv, condensed, options);
    expect_same_values(condensed, condensed_ref, "pdist, " + what);
    tessera::cdist(space, f, xv, yv, cross, options);
    expect_same_values(cross, cross_ref, "cdist, " + what);
    tessera::PointBlockOp<ExecSpace, F, double, MemorySpace> op(f, xv, yv);
    tessera::pairwise(space, op, tessera::MatrixLayout::dense, generic, options);
    expect_same_values(generic, cross_ref, "pairwise, " + what);
  };
  each(x.left, y.left, "LayoutLeft");
  each(x.strided, y.strided, "LayoutStride");
  each(x.padded, y.padded, "padded LayoutRight");
  each(x.left, y.strided, "LayoutLeft x LayoutStride");
  each(x.strided, y.right, "LayoutStride x LayoutRight");
}

TYPED_TEST(PointLayouts, EveryLayoutGivesThePackedResult) {
  using Dev = typename TypeParam::memory_space;
  // Host inputs stream to a device space; inputs in its memory are read where they are.
  check_layouts<TypeParam, Kokkos::HostSpace, 3>(tessera::EuclideanDistance<3>{}, 37, 29);
  check_layouts<TypeParam, Dev, 3>(tessera::EuclideanDistance<3>{}, 37, 29);
  check_layouts<TypeParam, Dev, 5>(tessera::CosineSimilarity<5>{}, 1, 23);
  check_layouts<TypeParam, Kokkos::HostSpace, 1>(tessera::SquaredDistance<1>{}, 2, 1);
  check_layouts<TypeParam, Dev, 2>(tessera::EuclideanDistance<2>{}, 0, 3);
}

TEST(PointLayouts, PackedInputsAreNotCopied) {
  const auto x = random_points(11, 4, 3);
  // A LayoutStride View with packed strides aliases the caller's memory.
  const Kokkos::View<const double**, Kokkos::LayoutStride, Kokkos::HostSpace> strided = x;
  EXPECT_EQ(tessera::Impl::packed_points(x).data(), x.data());
  EXPECT_EQ(tessera::Impl::packed_points(strided).data(), x.data());
  const Layouts<Kokkos::HostSpace> views(x);
  const auto copy = tessera::Impl::packed_points(views.left);
  EXPECT_NE(copy.data(), views.left.data());
  for (int i = 0; i < 11; ++i)
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(copy(i, k), x(i, k)) << i << ", " << k;
  // pdist's two sides share one copy.
  const auto both = tessera::Impl::packed_point_pair(views.left, views.left);
  EXPECT_EQ(both.first.data(), both.second.data());
}

TYPED_TEST(PointLayouts, WrongExtentsAreRejectedNamingTheArgument) {
  const TypeParam space;
  const Layouts<Kokkos::HostSpace> x(random_points(6, 3, 1));
  const Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> y4("y4", 5, 4);
  Kokkos::View<double*, Kokkos::HostSpace> condensed("condensed", 15);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> cross("cross", 6, 5);
  Kokkos::deep_copy(condensed, -7.0);
  Kokkos::deep_copy(cross, -7.0);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::EuclideanDistance<4>{}, x.left, condensed); },
      {"tessera::pdist", "X extent(1) (got 3, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::EuclideanDistance<4>{}, x.strided, condensed); },
      {"tessera::pdist", "X extent(1) (got 3, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::EuclideanDistance<3>{}, x.strided, y4, cross); },
      {"tessera::cdist", "Y extent(1) (got 4, expected 3)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::EuclideanDistance<4>{}, x.padded, y4, cross); },
      {"tessera::cdist", "X extent(1) (got 3, expected 4)"});
  for (std::size_t k = 0; k < 15; ++k)
    ASSERT_EQ(condensed(k), -7.0) << "condensed(" << k << ") was written";
  for (std::size_t k = 0; k < 30; ++k)
    ASSERT_EQ(cross.data()[k], -7.0) << "cross value " << k << " was written";
}

}  // namespace
