// core/impl/memory_overlap.hpp: the byte ranges behind the "shares memory" rejections. Views that
// share elements overlap, disjoint ones do not, a strided View's range ends at its last element,
// and a View with no elements overlaps nothing, whatever its strides (strided slices of a larger
// View once reached into the next allocation: a false "shares memory").
#include <tessera/core/impl/memory_overlap.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <utility>

namespace {

using tessera::Impl::views_share_memory;
using View3 = Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::HostSpace>;

TEST(MemoryOverlap, SharedAndDisjointRows) {
  View3 v("v", 2, 10, 3);
  const auto rows = [&](int first, int last) {
    return Kokkos::subview(v, Kokkos::ALL(), std::make_pair(first, last), Kokkos::ALL());
  };
  EXPECT_TRUE(views_share_memory(rows(0, 5), rows(4, 8)));
  // strided Views count their gaps: rows 0-4 of both batch entries span rows 5-9 of entry 0
  EXPECT_TRUE(views_share_memory(rows(0, 5), rows(5, 10)));
  View3 other("other", 2, 10, 3);
  EXPECT_FALSE(views_share_memory(v, other));
}

// Rows 4-9 of batch entry 0 end where batch entry 1 begins: they do not reach its rows 0-3 (the
// View's span(), the largest extent x stride, would).
TEST(MemoryOverlap, StridedRangesEndAtTheLastElement) {
  View3 v("v", 2, 10, 3);
  const auto tail = Kokkos::subview(v, std::make_pair(0, 1), std::make_pair(4, 10), Kokkos::ALL());
  const auto head = Kokkos::subview(v, std::make_pair(1, 2), std::make_pair(0, 4), Kokkos::ALL());
  const auto next = Kokkos::subview(v, std::make_pair(1, 2), std::make_pair(0, 1), Kokkos::ALL());
  EXPECT_FALSE(views_share_memory(tail, head));
  EXPECT_FALSE(views_share_memory(tail, next));
  const auto last = Kokkos::subview(v, std::make_pair(0, 1), std::make_pair(9, 10), Kokkos::ALL());
  EXPECT_TRUE(views_share_memory(tail, last));
}

TEST(MemoryOverlap, EmptyViewsOverlapNothing) {
  View3 v("v", 1, 10, 3);
  // an empty slice of rows, taken as the distributed tests take a rank's slice
  const auto empty3 = Kokkos::subview(v, std::make_pair(0, 1), std::make_pair(4, 4), Kokkos::ALL());
  const auto empty2 = Kokkos::subview(empty3, 0, Kokkos::ALL(), Kokkos::ALL());
  const auto row    = Kokkos::subview(v, std::make_pair(0, 1), std::make_pair(7, 8), Kokkos::ALL());
  EXPECT_FALSE(views_share_memory(empty3, v));
  EXPECT_FALSE(views_share_memory(empty2, v));
  EXPECT_FALSE(views_share_memory(v, empty2));
  EXPECT_FALSE(views_share_memory(empty2, row));
  EXPECT_TRUE(views_share_memory(row, v));
}

}  // namespace
