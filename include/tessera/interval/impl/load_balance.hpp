// The load-balancing search behind the interval primitives (moderngpu's CTALoadBalance).
//
// Output items 0, 1, ..., total - 1 and the interval offsets offsets[0..n) are merged, an
// offset before an item of equal value (upper bound). Cutting the merged sequence of
// total + n entries into pieces of items_per_team gives every team the same work whatever the
// counts: a run of empty intervals fills a team with offsets and no items, one huge interval
// fills many teams with items and one offset each. A team that holds items [a0, a1) and
// offsets [b0, b1) knows that offsets before b0 are <= a0 and offsets from b1 on are > a1 - 1,
// so the owner of item i in [a0, a1) is b0 - 1 + #{b in [b0, b1) : offsets[b] <= i}, found by a
// binary search over the team's offsets staged in scratch memory.
#pragma once

#include <tessera/core/sorted_search.hpp>
#include <tessera/core/tiling.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace tessera {
namespace Impl {

/// How many of the first diag entries of the merged sequence are items (the others are
/// offsets): a binary search along the cross diagonal, moderngpu's MergePath with upper bounds.
template <class Offsets>
KOKKOS_INLINE_FUNCTION std::int64_t merge_path_items(const Offsets& offsets, std::int64_t total,
                                                     std::int64_t n, std::int64_t diag) {
  std::int64_t lo = diag - n > 0 ? diag - n : 0;
  std::int64_t hi = diag < total ? diag : total;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (mid < static_cast<std::int64_t>(offsets(diag - 1 - mid))) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// items[t] = the items before team t's piece of the merged sequence, t in [0, teams].
template <class Offsets, class Items>
struct MergePathPartition {
  Offsets offsets;
  Items items;
  std::int64_t total, n, per_team;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    const std::int64_t end  = total + n;
    const std::int64_t diag = static_cast<std::int64_t>(t) * per_team < end
                                  ? static_cast<std::int64_t>(t) * per_team
                                  : end;
    items(t)                = merge_path_items(offsets, total, n, diag);
  }
};

/// Team kernel: op(i, k) for every item i in [0, total) and its owner k.
template <class ExecSpace, class Offsets, class Items, class ItemOp>
struct LoadBalancedItems {
  using Offset       = typename Offsets::non_const_value_type;
  using Member       = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using ScratchSpace = typename ExecSpace::scratch_memory_space;
  using Staged       = Kokkos::View<Offset*, ScratchSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  Offsets offsets;
  Items items;
  ItemOp op;
  std::int64_t total, n, per_team;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int t            = team.league_rank();
    const std::int64_t end = total + n;
    const std::int64_t d0  = static_cast<std::int64_t>(t) * per_team;
    const std::int64_t d1  = d0 + per_team < end ? d0 + per_team : end;
    const std::int64_t a0 = items(t), a1 = items(t + 1);
    const std::int64_t b0 = d0 - a0, b1 = d1 - a1;
    const int staged_count = static_cast<int>(b1 - b0);
    Staged staged(team.team_scratch(0), per_team);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, staged_count),
                         [&](int q) { staged(q) = offsets(b0 + q); });
    team.team_barrier();
    const int item_count = static_cast<int>(a1 - a0);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, item_count), [&](int q) {
      const std::int64_t i = a0 + q;
      const std::int64_t k = b0 - 1 + upper_bound(staged.data(), staged_count, i);
      op(i, k);
    });
  }
};

/// Runs op(i, k) for every item i in [0, total) with its owner k (offsets[k] <= i <
/// offsets[k + 1]), offsets validated by the caller. Allocates teams + 1 integers.
template <class ExecSpace, class Offsets, class ItemOp>
void for_each_item_with_owner(const ExecSpace& space, const char* label, std::int64_t total,
                              const Offsets& offsets, const ItemOp& op) {
  const std::int64_t n = static_cast<std::int64_t>(offsets.extent(0));
  if (total == 0) return;
  const IntervalTile tile  = default_interval_tile<ExecSpace>();
  const std::int64_t per   = tile.items_per_team;
  const std::int64_t teams = (total + n + per - 1) / per;
  using Items              = Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>;
  const Items items(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                       std::string("tessera::interval::merge_path")),
                    teams + 1);
  Kokkos::parallel_for("tessera::interval::merge_path_partition",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(teams + 1)),
                       MergePathPartition<Offsets, Items>{offsets, items, total, n, per});
  using Kernel = LoadBalancedItems<ExecSpace, Offsets, Items, ItemOp>;
  Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(teams), tile.team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::Staged::shmem_size(tile.items_per_team)));
  Kokkos::parallel_for(label, policy, Kernel{offsets, items, op, total, n, per});
}

}  // namespace Impl
}  // namespace tessera
