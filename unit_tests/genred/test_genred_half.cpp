// Kokkos::Experimental::half_t (and bhalf_t where Kokkos has it) variables and outputs, computed
// in float: Gaussian sums, a k-smallest selection and LogSumExp at D = 3, 17 and 64, through the
// backend's kernel and the portable one (half_test_support.hpp).
#include "genred/half_test_support.hpp"

namespace {

using namespace tessera_test::mixed_storage;

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

}  // namespace
