// Views of mixed element types (half_test_support.hpp): 16-bit points with wide weights through
// the matrix distance; float Views computed in double beside a double one, and double ones
// rounded to a float output; four storage types and two layouts in one call; the host kernel
// taking mixed calls; element types genred does not take, rejected.
#include "genred/half_test_support.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tessera_test::mixed_storage;

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
