// Genred at the dimensions of embeddings on host execution spaces (large_dim_test_support.hpp):
// Gaussian kernel sums with the expanded and the matrix distance, D = 1 to 4096, through every
// host kernel, over j and over i, against a double reference with the error bound of the
// expanded distance; and a dimension whose staged row does not fit a team's level-0 scratch.
#include "genred/large_dim_test_support.hpp"

namespace {

using namespace tessera_test::large_dim;

TEST(GenredLargeDim, GaussianSums) {
  using P = tessera::GaussianProfile;
  check_radial_sums<P, 1, 0, Distance::expanded>(1);
  check_radial_sums<P, 17, 3, Distance::expanded>(2);
  check_radial_sums<P, 64, 1, Distance::matrix>(3);
  check_radial_sums<P, 100, 64, Distance::expanded>(4);
  check_radial_sums<P, 129, 1, Distance::expanded>(5);
  check_radial_sums<P, 520, 0, Distance::matrix>(6);
  check_radial_sums<P, 1030, 1, Distance::expanded>(7);
  check_radial_sums<P, 4096, 3, Distance::matrix>(8);
}
/// A staged row of 8200 + 2 floats (32.8 KB) does not fit the 32 KB of level-0 scratch that
/// host backends give a team: the portable kernel must still run the call (its tile in level-1
/// scratch), as must the host kernel (whose tiles are not in scratch).
TEST(GenredLargeDim, RowLargerThanLevel0Scratch) {
  check_radial_sum<tessera::GaussianProfile, 8200, 1, Distance::expanded>(5, 3, 31);
}

}  // namespace
