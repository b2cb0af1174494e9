// Genred at the dimensions of embeddings on host execution spaces (large_dim_test_support.hpp):
// the Laplace, Cauchy, inverse multiquadric and Matern 3/2 kernel sums with the expanded and the
// matrix distance, D = 1 to 4096, through every host kernel, over j and over i, against a double
// reference with the error bound of the expanded distance.
#include "genred/large_dim_test_support.hpp"

namespace {

using namespace tessera_test::large_dim;

TEST(GenredLargeDim, OtherProfileSums) {
  check_radial_sums<tessera::LaplaceProfile, 100, 1, Distance::expanded>(11);
  check_radial_sums<tessera::LaplaceProfile, 17, 0, Distance::matrix>(12);
  check_radial_sums<tessera::CauchyProfile, 129, 3, Distance::matrix>(13);
  check_radial_sums<tessera::CauchyProfile, 4096, 0, Distance::expanded>(14);
  check_radial_sums<tessera::InverseMultiquadricProfile, 520, 1, Distance::expanded>(15);
  check_radial_sums<tessera::InverseMultiquadricProfile, 1, 64, Distance::matrix>(16);
  check_radial_sums<tessera::Matern32Profile, 64, 0, Distance::expanded>(17);
  check_radial_sums<tessera::Matern32Profile, 1030, 3, Distance::matrix>(18);
}

}  // namespace
