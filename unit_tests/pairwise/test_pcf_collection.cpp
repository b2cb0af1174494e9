// PcfCollection validation and the pairwise calls' argument checks: every defect is named with
// its first bad function before any kernel runs, and a rejected call writes nothing.
#include <tessera/pairwise/pairwise.hpp>

#include "execution_spaces.hpp"
#include "expect_rejected.hpp"
#include "reference/pcf_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using tessera_test::expect_rejected;
using tessera_test::HostPcf;

/// Five valid functions, then `edit` applied to function 3.
template <class Edit>
tessera::PcfCollection<double> with_defect(Edit edit) {
  auto f = tessera_test::random_pcfs(5, 3, 2, 6);
  edit(f[3]);
  return tessera_test::to_collection<double>(f);
}

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

TEST(ValidatePcfs, AcceptsValidFunctionsAndSummarisesThem) {
  const auto f       = tessera_test::random_pcfs(9, 1, 1, 12);
  const auto s       = tessera::validate_pcfs(tessera_test::to_collection<float>(f));
  std::size_t points = 0, longest = 0;
  for (const HostPcf& p : f) {
    points += p.t.size();
    longest = std::max(longest, p.t.size());
  }
  EXPECT_EQ(s.functions, 9u);
  EXPECT_EQ(s.points, points);
  EXPECT_EQ(s.max_points, longest);
}

TEST(ValidatePcfs, NamesTheFirstBadFunctionAndItsDefect) {
  const auto unsorted = with_defect([](HostPcf& p) { std::swap(p.t[0], p.t[1]); });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(unsorted); },
                                         {"function 3", "do not increase"});
  const auto nan_time = with_defect([](HostPcf& p) { p.t[1] = nan; });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(nan_time); },
                                         {"function 3", "NaN or infinite time"});
  const auto inf_value = with_defect([](HostPcf& p) { p.v[0] = inf; });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(inf_value); },
                                         {"function 3", "NaN or infinite value"});
  const auto tail = with_defect([](HostPcf& p) { p.v.back() = 2; });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(tail); },
                                         {"function 3", "non-zero value"});
  // The same tail is fine with a finite end.
  EXPECT_EQ(tessera::validate_pcfs(tail, 100.0).functions, 5u);
  // An empty function: offsets 0, 2, 2, ...
  Kokkos::View<std::size_t*, Kokkos::HostSpace> off("off", 3);
  Kokkos::View<double* [2], Kokkos::LayoutRight, Kokkos::HostSpace> bp("bp", 2);
  bp(1, 0) = 1;
  off(1) = off(2) = 2;
  expect_rejected<std::invalid_argument>(
      [&] { tessera::validate_pcfs(tessera::PcfCollection<double>(off, bp)); },
      {"function 1", "no breakpoints"});
  off(2) = 1;
  expect_rejected<std::invalid_argument>(
      [&] { tessera::validate_pcfs(tessera::PcfCollection<double>(off, bp)); },
      {"offsets run from 0 to 1", "expected 0 to 2"});
}

TEST(ValidatePcfs, RunsOnDeviceViews) {
  using Mem           = Kokkos::DefaultExecutionSpace::memory_space;
  const auto unsorted = with_defect([](HostPcf& p) { std::swap(p.t[0], p.t[1]); });
  expect_rejected<std::invalid_argument>(
      [&] { tessera::validate_pcfs(tessera_test::copy_to<Mem>(unsorted)); },
      {"function 3", "do not increase"});
}

TEST(FunctionShape, SizesAndReshape) {
  const auto X = tessera_test::to_collection<double>(tessera_test::random_pcfs(12, 2, 1, 3));
  EXPECT_EQ(X.reshaped({3, 4}).shape().size(), 12u);
  EXPECT_EQ(X.reshaped({2, 3, 2}).shape().rank(), 3);
  expect_rejected<std::invalid_argument>(
      [&] {
        X.reshaped({5, 2});
      },
      {"reshaped", "holds 10 functions", "expected 12"});
  expect_rejected<std::invalid_argument>(
      [] {
        tessera::FunctionShape({1, 2, 3, 4, 5});
      },
      {"FunctionShape", "rank 5"});
}

template <class ExecSpace>
class PairwiseArguments : public ::testing::Test {};
TYPED_TEST_SUITE(PairwiseArguments, tessera_test::ExecutionSpaces);

TYPED_TEST(PairwiseArguments, BadInputIsRejectedWithNothingWritten) {
  const auto good = tessera_test::to_collection<double>(tessera_test::random_pcfs(6, 4, 1, 5));
  const auto bad  = with_defect([](HostPcf& p) { p.t[0] = nan; });
  Kokkos::View<double*, Kokkos::HostSpace> out("out", 15), small("small", 14);
  Kokkos::deep_copy(out, -7.0);
  auto untouched = [&] {
    for (std::size_t k = 0; k < out.extent(0); ++k)
      ASSERT_EQ(out(k), -7.0) << "value " << k << " was written";
  };
  const TypeParam space;
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::pdist(space, tessera::PcfL1{},
                       with_defect([](HostPcf& p) { std::swap(p.t[0], p.t[1]); }),
                       Kokkos::View<double*, Kokkos::HostSpace>("o", 10));
      },
      {"pdist", "X function 3"});
  expect_rejected<std::invalid_argument>([&] { tessera::pdist(space, tessera::PcfL1{}, bad, out); },
                                         {"pdist", "X function 3", "NaN"});
  for (double p : {0.0, -1.0, nan}) {
    expect_rejected<std::invalid_argument>(
        [&] { tessera::pdist(space, tessera::PcfLp{p}, good, out); },
        {"pdist", "expected a finite p > 0"});
  }
  untouched();
  expect_rejected<std::invalid_argument>([&] { tessera::pdist(space, good, small); },
                                         {"pdist", "out extents (14)", "expected (15)"});
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> cross("cross", 6, 4);
  Kokkos::deep_copy(cross, -7.0);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::PcfL1{}, good, good, cross); },
      {"cdist", "out extents (6, 4)", "expected (6, 6)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::PcfL1{}, good, bad, cross); },
      {"cdist", "Y function 3"});
  EXPECT_EQ(cross(5, 3), -7.0);
  expect_rejected<std::invalid_argument>([&] { tessera::pdist(space, good, tessera::NpyFile{""}); },
                                         {"pdist", "path is empty"});
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> points("points", 5, 3);
  Kokkos::View<float*, Kokkos::HostSpace> pairs("pairs", 10);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::EuclideanDistance<4>{}, points, pairs); },
      {"pdist", "X", "extent(1)"});
  untouched();
}

}  // namespace
