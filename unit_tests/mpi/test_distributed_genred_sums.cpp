// tessera::mpi::genred, the reductions that sum (Sum, LogSumExp, LogSumExpWeighted,
// SumSoftMaxWeight): the rank's rows equal those of one genred call on the whole problem within
// a few ulps of the row's scale on the ring (the slices' partial sums are added in another
// order), bit for bit under the all-gather schedule; every summation mode.
#include "mpi/distributed_test_support.hpp"

namespace {

using namespace tessera_test;

template <class T>
class DistributedSums : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DistributedSums, Scalars);

/// Float: the merged partials of at most 4 slices differ from one running sum by a few ulps of
/// the row's scale; double likewise.
template <class T>
constexpr double sum_tolerance() {
  return std::is_same_v<T, float> ? 2e-6 : 1e-14;
}

template <class T, class Reduction>
void run_cases(const Reduction& reduction) {
  for (const DistributedCase& c : distributed_cases())
    expect_distributed_matches<T>(reduction, c, sum_tolerance<T>());
}

TYPED_TEST(DistributedSums, Sum) {
  run_cases<TypeParam>(tessera::Sum{});
}
TYPED_TEST(DistributedSums, LogSumExp) {
  run_cases<TypeParam>(tessera::LogSumExp{});
}
TYPED_TEST(DistributedSums, LogSumExpWeighted) {
  run_cases<TypeParam>(tessera::LogSumExpWeighted{});
}
TYPED_TEST(DistributedSums, SumSoftMaxWeight) {
  run_cases<TypeParam>(tessera::SumSoftMaxWeight{});
}

// Direct and Kahan summation merge their slices with their own slots (block_sum above).
TYPED_TEST(DistributedSums, SummationModes) {
  for (tessera::Summation s : {tessera::Summation::direct, tessera::Summation::kahan}) {
    for (DistributedCase c : distributed_cases()) {
      c.summation = s;
      expect_distributed_matches<TypeParam>(tessera::Sum{}, c, sum_tolerance<TypeParam>());
      expect_distributed_matches<TypeParam>(tessera::LogSumExp{}, c, sum_tolerance<TypeParam>());
    }
  }
}

}  // namespace
