// Cluster masks for the ClusterMask tests: host cluster ranges and masks turned into device
// ranges and ranges_from_mask patterns; and GenredOverMaskPattern's genred checks over a mask's
// pattern, one function per reduction family, each compiled in a translation unit of its own
// (test_cluster_mask_genred_<family>.cpp) so that the families compile in parallel.
#pragma once

#include "cluster/block_sparse_genred_check.hpp"
#include "cluster/block_sparse_test_support.hpp"
#include "execution_spaces.hpp"
#include "genred/genred_test_support.hpp"

#include <tessera/cluster/cluster_mask.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera_test {

/// A (count, 2) device View of host cluster ranges [start, end), given as a row-major list.
template <class Space>
Kokkos::View<int**, Kokkos::LayoutRight, typename Space::memory_space> ranges_view(
    const std::vector<int>& r) {
  Kokkos::View<int**, Kokkos::LayoutRight, typename Space::memory_space> v("ranges", r.size() / 2,
                                                                           2);
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t e = 0; e < r.size(); ++e)
    h.data()[e] = r[e];
  Kokkos::deep_copy(v, h);
  return v;
}

/// ranges_from_mask of a (Cx, Cy) row-major host mask and host cluster ranges.
template <class Space>
tessera::BlockSparseRanges<typename Space::memory_space> mask_ranges(const std::vector<char>& mask,
                                                                     const std::vector<int>& rx,
                                                                     const std::vector<int>& ry) {
  using Mem    = typename Space::memory_space;
  const int cx = static_cast<int>(rx.size() / 2), cy = static_cast<int>(ry.size() / 2);
  Kokkos::View<bool**, Mem> dmask("mask", cx, cy);
  auto hm = Kokkos::create_mirror_view(dmask);
  for (int a = 0; a < cx; ++a) {
    for (int b = 0; b < cy; ++b)
      hm(a, b) = mask[a * cy + b] != 0;
  }
  Kokkos::deep_copy(dmask, hm);
  return tessera::ranges_from_mask(Space(), dmask, ranges_view<Space>(rx), ranges_view<Space>(ry));
}

/// A cluster mask over clusters of x and y and the pairs it keeps, built cluster by cluster on
/// the host (independently of ranges_from_mask): the case of GenredOverMaskPattern.
struct MaskCase {
  std::vector<char> mask;   // (Cx, Cy) row-major
  std::vector<int> rx, ry;  // cluster ranges of x and y, (Cx, 2) and (Cy, 2) row-major
  HostPattern by_cluster;
  SparseCase s;
};

/// The position of Space in a type list of execution spaces (ExecutionSpaces).
template <class Space, class Head, class... Tail>
int space_index(::testing::Types<Head, Tail...>) {
  const bool same[] = {std::is_same_v<Space, Head>, std::is_same_v<Space, Tail>...};
  return static_cast<int>(std::find(std::begin(same), std::end(same), true) - std::begin(same));
}

/// Calls f(Space()) for the execution space Space at position `index` of a type list: the
/// reduction families' checks take the execution space as its position, so that they are plain
/// functions compiled apart from the typed test that calls them.
template <class F, class Head, class... Tail>
void with_space_at(int index, ::testing::Types<Head, Tail...>, const F& f) {
  int position    = 0;
  const auto call = [&](auto type) {  // type: std::common_type<Space>, a tag
    if (position++ == index) f(typename decltype(type)::type());
  };
  call(std::common_type<Head>());
  (call(std::common_type<Tail>()), ...);
}

/// One reduction and its name in failure messages.
template <class Reduction>
struct NamedReduction {
  const char* name;
  Reduction reduction;
};
template <class Reduction>
NamedReduction<Reduction> named_reduction(const char* name, const Reduction& reduction) {
  return {name, reduction};
}
/// X of TESSERA_FOR_EACH_<FAMILY>_REDUCTION(X) that writes ", named_reduction(...)": a family
/// as the trailing arguments of a call.
#define TESSERA_NAMED_REDUCTION(Name, Reduction, ctor) \
  , tessera_test::named_reduction(#Name, tessera::Reduction ctor)

/// check_sparse of each reduction, float then double, over the pattern ranges_from_mask builds
/// from the case's mask, on the execution space at position `space` of ExecutionSpaces, through
/// every kernel that runs block-sparse calls; stops at the first failure.
template <class... Reduction>
void genred_over_mask(int space, const MaskCase& c, const NamedReduction<Reduction>&... named) {
  with_space_at(space, ExecutionSpaces{}, [&](auto exec) {
    using Space       = decltype(exec);
    const auto ranges = mask_ranges<Space>(c.mask, c.rx, c.ry);
    const auto check  = [&](const auto& r) {
      const std::string what = std::string("mask ") + r.name;
      check_sparse<Space, float>(r.reduction, c.s, ranges, c.by_cluster, what);
      check_sparse<Space, double>(r.reduction, c.s, ranges, c.by_cluster, what);
      return !::testing::Test::HasFailure();
    };
    (void)(check(named) && ...);
  });
}

/// genred_over_mask for each reduction family (TESSERA_FOR_EACH_<FAMILY>_REDUCTION), each
/// defined in test_cluster_mask_genred_<family>.cpp.
void genred_over_mask_sums(int space, const MaskCase& c);
void genred_over_mask_min_max(int space, const MaskCase& c);
void genred_over_mask_k_selections(int space, const MaskCase& c);
void genred_over_mask_log_sum_exp(int space, const MaskCase& c);

}  // namespace tessera_test
