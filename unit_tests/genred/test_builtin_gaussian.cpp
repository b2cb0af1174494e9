// The Gaussian kernel of genred/builtin_formulas.hpp against direct host computations in double:
// every (D, W) combination, each distance evaluation, Sum and Min; and the radial kernels'
// rejection of a bad sigma.
#include "genred/builtin_formulas_test_support.hpp"

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace tessera_test::builtin;

// The Gaussian kernel on every (D, W) combination, both types: the plumbing of static and
// run-time point and weight dimensions, which all radial kernels share.
TYPED_TEST(GenredBuiltinFormulas, GaussianEveryDimensionCombination) {
  using Space = TypeParam;
  auto run    = [](auto type_tag) {
    using T      = typename decltype(type_tag)::type;
    const Kind g = Kind::gaussian;
    check_builtin<Space, T>(tessera::GaussianKernel<3, 0>(sigma), tessera::Sum{}, g, 3, 0, 31);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 1>(sigma), tessera::Sum{}, g, 3, 1, 32);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 3>(sigma), tessera::Sum{}, g, 3, 3, 33);
    check_builtin<Space, T>(tessera::GaussianKernel<3, dynamic_extent>(sigma), tessera::Sum{}, g, 3,
                            2, 34);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, 0>(sigma), tessera::Sum{}, g, 5,
                            0, 35);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, 1>(sigma), tessera::Sum{}, g, 5,
                            1, 36);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, 3>(sigma), tessera::Sum{}, g, 5,
                            3, 37);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, dynamic_extent>(sigma),
                            tessera::Sum{}, g, 5, 2, 38);
    using tessera::Distance;
    check_builtin<Space, T>(tessera::GaussianKernel<3, 0, Distance::expanded>(sigma),
                            tessera::Sum{}, g, 3, 0, 39);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 1, Distance::expanded>(sigma),
                            tessera::Sum{}, g, 3, 1, 40);
    check_builtin<Space, T>(tessera::GaussianKernel<16, 3, Distance::expanded>(sigma),
                            tessera::Sum{}, g, 16, 3, 41);
    // Distance::matrix: the tensor-core path on CUDA (float, Sum over j, 8 < D <= 32), with D
    // padded to whole 16-wide k-steps (13) or not (16, 32), W = 0, 2 and 3; D = 3, Min and
    // Axis::i (tested by check_builtin) take the expanded evaluation.
    check_builtin<Space, T>(tessera::GaussianKernel<3, 0, Distance::matrix>(sigma), tessera::Sum{},
                            g, 3, 0, 42);
    check_builtin<Space, T>(tessera::GaussianKernel<13, 0, Distance::matrix>(sigma), tessera::Sum{},
                            g, 13, 0, 43);
    check_builtin<Space, T>(tessera::GaussianKernel<16, 3, Distance::matrix>(sigma), tessera::Sum{},
                            g, 16, 3, 44);
    check_builtin<Space, T>(tessera::GaussianKernel<32, 2, Distance::matrix>(sigma), tessera::Sum{},
                            g, 32, 2, 45);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 1, Distance::matrix>(sigma), tessera::Min{},
                            g, 3, 1, 46);
  };
  run(std::common_type<float>{});
  run(std::common_type<double>{});
}

// A radial kernel with Min: the largest distance gives the smallest Gaussian value.
TYPED_TEST(GenredBuiltinFormulas, GaussianMin) {
  using Space = TypeParam;
  check_builtin<Space, float>(tessera::GaussianKernel<3>(sigma), tessera::Min{}, Kind::gaussian, 3,
                              0, 81);
  check_builtin<Space, double>(tessera::LaplaceKernel<dynamic_extent, 3>(sigma), tessera::Min{},
                               Kind::laplace, 5, 3, 82);
}

template <class Kernel>
void expect_sigma_rejected(double s, const std::string& shown) {
  try {
    Kernel k(s);
    (void)k;
    ADD_FAILURE() << "sigma = " << shown << " was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const std::string& part :
         std::vector<std::string>{"tessera::RadialKernel", "sigma", "got " + shown}) {
      EXPECT_NE(msg.find(part), std::string::npos) << "message \"" << msg << "\" lacks " << part;
    }
  }
}

TEST(GenredBuiltinFormulas, RadialKernelRejectsBadSigma) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_sigma_rejected<tessera::GaussianKernel<3>>(0.0, "0");
  expect_sigma_rejected<tessera::GaussianKernel<3, 1>>(-1.5, "-1.5");
  expect_sigma_rejected<tessera::LaplaceKernel<dynamic_extent>>(nan, "nan");
  expect_sigma_rejected<tessera::CauchyKernel<3, 3>>(-0.0, "-0");
  expect_sigma_rejected<tessera::InverseMultiquadricKernel<3>>(-inf, "-inf");
  expect_sigma_rejected<tessera::Matern32Kernel<3, dynamic_extent>>(inf, "inf");
  // Positive finite values are accepted, tiny and large ones included.
  EXPECT_NO_THROW({
    tessera::GaussianKernel<3> k(1e-3);
    (void)k;
  });
  EXPECT_NO_THROW({
    tessera::Matern32Kernel<3> k(1e6);
    (void)k;
  });
}

}  // namespace
