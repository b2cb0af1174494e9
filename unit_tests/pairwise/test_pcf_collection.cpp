// PcfCollection validation and the pairwise calls' argument checks: every defect is named with
// its first bad function before any kernel runs, and a rejected call writes nothing.
#include <tessera/pairwise/pairwise.hpp>

#include "execution_spaces.hpp"
#include "expect_rejected.hpp"
#include "reference/pcf_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
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

/// validate_pcfs accepts random functions f as T and counts their functions and breakpoints.
template <class T>
void expect_summary(const std::vector<HostPcf>& f) {
  const auto s       = tessera::validate_pcfs(tessera_test::to_collection<T>(f));
  std::size_t points = 0, longest = 0;
  for (const HostPcf& p : f) {
    points += p.t.size();
    longest = std::max(longest, p.t.size());
  }
  EXPECT_EQ(s.functions, f.size());
  EXPECT_EQ(s.points, points);
  EXPECT_EQ(s.max_points, longest);
}

TEST(ValidatePcfs, AcceptsValidFunctionsAndSummarisesThem) {
  expect_summary<float>(tessera_test::random_pcfs(9, 1, 1, 12));
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

TEST(ValidatePcfs, RejectsADefaultConstructedCollection) {
  expect_rejected<std::invalid_argument>(
      [] { tessera::validate_pcfs(tessera::PcfCollection<double>{}); },
      {"pcfs offsets has no entries"});
  Kokkos::View<double*, Kokkos::HostSpace> out("out", 0);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::pdist(Kokkos::DefaultHostExecutionSpace{}, tessera::PcfCollection<double>{}, out);
      },
      {"pdist", "X offsets has no entries"});
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

/// A host collection written out by hand: offsets and (t, v) rows, checked by nothing.
tessera::PcfCollection<double> raw(const std::vector<std::size_t>& offsets,
                                   const std::vector<std::pair<double, double>>& points) {
  Kokkos::View<std::size_t*, Kokkos::HostSpace> off("off", offsets.size());
  Kokkos::View<double* [2], Kokkos::LayoutRight, Kokkos::HostSpace> bp("bp", points.size());
  for (std::size_t k = 0; k < offsets.size(); ++k)
    off(k) = offsets[k];
  for (std::size_t k = 0; k < points.size(); ++k) {
    bp(k, 0) = points[k].first;
    bp(k, 1) = points[k].second;
  }
  return {off, bp};
}

/// Seven valid functions of 2 to 6 breakpoints, then `edit` applied to each function in `bad`;
/// also returns where each function's breakpoints begin.
template <class Edit>
tessera::PcfCollection<double> with_defects(const std::vector<std::size_t>& bad, Edit edit,
                                            std::vector<std::size_t>* begins = nullptr) {
  auto f = tessera_test::random_pcfs(7, 4, 2, 6);
  for (std::size_t b : bad)
    edit(f[b]);
  if (begins) {
    begins->assign(1, 0);
    for (const HostPcf& p : f)
      begins->push_back(begins->back() + p.t.size());
  }
  return tessera_test::to_collection<double>(f);
}

TEST(ValidatePcfs, SummarisesDoubleHandWrittenAndEmptyCollections) {
  expect_summary<double>(tessera_test::random_pcfs(14, 21, 1, 9));

  // Three functions of 3, 1 and 2 breakpoints; negative and fractional times are fine.
  const auto hand = tessera::validate_pcfs(
      raw({0, 3, 4, 6}, {{0, 1}, {1, 2}, {2, 0}, {-3, 0}, {0.5, 4}, {7, 0}}));
  EXPECT_EQ(hand.functions, 3u);
  EXPECT_EQ(hand.points, 6u);
  EXPECT_EQ(hand.max_points, 3u);
  // One function of one breakpoint, and no function at all (offsets = {0}).
  const auto one = tessera::validate_pcfs(raw({0, 1}, {{5, 0}}));
  EXPECT_EQ(one.functions, 1u);
  EXPECT_EQ(one.points, 1u);
  EXPECT_EQ(one.max_points, 1u);
  const auto none = tessera::validate_pcfs(raw({0}, {}));
  EXPECT_EQ(none.functions, 0u);
  EXPECT_EQ(none.points, 0u);
  EXPECT_EQ(none.max_points, 0u);
}

TEST(ValidatePcfs, NamesTheFirstBadFunctionOfSeveral) {
  std::vector<std::size_t> begins;
  const auto two = with_defects(
      {5, 2}, [](HostPcf& p) { p.v[0] = nan; }, &begins);
  // Function 2 is named, with its global breakpoint range and the function-local breakpoint.
  expect_rejected<std::invalid_argument>(
      [&] { tessera::validate_pcfs(two); },
      {"tessera::validate_pcfs: pcfs function 2 (breakpoints " + std::to_string(begins[2]) +
           " to " + std::to_string(begins[3]) + ", at breakpoint 0)",
       "has a NaN or infinite value"});
  // Every function bad: function 0; the caller and argument names are the ones passed.
  const auto all = with_defects({0, 1, 2, 3, 4, 5, 6}, [](HostPcf& p) { p.t.back() = nan; });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(all, inf, "cdist", "Y"); },
                                         {"tessera::cdist: Y function 0", "NaN or infinite time"});
  // The last function alone.
  const auto last = with_defects({6}, [](HostPcf& p) { p.t.back() = p.t.front(); });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(last); },
                                         {"function 6", "do not increase strictly"});
}

TEST(ValidatePcfs, RejectsEachDefectOfTimesAndValues) {
  struct Case {
    const char* name;
    void (*edit)(HostPcf&);
    const char* message;
  };
  const Case cases[] = {
      {"equal times", [](HostPcf& p) { p.t[1] = p.t[0]; }, "do not increase strictly"},
      {"decreasing last time", [](HostPcf& p) { p.t.back() = p.t.front() - 1; },
       "do not increase strictly"},
      {"NaN time", [](HostPcf& p) { p.t[0] = nan; }, "has a NaN or infinite time"},
      {"+inf last time", [](HostPcf& p) { p.t.back() = inf; }, "has a NaN or infinite time"},
      {"-inf first time", [](HostPcf& p) { p.t[0] = -inf; }, "has a NaN or infinite time"},
      {"NaN value", [](HostPcf& p) { p.v[1] = nan; }, "has a NaN or infinite value"},
      {"-inf value", [](HostPcf& p) { p.v[0] = -inf; }, "has a NaN or infinite value"},
      {"NaN last value", [](HostPcf& p) { p.v.back() = nan; }, "has a NaN or infinite value"},
      {"non-zero tail", [](HostPcf& p) { p.v.back() = -0.25; }, "ends at a non-zero value"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto X = with_defects({4}, c.edit);
    expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(X); },
                                           {"pcfs function 4", c.message});
  }
  // A finite end allows any last value, but not a NaN one, nor unsorted times.
  const auto tail = with_defects({1, 4}, [](HostPcf& p) { p.v.back() = 3; });
  EXPECT_EQ(tessera::validate_pcfs(tail, 2.5).functions, 7u);
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(tail, inf); },
                                         {"pcfs function 1", "non-zero value"});
  const auto nan_tail = with_defects({3}, [](HostPcf& p) { p.v.back() = nan; });
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(nan_tail, 2.5); },
                                         {"pcfs function 3", "NaN or infinite value"});
  // A NaN end is no end.
  expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(tail, nan); },
                                         {"tessera::validate_pcfs", "end_time is NaN"});
}

TEST(ValidatePcfs, RejectsBadOffsets) {
  // Increasing times, zero values: any range of these breakpoints is a valid function.
  const std::vector<std::pair<double, double>> five = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}};
  struct Case {
    std::vector<std::size_t> offsets;
    std::vector<std::string> message;
  };
  const Case cases[] = {
      {{1, 2, 5}, {"offsets run from 1 to 5", "expected 0 to 5"}},  // not starting at 0
      {{0, 2, 4}, {"offsets run from 0 to 4", "expected 0 to 5"}},  // short of the breakpoints
      {{0, 2, 6}, {"offsets run from 0 to 6", "expected 0 to 5"}},  // past them
      {{0}, {"offsets run from 0 to 0", "expected 0 to 5"}},
      {{0, 3, 2, 5}, {"pcfs function 1", "has no breakpoints"}},  // decreasing: 3 back to 2
      {{0, 9, 5}, {"pcfs function 0", "ends past the last breakpoint"}},
      {{0, 0, 2, 5}, {"pcfs function 0", "has no breakpoints"}},  // equal: an empty function
  };
  for (const Case& c : cases) {
    expect_rejected<std::invalid_argument>([&] { tessera::validate_pcfs(raw(c.offsets, five)); },
                                           c.message);
  }
  // The collection itself needs n + 1 >= 1 offsets.
  expect_rejected<std::invalid_argument>(
      [] {
        tessera::PcfCollection<double>(
            Kokkos::View<std::size_t*, Kokkos::HostSpace>("off", 0),
            Kokkos::View<double* [2], Kokkos::LayoutRight, Kokkos::HostSpace>("bp", 0));
      },
      {"tessera::PcfCollection", "offsets has no entries"});
}

TEST(ValidatePcfs, DefaultExecutionSpaceMemory) {
  using Mem       = Kokkos::DefaultExecutionSpace::memory_space;
  const auto f    = tessera_test::random_pcfs(33, 17, 1, 20);
  const auto host = tessera::validate_pcfs(tessera_test::to_collection<float>(f));
  const auto dev =
      tessera::validate_pcfs(tessera_test::copy_to<Mem>(tessera_test::to_collection<float>(f)));
  EXPECT_EQ(dev.functions, host.functions);
  EXPECT_EQ(dev.points, host.points);
  EXPECT_EQ(dev.max_points, host.max_points);
  const auto nan_value = with_defects({6, 5}, [](HostPcf& p) { p.v[0] = nan; });
  expect_rejected<std::invalid_argument>(
      [&] { tessera::validate_pcfs(tessera_test::copy_to<Mem>(nan_value)); },
      {"pcfs function 5", "NaN or infinite value"});
  const std::vector<std::pair<double, double>> five = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}};
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::validate_pcfs(tessera_test::copy_to<Mem>(raw({0, 2, 6}, five)));
      },
      {"offsets run from 0 to 6"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::validate_pcfs(tessera_test::copy_to<Mem>(raw({0, 3, 3, 5}, five)));
      },
      {"pcfs function 1", "has no breakpoints"});
}

TEST(FunctionShape, RanksOneToFour) {
  using tessera::FunctionShape;
  EXPECT_EQ(FunctionShape::max_rank, 4);
  const FunctionShape empty;  // one dimension of no functions
  EXPECT_EQ(empty.rank(), 1);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.str(), "(0)");
  const FunctionShape seven(7);
  EXPECT_EQ(seven.rank(), 1);
  EXPECT_EQ(seven.extent(0), 7u);
  EXPECT_EQ(seven.size(), 7u);
  const FunctionShape one{5};
  EXPECT_EQ(one.rank(), 1);
  EXPECT_EQ(one.size(), 5u);
  EXPECT_EQ(one.str(), "(5)");
  const FunctionShape two{3, 4};
  EXPECT_EQ(two.rank(), 2);
  EXPECT_EQ(two.extent(0), 3u);
  EXPECT_EQ(two.extent(1), 4u);
  EXPECT_EQ(two.size(), 12u);
  EXPECT_EQ(two.str(), "(3, 4)");
  const FunctionShape three{2, 3, 5};
  EXPECT_EQ(three.rank(), 3);
  EXPECT_EQ(three.size(), 30u);
  EXPECT_EQ(three.str(), "(2, 3, 5)");
  const FunctionShape four{2, 3, 5, 7};
  EXPECT_EQ(four.rank(), 4);
  EXPECT_EQ(four.extent(3), 7u);
  EXPECT_EQ(four.size(), 210u);
  EXPECT_EQ(four.str(), "(2, 3, 5, 7)");
  EXPECT_EQ((FunctionShape{4, 0, 3}).size(), 0u);
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  EXPECT_EQ((FunctionShape{max, 1}).size(), max);
  EXPECT_EQ((FunctionShape{0, max, max}).size(), 0u);  // a zero extent: no overflow
  EXPECT_THROW(four.extent(FunctionShape::max_rank), std::out_of_range);
}

TEST(FunctionShape, RejectsRanksOutsideOneToFourAndOverflow) {
  using tessera::FunctionShape;
  expect_rejected<std::invalid_argument>(
      [] { FunctionShape(std::initializer_list<std::size_t>{}); },
      {"tessera::FunctionShape", "rank 0 outside [1, 4]"});
  expect_rejected<std::invalid_argument>(
      [] {
        FunctionShape({1, 1, 1, 1, 1, 1});
      },
      {"rank 6 outside [1, 4]"});
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  expect_rejected<std::length_error>(
      [&] {
        FunctionShape({max, 2});
      },
      {"tessera::FunctionShape", "overflows"});
  expect_rejected<std::length_error>(
      [] {
        FunctionShape({std::size_t(1) << 32, std::size_t(1) << 16, std::size_t(1) << 16});
      },
      {"overflows"});
}

TEST(PcfCollection, ReshapedSharesTheViewsAndChecksTheSize) {
  const auto X = tessera_test::to_collection<float>(tessera_test::random_pcfs(30, 5, 1, 4));
  EXPECT_EQ(X.size(), 30u);
  EXPECT_EQ(X.shape().rank(), 1);
  EXPECT_EQ(X.shape().extent(0), 30u);
  const auto R = X.reshaped({2, 3, 5});
  EXPECT_EQ(R.size(), 30u);
  EXPECT_EQ(R.shape().str(), "(2, 3, 5)");
  EXPECT_EQ(R.offsets().data(), X.offsets().data());
  EXPECT_EQ(R.breakpoints().data(), X.breakpoints().data());
  EXPECT_EQ(X.shape().rank(), 1);  // the original keeps its shape
  EXPECT_EQ(R.reshaped({30}).shape().rank(), 1);
  EXPECT_EQ(X.reshaped({1, 2, 15, 1}).shape().extent(2), 15u);
  EXPECT_EQ(tessera::validate_pcfs(R).functions, 30u);
  expect_rejected<std::invalid_argument>(
      [&] { X.reshaped({31}); },
      {"tessera::PcfCollection::reshaped", "shape (31)", "holds 31 functions (expected 30)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        R.reshaped({2, 3, 0});
      },
      {"holds 0 functions (expected 30)"});
  // No functions: any shape of size 0.
  const auto none = raw({0}, {});
  EXPECT_EQ(none.reshaped({0, 4}).shape().str(), "(0, 4)");
  expect_rejected<std::invalid_argument>([&] { none.reshaped({1}); },
                                         {"holds 1 functions (expected 0)"});
  EXPECT_EQ(tessera::PcfCollection<double>().size(), 0u);
}

TYPED_TEST(PairwiseArguments, BadPAndEndTimeAreRejectedBeforeAnyWrite) {
  const auto good = tessera_test::to_collection<double>(tessera_test::random_pcfs(7, 6, 1, 5));
  Kokkos::View<double*, Kokkos::HostSpace> out("out", 21), packed("packed", 28);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> cross("cross", 7, 7);
  Kokkos::View<double*, typename TypeParam::memory_space> dev("dev", 21);
  Kokkos::deep_copy(out, -7.0);
  Kokkos::deep_copy(packed, -7.0);
  Kokkos::deep_copy(cross, -7.0);
  Kokkos::deep_copy(dev, -7.0);
  auto untouched = [&](const char* what) {
    const auto dev_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, dev);
    for (std::size_t k = 0; k < 21; ++k) {
      ASSERT_EQ(out(k), -7.0) << what << ": out(" << k << ") was written";
      ASSERT_EQ(dev_h(k), -7.0) << what << ": dev(" << k << ") was written";
    }
    for (std::size_t k = 0; k < 28; ++k)
      ASSERT_EQ(packed(k), -7.0) << what << ": packed(" << k << ") was written";
    for (std::size_t k = 0; k < 49; ++k)
      ASSERT_EQ(cross.data()[k], -7.0) << what << ": cross value " << k << " was written";
  };
  const TypeParam space;
  for (double p : {0.0, -0.0, -1.0, -0.5, nan, inf, -inf}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    expect_rejected<std::invalid_argument>(
        [&] { tessera::pdist(space, tessera::PcfLp{p}, good, out); },
        {"tessera::pdist: p is ", "(expected a finite p > 0)"});
    expect_rejected<std::invalid_argument>(
        [&] { tessera::pdist(space, tessera::PcfLp{p}, good, dev); },
        {"tessera::pdist: p is ", "(expected a finite p > 0)"});
    expect_rejected<std::invalid_argument>(
        [&] { tessera::cdist(space, tessera::PcfLp{p}, good, good, cross); },
        {"tessera::cdist: p is ", "(expected a finite p > 0)"});
    expect_rejected<std::invalid_argument>(
        [&] { tessera::pdist(space, tessera::PcfLp{p}, good, tessera::NpyFile{""}); },
        {"tessera::pdist: p is "});
  }
  untouched("bad p");
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfLp{0}, good, out); }, {"p is 0 (expected"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfLp{-1}, good, out); }, {"p is -1 (expected"});

  tessera::PairwiseOptions nan_end;
  nan_end.end_time = nan;
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfL1{}, good, out, nan_end); },
      {"tessera::pdist", "options.end_time is NaN"});
  expect_rejected<std::invalid_argument>([&] { tessera::l2_kernel(space, good, packed, nan_end); },
                                         {"tessera::l2_kernel", "options.end_time is NaN"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::PcfL2{}, good, good, cross, nan_end); },
      {"tessera::cdist", "options.end_time is NaN"});
  untouched("NaN end_time");
  tessera::PairwiseOptions minus_infinity_end;
  minus_infinity_end.end_time = -inf;  // every integral would be -inf * 0
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfL1{}, good, out, minus_infinity_end); },
      {"tessera::pdist", "options.end_time is NaN or -infinity"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::PcfL1{}, good, good, cross, minus_infinity_end); },
      {"tessera::cdist", "options.end_time is NaN or -infinity"});
  untouched("-infinity end_time");

  // p that float arithmetic cannot raise to (p or 1 / p rounds to 0 or infinity in float): the
  // values would all be 1. Double accumulation takes them.
  const auto good_float = tessera_test::to_collection<float>(tessera_test::random_pcfs(7, 6, 1, 5));
  Kokkos::View<float*, Kokkos::HostSpace> out_float("out_float", 21);
  Kokkos::deep_copy(out_float, -7.0f);
  for (double p : {1e-50, 1e300}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    expect_rejected<std::invalid_argument>(
        [&] { tessera::pdist(space, tessera::PcfLp{p}, good_float, out_float); },
        {"tessera::pdist: p is ", "out of range for float arithmetic"});
  }
  for (std::size_t k = 0; k < 21; ++k)
    ASSERT_EQ(out_float(k), -7.0f) << "out_float(" << k << ") was written";
  tessera::PairwiseOptions in_double;
  in_double.accumulation = tessera::Accumulation::double_;
  tessera::pdist(space, tessera::PcfLp{1e300}, good_float, out_float, in_double);

  // Wrong sizes and empty paths of every call.
  Kokkos::View<double*, Kokkos::HostSpace> short_packed("short", 27);
  Kokkos::deep_copy(short_packed, -7.0);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::l2_kernel(space, good, short_packed); },
      {"tessera::l2_kernel", "out extents (27)", "expected (28)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::l2_kernel(space, good, out); },
      {"tessera::l2_kernel", "out extents (21)", "expected (28)"});
  expect_rejected<std::invalid_argument>([&] { tessera::pdist(space, good, packed); },
                                         {"tessera::pdist", "out extents (28)", "expected (21)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::l2_kernel(space, good, tessera::NpyFile{""}); },
      {"tessera::l2_kernel", "out path is empty"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::PcfL1{}, good, good, tessera::NpyFile{""}); },
      {"tessera::cdist", "out path is empty"});
  for (std::size_t k = 0; k < 27; ++k)
    ASSERT_EQ(short_packed(k), -7.0) << "short_packed(" << k << ") was written";
  untouched("wrong size or path");

  // The sentinel check can fail: a valid p writes every value.
  tessera::pdist(space, tessera::PcfLp{3}, good, out);
  for (std::size_t k = 0; k < 21; ++k)
    EXPECT_NE(out(k), -7.0) << "out(" << k << ") not written by a valid call";
}

TYPED_TEST(PairwiseArguments, NonContiguousFunctionsAreRejectedBeforeAnyWrite) {
  // Breakpoints as the first two columns of (t, v, weight) rows: a LayoutRight View with rows 3
  // values apart, which the kernels would read as packed (t, v) pairs.
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets("offsets", 3);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> rows("rows", 4, 3);
  const double table[4][3] = {{0, 1, 9}, {1, 0, 9}, {0, 2, 9}, {1, 0, 9}};
  for (int k = 0; k < 4; ++k)
    for (int c = 0; c < 3; ++c)
      rows(k, c) = table[k][c];
  offsets(0) = 0;
  offsets(1) = 2;
  offsets(2) = 4;
  const typename tessera::PcfCollection<double>::breakpoints_view strided =
      Kokkos::subview(rows, Kokkos::ALL, std::make_pair(0, 2));
  ASSERT_FALSE(strided.span_is_contiguous());
  const tessera::PcfCollection<double> X(offsets, strided);
  Kokkos::View<double*, Kokkos::HostSpace> d("d", 1);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> cross("cross", 2, 2);
  Kokkos::deep_copy(d, -7.0);
  const TypeParam space;
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfL1{}, X, d); },
      {"tessera::pdist", "X has non-contiguous offsets or breakpoints"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::PcfL1{}, X, X, cross); },
      {"tessera::cdist", "non-contiguous"});
  EXPECT_EQ(d(0), -7.0);
  // Point vectors of any layout are packed instead (test_point_layouts.cpp).
}

TYPED_TEST(PairwiseArguments, OutputsSharingMemoryWithAnInputAreRejected) {
  // out laid over X's breakpoints, X's offsets, the points X, the points Y (each within the
  // input's allocation, so that a missing check could not write out of bounds).
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using Flat      = Kokkos::View<double*, Kokkos::HostSpace, Unmanaged>;
  const auto X    = tessera_test::to_collection<double>(tessera_test::random_pcfs(3, 3, 1, 5));
  const TypeParam space;
  auto* bp = const_cast<double*>(X.breakpoints().data());
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfL1{}, X, Flat(bp, 3)); },
      {"tessera::pdist", "out shares memory with X's breakpoints"});
  auto* off = reinterpret_cast<double*>(const_cast<std::size_t*>(X.offsets().data()));
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(space, tessera::PcfL1{}, X, Flat(off, 3)); },
      {"tessera::pdist", "out shares memory with X's offsets"});
  Kokkos::View<double*, Kokkos::HostSpace> buffer("buffer", 16);
  const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged> x(buffer.data(),
                                                                                    3, 2),
      y(buffer.data() + 6, 2, 2), over_y(buffer.data() + 8, 3, 2);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::pdist(space, tessera::EuclideanDistance<2>{}, x, Flat(buffer.data() + 2, 3));
      },
      {"tessera::pdist", "out shares memory with X"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::cdist(space, tessera::EuclideanDistance<2>{}, x, y, over_y); },
      {"tessera::cdist", "out shares memory with Y"});
}

}  // namespace
