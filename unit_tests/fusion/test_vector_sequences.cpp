// Fused vector sequences: the BLAS-1 ready functions and hand-written sequences against host
// computations in double, under every plan a sequence allows, on every execution space; plan
// validity and choice; argument checks.
#include <tessera/fusion/blas1.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/run.hpp>

#include "every_candidate.hpp"
#include "execution_spaces.hpp"
#include "expect_rejected.hpp"
#include "profiling_regions.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fusion = tessera::fusion;
using tessera_test::expect_rejected;

template <class ExecSpace>
class FusionVectors : public ::testing::Test {};
TYPED_TEST_SUITE(FusionVectors, tessera_test::ExecutionSpaces);

const std::size_t sizes[] = {0, 1, 33, 1000, 4099};

/// A vector of n random values in [-1, 1) in the space's memory, and its host copy in double.
template <class T, class ExecSpace>
struct RandomVector {
  Kokkos::View<T*, typename ExecSpace::memory_space> view;
  std::vector<double> host;
  RandomVector(std::size_t n, unsigned seed) : view("v", n), host(n) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    auto h = Kokkos::create_mirror_view(view);
    for (std::size_t i = 0; i < n; ++i) {
      h(i)    = static_cast<T>(value(gen));
      host[i] = double(h(i));
    }
    Kokkos::deep_copy(view, h);
  }
};

/// |got - ref| within tol (1 + |ref|) for every element.
template <class View>
void expect_vector(const View& got, const std::vector<double>& ref, double tol, const char* what) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, got);
  ASSERT_EQ(h.extent(0), ref.size()) << what;
  for (std::size_t i = 0; i < ref.size(); ++i)
    ASSERT_NEAR(double(h(i)), ref[i], tol * (1 + std::abs(ref[i]))) << what << ", element " << i;
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-6 : 1e-15;  // a few roundings of O(1) values
}

/// Runs call(options) under every candidate the tuner can pick for seq over the bound Views on
/// ExecSpace, the model's and the unfused plan, and a shape with several teams even at small n
/// and a partial last team.
template <class ExecSpace, class Seq, class Bound, class Call, class Reset, class Check>
void for_every_plan(const Seq& seq, const Bound& bound, const Call& call, const Reset& reset,
                    const Check& check) {
  fusion::FusionOptions small;
  small.per_thread = 3;
  tessera_test::for_every_candidate(fusion::tuner_candidates(ExecSpace{}, seq, bound), small, call,
                                    reset, check);
}

template <class ExecSpace, class T>
void check_axpydot() {
  const double alpha = 0.75;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    RandomVector<T, ExecSpace> w(n, 1), v(n, 2), u(n, 3);
    Kokkos::View<T*, typename ExecSpace::memory_space> z("z", n);
    Kokkos::View<T, typename ExecSpace::memory_space> r("r");
    std::vector<double> z_ref(n);
    double r_ref = 0, r_abs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      z_ref[i] = w.host[i] - double(T(alpha)) * v.host[i];
      r_ref += z_ref[i] * u.host[i];
      r_abs += std::abs(z_ref[i] * u.host[i]);
    }
    for_every_plan<ExecSpace>(
        fusion::axpydot_sequence(alpha), fusion::bind(w.view, v.view, u.view, z, r),
        [&](const fusion::FusionOptions& o) {
          return fusion::axpydot(ExecSpace{}, alpha, w.view, v.view, u.view, z, r, o);
        },
        [&] {
          Kokkos::deep_copy(z, T(9));
          Kokkos::deep_copy(r, T(9));
        },
        [&](const fusion::FusionReport&) {
          expect_vector(z, z_ref, tolerance<T>(), "z");
          T got;
          Kokkos::deep_copy(got, r);
          // float sums of n terms: rounding grows with the sum of |terms|
          EXPECT_NEAR(double(got), r_ref, 4 * tolerance<T>() * (1 + r_abs)) << "r";
        });
  }
}

TYPED_TEST(FusionVectors, AxpydotMatchesTheHostInEveryPlan) {
  check_axpydot<TypeParam, float>();
  check_axpydot<TypeParam, double>();
}

template <class ExecSpace, class T>
void check_maps() {
  using Mem = typename ExecSpace::memory_space;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    RandomVector<T, ExecSpace> x(n, 4), y(n, 5), z(n, 6);
    Kokkos::View<T*, Mem> out("out", n);
    std::vector<double> waxpby(n), vadd(n), sscal(n);
    const T a = T(1.5), b = T(-0.25);
    for (std::size_t i = 0; i < n; ++i) {
      waxpby[i] = double(a) * x.host[i] + double(b) * y.host[i];
      vadd[i]   = x.host[i] + y.host[i] + z.host[i];
      sscal[i]  = double(a) * x.host[i];
    }
    Kokkos::deep_copy(out, T(9));
    fusion::waxpby(ExecSpace{}, 1.5, x.view, -0.25, y.view, out);
    expect_vector(out, waxpby, tolerance<T>(), "waxpby");
    Kokkos::deep_copy(out, T(9));
    const auto report = fusion::vadd(ExecSpace{}, x.view, y.view, z.view, out);
    EXPECT_EQ(report.kernels, 1);
    expect_vector(out, vadd, tolerance<T>(), "vadd");
    fusion::sscal(ExecSpace{}, 1.5, x.view);  // in place
    expect_vector(x.view, sscal, tolerance<T>(), "sscal");
  }
}

TYPED_TEST(FusionVectors, WaxpbyVaddAndSscalMatchTheHost) {
  check_maps<TypeParam, float>();
  check_maps<TypeParam, double>();
}

// Vectors too large for the caches: host backends write them with streaming stores a cache
// line at a time (vector_kernel.hpp), ordinary stores where an output is not 16-byte aligned
// (an output one element into its allocation) and for the last elements.
template <class ExecSpace, class T>
void check_streamed() {
  using Mem = typename ExecSpace::memory_space;
  // One vector alone outgrows the streaming bound, so that every group streams; 13 elements past
  // a multiple of the lanes.
  const std::size_t n =
      tessera::Impl::Tuning<ExecSpace>::fusion_streaming_min_bytes / sizeof(T) + 13;
  RandomVector<T, ExecSpace> w(n, 11), v(n, 12), u(n, 13);
  Kokkos::View<T*, Mem> buffer("buffer", n + 1);
  Kokkos::View<T, Mem> r("r");
  const double alpha = 0.75;
  std::vector<double> z_ref(n), vadd(n);
  double r_ref = 0, r_abs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    z_ref[i] = w.host[i] - double(T(alpha)) * v.host[i];
    r_ref += z_ref[i] * u.host[i];
    r_abs += std::abs(z_ref[i] * u.host[i]);
    vadd[i] = w.host[i] + v.host[i] + u.host[i];
  }
  for (const std::size_t offset : {0, 1}) {
    SCOPED_TRACE("output at element " + std::to_string(offset) + " of its allocation");
    const auto z = Kokkos::subview(buffer, std::make_pair(offset, offset + n));
    for_every_plan<ExecSpace>(
        fusion::axpydot_sequence(alpha), fusion::bind(w.view, v.view, u.view, z, r),
        [&](const fusion::FusionOptions& o) {
          return fusion::axpydot(ExecSpace{}, alpha, w.view, v.view, u.view, z, r, o);
        },
        [&] { Kokkos::deep_copy(buffer, T(9)); },
        [&](const fusion::FusionReport&) {
          expect_vector(z, z_ref, tolerance<T>(), "axpydot z");
          T got;
          Kokkos::deep_copy(got, r);
          // float sums of n terms: rounding grows with the sum of |terms|
          EXPECT_NEAR(double(got), r_ref, 4 * tolerance<T>() * (1 + r_abs)) << "r";
        });
    Kokkos::deep_copy(buffer, T(9));
    fusion::vadd(ExecSpace{}, w.view, v.view, u.view, z);
    expect_vector(z, vadd, tolerance<T>(), "vadd");
  }
}

TYPED_TEST(FusionVectors, VectorsOutgrowingTheCachesAreStreamed) {
  if (tessera::Impl::is_device_space<TypeParam>) GTEST_SKIP() << "GPUs never stream";
  check_streamed<TypeParam, float>();
  check_streamed<TypeParam, double>();
}

TYPED_TEST(FusionVectors, AReductionsResultIsReadOnlyAfterAKernelBoundary) {
  // x = a y + z; s = x . x; w = s x - y; t = w . y: the third step reads s, which the second
  // reduces, so every valid plan cuts after the second step (bit 1).
  using T   = double;
  using Mem = typename TypeParam::memory_space;
  constexpr fusion::Vec<0> x;
  constexpr fusion::Vec<1> y;
  constexpr fusion::Vec<2> z;
  constexpr fusion::Vec<3> w;
  constexpr fusion::Scalar<4> s;
  constexpr fusion::Scalar<5> t;
  const auto seq   = fusion::sequence(fusion::assign(x, 0.5 * y + z), fusion::assign(s, dot(x, x)),
                                      fusion::assign(w, s * x - y), fusion::assign(t, dot(w, y)));
  using Seq        = std::decay_t<decltype(seq)>;
  const auto plans = fusion::candidate_plans<Seq>();
  EXPECT_EQ(plans, (std::vector<std::uint32_t>{0b010, 0b011, 0b110, 0b111}));
  const std::size_t n = 1000;
  RandomVector<T, TypeParam> yv(n, 7), zv(n, 8);
  Kokkos::View<T*, Mem> xv("x", n), wv("w", n);
  Kokkos::View<T, Mem> sv("s"), tv("t");
  std::vector<double> x_ref(n), w_ref(n);
  double s_ref = 0, t_ref = 0;
  for (std::size_t i = 0; i < n; ++i) {
    x_ref[i] = 0.5 * yv.host[i] + zv.host[i];
    s_ref += x_ref[i] * x_ref[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    w_ref[i] = s_ref * x_ref[i] - yv.host[i];
    t_ref += w_ref[i] * yv.host[i];
  }
  const auto bound = fusion::bind(xv, yv.view, zv.view, wv, sv, tv);
  for_every_plan<TypeParam>(
      seq, bound,
      [&](const fusion::FusionOptions& o) { return fusion::run(TypeParam{}, seq, bound, o); },
      [&] {
        Kokkos::deep_copy(xv, 9.0);
        Kokkos::deep_copy(wv, 9.0);
      },
      [&](const fusion::FusionReport& r) {
        EXPECT_GE(r.kernels, 2);
        expect_vector(xv, x_ref, 1e-14, "x");
        expect_vector(wv, w_ref, 1e-12, "w");
        T got_s, got_t;
        Kokkos::deep_copy(got_s, sv);
        Kokkos::deep_copy(got_t, tv);
        EXPECT_NEAR(got_s, s_ref, 1e-12 * s_ref);
        EXPECT_NEAR(got_t, t_ref, 1e-12 * (1 + std::abs(s_ref) * n));
      });
}

TEST(FusionPlans, AScalarAGroupReducesIsNotReadInThatGroupBeforeOrAfter) {
  // x = s x, then s = x . x: fused, the first step would read s while the kernel reduces into
  // it (0 or a partial sum on host backends): only the plan with the cut is valid. (A reduction
  // reading its own target does not compile.)
  constexpr fusion::Vec<0> x;
  constexpr fusion::Scalar<1> s;
  const auto seq = fusion::sequence(fusion::assign(x, s * x), fusion::assign(s, dot(x, x)));
  using Seq      = std::decay_t<decltype(seq)>;
  EXPECT_EQ(fusion::candidate_plans<Seq>(), (std::vector<std::uint32_t>{1}));
  Kokkos::View<double*, Kokkos::HostSpace> xv("x", 100);
  Kokkos::View<double, Kokkos::HostSpace> sv("s");
  Kokkos::deep_copy(xv, 1.0);
  sv()           = 3.0;
  const auto rep = fusion::run(Kokkos::DefaultHostExecutionSpace{}, seq, fusion::bind(xv, sv));
  EXPECT_EQ(rep.cuts, 1u);
  EXPECT_EQ(xv(99), 3.0);
  EXPECT_EQ(sv(), 900.0);
}

TEST(FusionPlans, TheModelFusesWhatSavesBytesAndUnfusedRunsEveryStepAlone) {
  using Seq = decltype(fusion::sequence(
      fusion::assign(fusion::Vec<0>{}, fusion::Vec<1>{} - 2.0 * fusion::Vec<2>{}),
      fusion::assign(fusion::Scalar<4>{}, dot(fusion::Vec<0>{}, fusion::Vec<3>{}))));
  // Fused: loads w, v, u and stores z (4 n values); unfused: w, v, z, then z, u (5 n values).
  EXPECT_EQ(*tessera::fusion::Impl::plan_bytes<Seq>(0, 10, 10, 4, 0), 4 * 10 * 4.0);
  EXPECT_EQ(*tessera::fusion::Impl::plan_bytes<Seq>(1, 10, 10, 4, 0), 5 * 10 * 4.0);
  EXPECT_EQ(fusion::candidate_plans<Seq>(), (std::vector<std::uint32_t>{0, 1}));
  Kokkos::View<double*, Kokkos::HostSpace> z("z", 100), w("w", 100), v("v", 100), u("u", 100);
  Kokkos::View<double, Kokkos::HostSpace> r("r");
  const Kokkos::DefaultHostExecutionSpace host;
  EXPECT_EQ(fusion::axpydot(host, 2.0, w, v, u, z, r).cuts, 0u);
  fusion::FusionOptions unfused;
  unfused.choice  = fusion::PlanChoice::unfused;
  const auto each = fusion::axpydot(host, 2.0, w, v, u, z, r, unfused);
  EXPECT_EQ(each.cuts, 1u);
  EXPECT_EQ(each.kernels, 2);
}

// A profiler sees a run of several groups (several kernels) as one Kokkos Tools region named
// for the call; a run of one group is its kernel alone.
TEST(FusionPlans, SeveralGroupsAreOneToolsRegion) {
  Kokkos::View<double*, Kokkos::HostSpace> z("z", 50), w("w", 50), v("v", 50), u("u", 50);
  Kokkos::View<double, Kokkos::HostSpace> r("r");
  const Kokkos::DefaultHostExecutionSpace host;
  fusion::FusionOptions unfused;
  unfused.choice = fusion::PlanChoice::unfused;
  tessera_test::RegionRecording recording;
  EXPECT_EQ(fusion::axpydot(host, 2.0, w, v, u, z, r).kernels, 1);
  EXPECT_TRUE(tessera_test::RegionRecording::pushed().empty());
  EXPECT_EQ(fusion::axpydot(host, 2.0, w, v, u, z, r, unfused).kernels, 2);
  EXPECT_EQ(tessera_test::RegionRecording::pushed(),
            std::vector<std::string>{"tessera::fusion::axpydot"});
  EXPECT_TRUE(tessera_test::RegionRecording::balanced());
}

TEST(FusionPlans, BadArgumentsAreRejectedBeforeAnyKernel) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  Kokkos::View<double*, Kokkos::HostSpace> a("a", 10), b("b", 10), c("c", 11), big("big", 20);
  Kokkos::View<double, Kokkos::HostSpace> r("r");
  Kokkos::deep_copy(a, 1.0);
  Kokkos::deep_copy(b, 2.0);
  auto untouched = [&] {
    for (int i = 0; i < 10; ++i)
      ASSERT_EQ(b(i), 2.0) << "b(" << i << ") was written";
  };
  expect_rejected<std::invalid_argument>(
      [&] { fusion::waxpby(Host{}, 1.0, a, 1.0, c, b); },
      {"tessera::fusion::waxpby: y has 11 elements, expected 10 (the length of x)"});
  const Kokkos::View<double*, Kokkos::LayoutStride, Kokkos::HostSpace> strided = Kokkos::subview(
      Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>("m", 10, 2), Kokkos::ALL, 0);
  expect_rejected<std::invalid_argument>([&] { fusion::waxpby(Host{}, 1.0, strided, 1.0, a, b); },
                                         {"tessera::fusion::waxpby: x is not contiguous"});
  // The output one element past an input: each element would read what another one wrote.
  const auto shifted = Kokkos::subview(big, std::make_pair(1, 11));
  const auto input   = Kokkos::subview(big, std::make_pair(0, 10));
  expect_rejected<std::invalid_argument>(
      [&] { fusion::waxpby(Host{}, 1.0, input, 1.0, a, shifted); },
      {"tessera::fusion::waxpby: w (written) shares memory with x"});
  expect_rejected<std::invalid_argument>(
      [&] {
        fusion::axpydot(Host{}, 1.0, a, a, a, b,
                        Kokkos::View<double, Kokkos::HostSpace>(Kokkos::subview(b, 3)));
      },
      {"tessera::fusion::axpydot: z (written) shares memory with r"});
  // Two written symbols on one View: the value one of them keeps in registers would go stale.
  {
    constexpr fusion::Vec<0> p;
    constexpr fusion::Vec<1> q;
    const auto two = fusion::sequence(fusion::assign(p, p + 1.0), fusion::assign(q, 3.0 * q));
    expect_rejected<std::invalid_argument>(
        [&] { fusion::run(Host{}, two, fusion::bind(b, b)); },
        {"tessera::fusion::run", "symbol 0 (written) shares memory with symbol 1"});
  }
  fusion::FusionOptions bad;
  bad.cuts = 4;  // past the last of 2 steps
  expect_rejected<std::invalid_argument>([&] { fusion::axpydot(Host{}, 1.0, a, a, a, b, r, bad); },
                                         {"options.cuts 4 cuts after the last step"});
  bad.cuts      = std::nullopt;
  bad.team_size = -1;
  expect_rejected<std::invalid_argument>([&] { fusion::sscal(Host{}, 2.0, b, bad); },
                                         {"options.team_size is -1"});
  bad.team_size = tessera::Impl::Tuning<Host>::fusion_max_team_size + 1;
  expect_rejected<std::invalid_argument>([&] { fusion::sscal(Host{}, 2.0, b, bad); },
                                         {"options.team_size is", "(expected 0 to"});
  bad.team_size  = 0;
  bad.per_thread = -3;
  expect_rejected<std::invalid_argument>([&] { fusion::sscal(Host{}, 2.0, b, bad); },
                                         {"options.per_thread is -3"});
  untouched();
  // The same vector in and out is an in-place update, not an overlap.
  fusion::waxpby(Host{}, 2.0, b, 1.0, a, b);
  EXPECT_EQ(b(9), 5.0);
}

}  // namespace
