// The min-max and arg reductions (Min, Max, ArgMin, ArgMax, MinArgMin, MaxArgMax), for float and
// double, both axes, both schemes, unbatched and batched, against the double-precision host
// reference.
#include "genred/reductions_test_support.hpp"

namespace {

using tessera_test::check_both_types;

TYPED_TEST(GenredReductions, Min) {
  check_both_types<TypeParam>(tessera::Min{});
}
TYPED_TEST(GenredReductions, Max) {
  check_both_types<TypeParam>(tessera::Max{});
}
TYPED_TEST(GenredReductions, ArgMin) {
  check_both_types<TypeParam>(tessera::ArgMin{});
}
TYPED_TEST(GenredReductions, ArgMax) {
  check_both_types<TypeParam>(tessera::ArgMax{});
}
TYPED_TEST(GenredReductions, MinArgMin) {
  check_both_types<TypeParam>(tessera::MinArgMin{});
}
TYPED_TEST(GenredReductions, MaxArgMax) {
  check_both_types<TypeParam>(tessera::MaxArgMax{});
}

}  // namespace
