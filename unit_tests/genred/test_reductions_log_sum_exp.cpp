// The log-sum-exp and softmax reductions (LogSumExp, LogSumExpWeighted, SumSoftMaxWeight), for
// float and double, both axes, both schemes, all summation modes, unbatched and batched, against
// the double-precision host reference.
#include "genred/reductions_test_support.hpp"

namespace {

using tessera_test::check_both_types;

TYPED_TEST(GenredReductions, LogSumExp) {
  check_both_types<TypeParam>(tessera::LogSumExp{});
}
TYPED_TEST(GenredReductions, LogSumExpWeighted) {
  check_both_types<TypeParam>(tessera::LogSumExpWeighted{});
}
TYPED_TEST(GenredReductions, SumSoftMaxWeight) {
  check_both_types<TypeParam>(tessera::SumSoftMaxWeight{});
}

}  // namespace
