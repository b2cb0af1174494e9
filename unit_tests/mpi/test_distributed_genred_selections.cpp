// tessera::mpi::genred, the selections (min/max families and k smallest): on every rank count
// (1 to 4) and case, the rank's rows equal those of one genred call on the whole problem, values
// and global indices bit for bit, ties (the j-rows repeat) broken by the smaller global index.
#include "mpi/distributed_test_support.hpp"

namespace {

using namespace tessera_test;

template <class T>
class DistributedSelections : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DistributedSelections, Scalars);

template <class T, class Reduction>
void run_cases(const Reduction& reduction) {
  for (const DistributedCase& c : distributed_cases())
    expect_distributed_matches<T>(reduction, c, 0.0);
}

TYPED_TEST(DistributedSelections, MinMax) {
  run_cases<TypeParam>(tessera::Min{});
  run_cases<TypeParam>(tessera::Max{});
}
TYPED_TEST(DistributedSelections, ArgMinArgMax) {
  run_cases<TypeParam>(tessera::ArgMin{});
  run_cases<TypeParam>(tessera::ArgMax{});
}
TYPED_TEST(DistributedSelections, MinArgMinMaxArgMax) {
  run_cases<TypeParam>(tessera::MinArgMin{});
  run_cases<TypeParam>(tessera::MaxArgMax{});
}
// k = 5: more than some ranks' slices hold (and than the period of the ties).
TYPED_TEST(DistributedSelections, KSmallest) {
  run_cases<TypeParam>(tessera::KMin{5});
  run_cases<TypeParam>(tessera::ArgKMin{5});
  run_cases<TypeParam>(tessera::KMinArgKMin{5});
}
// Distinct values: the ring's lists admit only values at or below the running k-th value, and
// with the period-7 ties above a row's running list is mostly one repeated value; here its
// entries differ, so that a wrong bound shows.
TYPED_TEST(DistributedSelections, KSmallestWithoutTies) {
  for (DistributedCase c : distributed_cases()) {
    c.tied = false;
    expect_distributed_matches<TypeParam>(tessera::KMinArgKMin{5}, c, 0.0);
    expect_distributed_matches<TypeParam>(tessera::ArgKMin{2}, c, 0.0);
  }
}
// k = the whole reduced extent of the smallest case: every row's list is complete.
TYPED_TEST(DistributedSelections, KEqualsTheWholeRange) {
  tessera_test::DistributedCase c{
      tessera::Axis::j, tessera::mpi::Schedule::ring, Deal::uneven, Deal::last_only, false, 13, 11};
  expect_distributed_matches<TypeParam>(tessera::KMinArgKMin{11}, c, 0.0);
  c.axis = tessera::Axis::i;
  expect_distributed_matches<TypeParam>(tessera::KMinArgKMin{13}, c, 0.0);
}

}  // namespace
