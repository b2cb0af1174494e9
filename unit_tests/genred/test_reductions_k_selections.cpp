// The k-selections (KMin, ArgKMin, KMinArgKMin), for float and double, both axes, both schemes,
// unbatched and batched, against the double-precision host reference.
#include "genred/reductions_test_support.hpp"

namespace {

using tessera_test::check_both_types;

TYPED_TEST(GenredReductions, KMin) {
  check_both_types<TypeParam>(tessera::KMin{1});
  check_both_types<TypeParam>(tessera::KMin{3});
}
TYPED_TEST(GenredReductions, ArgKMin) {
  check_both_types<TypeParam>(tessera::ArgKMin{4});
}
TYPED_TEST(GenredReductions, KMinArgKMin) {
  check_both_types<TypeParam>(tessera::KMinArgKMin{5});
  // k equal to the reduced extent: every index appears once.
  tessera_test::check_reduction<TypeParam, double>(tessera::KMinArgKMin{7}, {{0, 7, 7}, {2, 7, 7}});
}

}  // namespace
