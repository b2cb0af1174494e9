// core/impl/host_exp.hpp: the vectorisable exponentials of host code against the C library, in ulps
// over the whole range (subnormal results, overflow, underflow included), and their special
// values; math::fast_exp2's host contract (relative error below 2^-22, flush below 2^-126).
#include <tessera/core/impl/host_exp.hpp>
#include <tessera/core/kokkos_compat.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

/// |got - want| in units of the last place of want (the spacing of T at want's magnitude).
template <class T>
double ulps(T got, T want) {
  const T ulp =
      std::nextafter(std::fabs(want), std::numeric_limits<T>::infinity()) - std::fabs(want);
  return std::fabs(static_cast<double>(got) - static_cast<double>(want)) / static_cast<double>(ulp);
}

/// The largest ulp error of f against reference over [lo, hi] in steps of `step`, with infinite
/// and zero results required to match exactly.
template <class T, class F, class Ref>
double worst_ulps(F f, Ref reference, double lo, double hi, double step) {
  double worst = 0;
  for (double v = lo; v <= hi; v += step) {
    const T x = static_cast<T>(v), got = f(x), want = reference(x);
    if (std::isinf(want) || want == 0) {
      EXPECT_EQ(got, want) << "x = " << x;
      continue;
    }
    worst = std::max(worst, ulps(got, want));
  }
  return worst;
}

TEST(HostExp, WithinTwoUlpOfTheCLibrary) {
  using tessera::Impl::host_exp;
  using tessera::Impl::host_exp2;
  const auto expf_ref  = [](float x) { return std::exp(x); };
  const auto exp2f_ref = [](float x) { return std::exp2(x); };
  const auto exp_ref   = [](double x) { return std::exp(x); };
  const auto exp2_ref  = [](double x) { return std::exp2(x); };
  // The ranges run from underflow to 0 through the subnormal results to overflow.
  EXPECT_LE(worst_ulps<float>(host_exp<float>, expf_ref, -110, 95, 1.7e-3), 2);
  EXPECT_LE(worst_ulps<float>(host_exp2<float>, exp2f_ref, -155, 132, 2.3e-3), 2);
  EXPECT_LE(worst_ulps<double>(host_exp<double>, exp_ref, -750, 712, 7.1e-3), 2);
  EXPECT_LE(worst_ulps<double>(host_exp2<double>, exp2_ref, -1080, 1030, 1.1e-2), 2);
  // Rounding ties of the reduction, and exact powers of two.
  for (int n = -126; n <= 127; ++n) {
    EXPECT_EQ(host_exp2(static_cast<float>(n)), std::ldexp(1.0f, n));
    EXPECT_LE(ulps(host_exp2(n + 0.5f), std::exp2(n + 0.5f)), 2) << n;
  }
}

TEST(HostExp, SpecialValues) {
  using tessera::Impl::host_exp;
  using tessera::Impl::host_exp2;
  using tessera::Impl::host_fast_exp2;
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float nan     = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(host_exp(nan)));
  EXPECT_TRUE(std::isnan(host_exp2(nan)));
  EXPECT_TRUE(std::isnan(host_fast_exp2(nan)));
  EXPECT_TRUE(std::isnan(host_exp(static_cast<double>(nan))));
  EXPECT_EQ(host_exp(inf), inf);
  EXPECT_EQ(host_exp(-inf), 0.0f);
  EXPECT_EQ(host_exp2(1e30f), inf);
  EXPECT_EQ(host_exp2(-1e30f), 0.0f);
  EXPECT_EQ(host_fast_exp2(inf), inf);
  EXPECT_EQ(host_fast_exp2(-inf), 0.0f);
  EXPECT_EQ(host_exp(0.0f), 1.0f);
  EXPECT_EQ(host_exp(0.0), 1.0);
  EXPECT_EQ(host_exp(-std::numeric_limits<double>::infinity()), 0.0);
}

// math::fast_exp2 in host code: the GPU instruction's contract.
TEST(HostExp, FastExp2Contract) {
  constexpr double min_normal = std::numeric_limits<float>::min();
  double worst                = 0;
  for (double v = -130; v <= 130; v += 3.7e-4) {
    const float x    = static_cast<float>(v);
    const float got  = tessera::math::fast_exp2(x);
    const double ref = std::exp2(static_cast<double>(x));
    if (ref < min_normal) {
      EXPECT_LE(std::fabs(got - ref), min_normal) << "x = " << x;  // flushed, or exact
    } else if (ref > std::numeric_limits<float>::max()) {
      EXPECT_TRUE(std::isinf(got)) << "x = " << x;
    } else {
      worst = std::max(worst, std::fabs(got - ref) / ref);
    }
  }
  EXPECT_LT(worst, std::ldexp(1.0, -22));
}

}  // namespace
