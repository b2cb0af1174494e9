// The Laplace and Cauchy kernels of genred/builtin_formulas.hpp against direct host computations
// in double, through every code path of a radial kernel (check_radial_paths).
#include "genred/builtin_formulas_test_support.hpp"

namespace {

using namespace tessera_test::builtin;

TYPED_TEST(GenredBuiltinFormulas, LaplaceKernel) {
  check_radial_paths<TypeParam, tessera::LaplaceKernel>(Kind::laplace, 41);
}
TYPED_TEST(GenredBuiltinFormulas, CauchyKernel) {
  check_radial_paths<TypeParam, tessera::CauchyKernel>(Kind::cauchy, 51);
}

}  // namespace
