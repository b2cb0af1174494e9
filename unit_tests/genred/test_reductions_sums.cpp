// Sum, for float and double, both axes, both schemes, all summation modes, unbatched and
// batched, against the double-precision host reference; and a staged formula through the same
// checks. The other reduction families: test_reductions_<family>.cpp.
#include "genred/reductions_test_support.hpp"

namespace {

using tessera_test::check_both_types;

TYPED_TEST(GenredReductions, Sum) {
  check_both_types<TypeParam>(tessera::Sum{});
}

// A staged formula (formula.hpp) through both schemes, both axes and batches: rows staged into
// the threads' registers and the scratch tiles with stage_i / stage_j, pairs by eval_staged.
TYPED_TEST(GenredReductions, StagedFormula) {
  using tessera_test::StagedMixedFormula;
  tessera_test::check_reduction<TypeParam, float, tessera::Sum, StagedMixedFormula>(tessera::Sum{});
  tessera_test::check_reduction<TypeParam, double, tessera::MinArgMin, StagedMixedFormula>(
      tessera::MinArgMin{});
  tessera_test::check_reduction<TypeParam, float, tessera::ArgKMin, StagedMixedFormula>(
      tessera::ArgKMin{4});
  tessera_test::check_reduction<TypeParam, double, tessera::SumSoftMaxWeight, StagedMixedFormula>(
      tessera::SumSoftMaxWeight{});
}

}  // namespace
