// Views of other element types than the compute type: Kokkos::Experimental::half_t (and bhalf_t
// where Kokkos has it) variables and outputs, computed in float; float Views computed in double
// beside a double one, and double ones rounded to a float output; element types genred does not
// take, rejected. Each case runs the backend's kernel (the host kernel on host spaces) and the
// portable one, 1D and 2D schemes, both axes, against double references over the same rounded
// inputs. Where Kokkos has no 16-bit type (Kokkos 3.4, host-only Kokkos 4 builds), half_t and
// bhalf_t are float: the float/double cases then test the same conversions with a genuinely
// narrower storage type.
#include "genred/genred_test_support.hpp"

namespace {

using tessera_test::check_formula;
using tessera_test::expect_rejected;
using tessera_test::random_values;
using tessera_test::to_view2;
// The compute type's tolerance of check_formula's comparisons, in units of the sum of |F| (Sum)
// or of 1 + max |F| (the other reductions): see its comment.
using tessera_test::tolerance;

template <class Space>
class GenredHalf : public ::testing::Test {};
TYPED_TEST_SUITE(GenredHalf, tessera_test::ExecutionSpaces);

/// Unit roundoff of a storage type: 2^-11 for a 16-bit half_t, 2^-8 for a 16-bit bhalf_t, that
/// of float or double otherwise (half_t and bhalf_t are float where Kokkos has no 16-bit type).
template <class S>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<S, double>) {
    return 0x1p-53;
  } else if constexpr (std::is_same_v<S, float>) {
    return 0x1p-24;
  } else if constexpr (std::is_same_v<S, Kokkos::Experimental::half_t>) {
    return 0x1p-11;
  } else {
    return 0x1p-8;
  }
}

/// (M, N) pairs: empty, single and odd sizes on both sides of a tile.
const std::vector<std::pair<int, int>> sizes = {{0, 7},   {1, 1}, {7, 131},
                                                {131, 7}, {7, 0}, {131, 131}};

/// Runs check_formula with the backend's kernel (the host kernel on host spaces, through
/// Implementation::automatic) and with the portable kernel.
template <class Space, class Out, class Reduction, class Formula, class PP, class II, class JJ>
void check_both_kernels(const Reduction& reduction, const Formula& formula, const PP& params,
                        const II& i_vars, const JJ& j_vars, int m, int n, int dim,
                        const tessera_test::PairFormula& f, const std::string& where, double tol) {
  for (tessera::Implementation implementation :
       {tessera::Implementation::automatic, tessera::Implementation::portable}) {
    tessera::GenredOptions options;
    options.implementation = implementation;
    check_formula<Space, Out>(
        reduction, formula, params, i_vars, j_vars, m, n, dim, f,
        where + (implementation == tessera::Implementation::portable ? " portable" : " automatic"),
        options, tol);
  }
}

/// Points: rows x dim values in [lo, hi), rounded to S, on the host (as doubles) and in a View.
template <class S, class Space>
struct Points {
  std::vector<double> host;
  Kokkos::View<S**, Kokkos::LayoutRight, typename Space::memory_space> view;
  Points(int rows, int dim, double lo, double hi, unsigned seed)
      : host(random_values<S>(static_cast<std::size_t>(rows) * dim, lo, hi, seed)),
        view(to_view2<S, Space>("points", host, rows, dim)) {}
  const double* row(int r, int dim) const {
    return host.data() + static_cast<std::size_t>(r) * dim;
  }
};

/// |a - b|^2 of two rows of dimension d, in double.
double squared_distance(const double* a, const double* b, int d) {
  double s = 0;
  for (int k = 0; k < d; ++k)
    s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

/// The Gaussian sum sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j with points stored as SX,
/// weights as SW and the output as Out. tol: the compute type's tolerance plus Out's rounding
/// (F >= 0, so the sum of |F| is the result itself).
template <class Space, class SX, class SW, class Out, int D, int W>
void check_gaussian_sum(double tol) {
  const double sigma = 0.5 * std::sqrt(static_cast<double>(D));
  const tessera::GaussianKernel<D, W> kernel(sigma);
  unsigned seed = 100 * D + W;
  for (const auto& [m, n] : sizes) {
    const Points<SX, Space> x(m, D, 0.0, 1.0, ++seed), y(n, D, 0.0, 1.0, ++seed);
    const Points<SW, Space> b(n, W, 0.5, 1.5, ++seed);
    const auto f = [&](int i, int j, double* out) {
      const double k =
          std::exp(-squared_distance(x.row(i, D), y.row(j, D), D) / (2 * sigma * sigma));
      for (int c = 0; c < W; ++c)
        out[c] = k * b.row(j, W)[c];
    };
    check_both_kernels<Space, Out>(
        tessera::Sum{}, kernel, tessera::Params<>{}, tessera::i_vars(x.view),
        tessera::j_vars(y.view, b.view), m, n, W, f,
        "Gaussian D=" + std::to_string(D) + " W=" + std::to_string(W), tol);
    if (::testing::Test::HasFailure()) return;
  }
}

/// A k-smallest reduction of |x_i - y_j|^2, points stored as S, values (if it writes them) as
/// Out.
template <class Space, class S, class Out, int D, class Reduction>
void check_k_min(const Reduction& reduction, double tol) {
  unsigned seed = 200 + D;
  for (const auto& [m, n] : sizes) {
    const Points<S, Space> x(m, D, 0.0, 1.0, ++seed), y(n, D, 0.0, 1.0, ++seed);
    const auto f = [&](int i, int j, double* out) {
      out[0] = squared_distance(x.row(i, D), y.row(j, D), D);
    };
    check_both_kernels<Space, Out>(reduction, tessera::SquaredDistance<D>{}, tessera::Params<>{},
                                   tessera::i_vars(x.view), tessera::j_vars(y.view), m, n, 1, f,
                                   "k smallest D=" + std::to_string(D), tol);
    if (::testing::Test::HasFailure()) return;
  }
}

/// LogSumExp of x_i . y_j, points stored as S, the output as Out. The result is at most
/// max F + log 131 <= 5 (1 + max |F|), so Out's rounding adds 5 unit roundoffs to the tolerance.
template <class Space, class S, class Out, int D>
void check_log_sum_exp() {
  const double tol = tolerance<float>() + 5 * unit_roundoff<Out>();
  unsigned seed    = 300 + D;
  for (const auto& [m, n] : sizes) {
    const Points<S, Space> x(m, D, 0.0, 1.0, ++seed), y(n, D, 0.0, 1.0, ++seed);
    const auto f = [&](int i, int j, double* out) {
      out[0] = 0;
      for (int k = 0; k < D; ++k)
        out[0] += x.row(i, D)[k] * y.row(j, D)[k];
    };
    check_both_kernels<Space, Out>(tessera::LogSumExp{}, tessera::DotProduct<D>{},
                                   tessera::Params<>{}, tessera::i_vars(x.view),
                                   tessera::j_vars(y.view), m, n, 1, f,
                                   "LogSumExp D=" + std::to_string(D), tol);
    if (::testing::Test::HasFailure()) return;
  }
}

/// Every half-precision case for storage type S: Gaussian sums (W = 1 and 64) into float and S
/// outputs, ArgKMin with k = 10, LogSumExp into float and S outputs, for D = 3, 17 and 64;
/// computed in float.
template <class Space, class S>
void check_half_storage() {
  const double sum_tol = tolerance<float>();
  check_gaussian_sum<Space, S, S, float, 3, 1>(sum_tol);
  check_gaussian_sum<Space, S, S, float, 17, 64>(sum_tol);
  check_gaussian_sum<Space, S, S, float, 64, 1>(sum_tol);
  check_gaussian_sum<Space, S, S, S, 3, 64>(sum_tol + unit_roundoff<S>());
  check_gaussian_sum<Space, S, S, S, 17, 1>(sum_tol + unit_roundoff<S>());
  check_gaussian_sum<Space, S, S, S, 64, 64>(sum_tol + unit_roundoff<S>());
  check_k_min<Space, S, float, 3>(tessera::ArgKMin{10}, sum_tol);
  check_k_min<Space, S, float, 17>(tessera::ArgKMin{10}, sum_tol);
  check_k_min<Space, S, float, 64>(tessera::ArgKMin{10}, sum_tol);
  check_log_sum_exp<Space, S, float, 3>();
  check_log_sum_exp<Space, S, S, 17>();
  check_log_sum_exp<Space, S, float, 64>();
}

TYPED_TEST(GenredHalf, HalfInputsComputedInFloat) {
  check_half_storage<TypeParam, Kokkos::Experimental::half_t>();
}

#if defined(TESSERA_HAS_BHALF_T)
TYPED_TEST(GenredHalf, BhalfInputsComputedInFloat) {
  check_half_storage<TypeParam, Kokkos::Experimental::bhalf_t>();
}
#endif

/// Points stored as S with 64 weights stored as SW, Distance::matrix (on CUDA the wide-weights
/// tensor-core kernel: one product in the points' type, then P' and the weights in FP16 parts):
/// several tiles of either engine (257 outer rows, 1031 inner), D = 128 (two 64-wide k-steps),
/// centred points, both MatrixPrecision modes. Split keeps the matrix path's float contract
/// (1e-4, docs/genred.md); fast rounds P' and float weights to FP16 once (11 bits): 2e-3.
template <class Space, class S, class SW>
void check_wide_weights_16bit() {
  constexpr int D = 128, W = 64, m = 257, n = 1031;
  const double sigma = 0.25 * std::sqrt(static_cast<double>(D));
  const tessera::GaussianKernel<D, W, tessera::Distance::matrix> kernel(sigma);
  const Points<S, Space> x(m, D, -0.5, 0.5, 41), y(n, D, -0.5, 0.5, 42);
  const Points<SW, Space> b(n, W, 0.5, 1.5, 43);
  const auto f = [&](int i, int j, double* out) {
    const double k = std::exp(-squared_distance(x.row(i, D), y.row(j, D), D) / (2 * sigma * sigma));
    for (int c = 0; c < W; ++c)
      out[c] = k * b.row(j, W)[c];
  };
  for (const tessera::MatrixPrecision p :
       {tessera::MatrixPrecision::split, tessera::MatrixPrecision::fast}) {
    tessera::GenredOptions options = tessera_test::test_options();
    options.matrix_precision       = p;
    const bool split               = p == tessera::MatrixPrecision::split;
    check_formula<Space, float>(tessera::Sum{}, kernel, tessera::Params<>{},
                                tessera::i_vars(x.view), tessera::j_vars(y.view, b.view), m, n, W,
                                f, split ? "wide weights, split" : "wide weights, fast", options,
                                split ? 1e-4 : 2e-3);
  }
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    // the tensor-core kernel took the call: its fast kernel values, rounded to FP16, give other
    // sums than the portable kernel's float ones (which run wherever a kernel declines)
    std::vector<float> sums[2];
    for (const tessera::Implementation impl :
         {tessera::Implementation::automatic, tessera::Implementation::portable}) {
      tessera::GenredOptions options = tessera_test::test_options();
      options.matrix_precision       = tessera::MatrixPrecision::fast;
      options.implementation         = impl;
      Kokkos::View<float**, Kokkos::CudaSpace> out("out", m, W);
      tessera::genred(Space{}, tessera::Sum{}, kernel, tessera::i_vars(x.view),
                      tessera::j_vars(y.view, b.view), out, options);
      const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
      sums[impl == tessera::Implementation::portable].assign(h.data(), h.data() + h.size());
    }
    EXPECT_NE(sums[0], sums[1]) << "the portable kernel ran the call: the tensor cores declined";
  }
#endif
}

TYPED_TEST(GenredHalf, WideWeightsOfHalfPoints) {
  using H = Kokkos::Experimental::half_t;
  check_wide_weights_16bit<TypeParam, H, H>();
  check_wide_weights_16bit<TypeParam, H, float>();
}

#if defined(TESSERA_HAS_BHALF_T)
TYPED_TEST(GenredHalf, WideWeightsOfBhalfPoints) {
  using B = Kokkos::Experimental::bhalf_t;
  check_wide_weights_16bit<TypeParam, B, B>();
  check_wide_weights_16bit<TypeParam, B, float>();
}
#endif

// float points beside double weights or a double output compute in double: the results match
// the double reference to double precision (a float computation would miss by about 1e-7).
TYPED_TEST(GenredHalf, FloatStorageDoubleCompute) {
  const double tol = tolerance<double>();
  check_gaussian_sum<TypeParam, float, double, double, 3, 1>(tol);  // double weights and output
  check_gaussian_sum<TypeParam, float, double, float, 17, 64>(tol + unit_roundoff<float>());
  check_gaussian_sum<TypeParam, float, float, double, 64, 1>(tol);           // a double output only
  check_k_min<TypeParam, float, double, 17>(tessera::KMinArgKMin{10}, tol);  // double values
}

// A float output of a double call is the double result, rounded once (a float computation would
// miss by several float ulps: its exponential alone has a relative error up to 2^-22).
TYPED_TEST(GenredHalf, DoubleComputeRoundedToFloatOutput) {
  check_gaussian_sum<TypeParam, double, double, float, 3, 1>(tolerance<double>() +
                                                             unit_roundoff<float>());
  check_gaussian_sum<TypeParam, double, double, float, 64, 64>(tolerance<double>() +
                                                               unit_roundoff<float>());
}

// Parameters, i- and j-variables of four storage types in one call, the j-variables mixed within
// their group, a LayoutLeft i-variable (the tile loads' component-major walk): computed in double.
TYPED_TEST(GenredHalf, MixedGroupsAndLayouts) {
  using Mem          = typename TypeParam::memory_space;
  using Formula      = tessera_test::MixedFormula;
  constexpr int m    = 131;
  constexpr int n    = 7;
  const auto x_host  = random_values<float>(m * 3, 0.0, 1.0, 11);
  const auto y_host  = random_values<double>(n * 3, 0.0, 1.0, 12);
  const auto b_host  = random_values<Kokkos::Experimental::half_t>(n * 2, 0.5, 1.5, 13);
  const double p_val = 4.0;  // exact in every type
  Kokkos::View<Kokkos::Experimental::half_t**, Mem> p("p", 1, 1);
  Kokkos::deep_copy(p, static_cast<Kokkos::Experimental::half_t>(p_val));
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> x("x", m, 3);
  Kokkos::deep_copy(x, to_view2<float, TypeParam>("x", x_host, m, 3));
  const auto y = to_view2<double, TypeParam>("y", y_host, n, 3);
  const auto b = to_view2<Kokkos::Experimental::half_t, TypeParam>("b", b_host, n, 2);
  const auto f = [&](int i, int j, double* out) {
    Formula{}(tessera::In<double, 1>(&p_val, 1), tessera::In<double, 3>(&x_host[i * 3], 3),
              tessera::In<double, 3>(&y_host[j * 3], 3), tessera::In<double, 2>(&b_host[j * 2], 2),
              tessera::Out<double, 3>(out, 3));
  };
  check_both_kernels<TypeParam, double>(tessera::Sum{}, Formula{}, tessera::params(p),
                                        tessera::i_vars(x), tessera::j_vars(y, b), m, n, 3, f,
                                        "mixed Sum", tolerance<double>());
  check_both_kernels<TypeParam, float>(tessera::KMinArgKMin{3}, Formula{}, tessera::params(p),
                                       tessera::i_vars(x), tessera::j_vars(y, b), m, n, 3, f,
                                       "mixed KMinArgKMin",
                                       tolerance<double>() + unit_roundoff<float>());
}

// The host kernel takes mixed calls rather than declining them to the portable kernel:
// Implementation::host (which throws for a call it declines) agrees with the portable kernel.
TYPED_TEST(GenredHalf, HostKernelTakesMixedCalls) {
  if constexpr (tessera::Impl::GenredBackend<TypeParam>::implementation ==
                tessera::Implementation::host) {
    using Mem       = typename TypeParam::memory_space;
    constexpr int m = 131, n = 67, D = 17, W = 64;
    const Points<float, TypeParam> x(m, D, 0.0, 1.0, 21), y(n, D, 0.0, 1.0, 22);
    const Points<double, TypeParam> b(n, W, 0.5, 1.5, 23);
    const tessera::GaussianKernel<D, W> kernel(2.0);
    Kokkos::View<Kokkos::Experimental::half_t**, Mem> host_out("host_out", m, W);
    Kokkos::View<Kokkos::Experimental::half_t**, Mem> portable_out("portable_out", m, W);
    tessera::GenredOptions options;
    for (auto [implementation, out] :
         {std::pair(tessera::Implementation::host, host_out),
          std::pair(tessera::Implementation::portable, portable_out)}) {
      options.implementation = implementation;
      tessera::genred(TypeParam(), tessera::Sum{}, kernel, tessera::i_vars(x.view),
                      tessera::j_vars(y.view, b.view), out, options);
    }
    const auto h = tessera_test::host_rows(host_out);
    const auto p = tessera_test::host_rows(portable_out);
    for (std::size_t e = 0; e < h.size(); ++e) {
      // double sums that differ by rounding only, each rounded to the output type (at most one
      // output ulp apart)
      EXPECT_NEAR(h[e], p[e], 2 * unit_roundoff<Kokkos::Experimental::half_t>() * p[e]) << e;
    }
  }
}

// Integer and other element types are rejected before anything runs, the error naming the View.
TYPED_TEST(GenredHalf, UnsupportedElementTypesRejected) {
  using Mem     = typename TypeParam::memory_space;
  using Formula = tessera_test::MixedFormula;
  Kokkos::View<float**, Mem> p("p", 1, 1), x("x", 5, 3), y("y", 4, 3), b("b", 4, 2);
  Kokkos::View<float**, Mem> out("out", 5, 3);
  Kokkos::View<int**, Mem> x_int("x_int", 5, 3), out_int("out_int", 5, 3);
  Kokkos::View<unsigned**, Mem> p_unsigned("p_unsigned", 1, 1);
  Kokkos::View<std::int64_t**, Mem> b_long("b_long", 4, 2), indices("indices", 5, 3);
  Kokkos::View<bool**, Mem> y_bool("y_bool", 4, 3);
  const std::string expected = std::string("expected ") + tessera::Impl::genred_element_types;
  const auto sum             = [&](const auto& pv, const auto& xv, const auto& yv, const auto& bv,
                       const auto& outv) {
    return [=] {
      tessera::genred(TypeParam(), tessera::Sum{}, Formula{}, tessera::params(pv),
                                  tessera::i_vars(xv), tessera::j_vars(yv, bv), outv);
    };
  };
  expect_rejected<std::invalid_argument>(
      sum(p, x_int, y, b, out), {"tessera::genred: i_vars[0] element type is not supported",
                                 "got a signed integer type of 4 bytes", expected});
  expect_rejected<std::invalid_argument>(
      sum(p_unsigned, x, y, b, out),
      {"params[0] element type is not supported", "got an unsigned integer type of 4 bytes"});
  expect_rejected<std::invalid_argument>(
      sum(p, x, y, b_long, out),
      {"j_vars[1] element type is not supported", "got a signed integer type of 8 bytes"});
  expect_rejected<std::invalid_argument>(sum(p, x, y_bool, b, out),
                                         {"j_vars[0] element type is not supported", "got bool"});
  expect_rejected<std::invalid_argument>(
      sum(p, x, y, b, out_int),
      {"tessera::genred: out element type is not supported", "got a signed integer type"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(TypeParam(), tessera::MinArgMin{}, Formula{}, tessera::params(p),
                        tessera::i_vars(x), tessera::j_vars(y, b),
                        tessera::outputs(out_int, indices));
      },
      {"tessera::genred: out.values element type is not supported"});
}

}  // namespace
