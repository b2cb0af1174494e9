// interval_expand against a direct host loop: the seed's demonstration exactly; random, all-zero,
// one-huge, power-law and alternating counts; sizes 0, 1 and primes; int, double and a 12-byte
// struct; bad extents rejected before any write.
#include "execution_spaces.hpp"
#include "interval/interval_test_support.hpp"

#include <tessera/interval/interval_expand.hpp>

#include <gtest/gtest.h>

#include <cstdint>
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
  using Space                   = TypeParam;
  const std::vector<int> counts   = tessera_test::seed_expand_counts();
  const std::vector<int> values = {1,  1,   2,   3,   5,   8,   13,   21,   34,   55,
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

template <class Space, class T>
void check_distributions() {
  using Mem = typename Space::memory_space;
  for (const std::string& kind : tessera_test::count_kinds()) {
    for (const int n : {0, 1, 13, 1009, 4001}) {
      const std::vector<int> counts = make_counts(kind, n, 29 + n);
      std::vector<T> values(n), expected;
      for (int k = 0; k < n; ++k) {
        values[k] = value_of<T>(k);
        expected.insert(expected.end(), counts[k], values[k]);
      }
      std::int64_t total = 0;
      const auto offsets = tessera_test::scan_counts<Space>(counts, total);
      ASSERT_EQ(total, static_cast<std::int64_t>(expected.size()));
      Kokkos::View<T*, Mem> out("out", total);
      tessera::interval_expand(Space(), total, offsets, device_view<T, Space>(values), out);
      EXPECT_TRUE(host_vector(out) == expected) << kind << ", n = " << n;
    }
  }
}

TYPED_TEST(IntervalExpand, MatchesHostLoop) {
  check_distributions<TypeParam, int>();
  check_distributions<TypeParam, double>();
  check_distributions<TypeParam, Vec3>();
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

}  // namespace
