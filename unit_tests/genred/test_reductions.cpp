// Every reduction of genred/reductions.hpp, for float and double, both axes, both schemes,
// all summation modes, unbatched and batched, against the double-precision host reference.
#include "genred/genred_test_support.hpp"

namespace {

template <class Space>
class GenredReductions : public ::testing::Test {};
TYPED_TEST_SUITE(GenredReductions, tessera_test::ExecutionSpaces);

template <class Space, class Reduction>
void check_both_types(const Reduction& r) {
  tessera_test::check_reduction<Space, float>(r);
  tessera_test::check_reduction<Space, double>(r);
}

TYPED_TEST(GenredReductions, Sum) {
  check_both_types<TypeParam>(tessera::Sum{});
}
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
TYPED_TEST(GenredReductions, LogSumExp) {
  check_both_types<TypeParam>(tessera::LogSumExp{});
}
TYPED_TEST(GenredReductions, LogSumExpWeighted) {
  check_both_types<TypeParam>(tessera::LogSumExpWeighted{});
}
TYPED_TEST(GenredReductions, SumSoftMaxWeight) {
  check_both_types<TypeParam>(tessera::SumSoftMaxWeight{});
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
