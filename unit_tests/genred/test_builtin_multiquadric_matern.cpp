// The inverse multiquadric and Matern 3/2 kernels of genred/builtin_formulas.hpp against direct
// host computations in double, through every code path of a radial kernel (check_radial_paths).
#include "genred/builtin_formulas_test_support.hpp"

namespace {

using namespace tessera_test::builtin;

TYPED_TEST(GenredBuiltinFormulas, InverseMultiquadricKernel) {
  check_radial_paths<TypeParam, tessera::InverseMultiquadricKernel>(Kind::inverse_multiquadric, 61);
}
TYPED_TEST(GenredBuiltinFormulas, Matern32Kernel) {
  check_radial_paths<TypeParam, tessera::Matern32Kernel>(Kind::matern32, 71);
}

}  // namespace
