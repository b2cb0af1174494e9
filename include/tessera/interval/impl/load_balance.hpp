// The load-balanced kernel behind the interval primitives (moderngpu's CTALoadBalance).
//
// Output items 0, 1, ..., total - 1 and the interval offsets offsets[0..n) are merged, an
// offset before an item of equal value (upper bound). Cutting the merged sequence of
// total + n entries into pieces of items_per_team gives every team the same work whatever the
// counts: a run of empty intervals fills a team with offsets and no items, one huge interval
// fills many teams with items and one offset each. A team that holds items [a0, a1) and
// offsets [b0, b1) knows that offsets before b0 are <= a0 and offsets from b1 on are > a1 - 1,
// so the owner of item i in [a0, a1) is one of the intervals [b0 - 1, b1): the team walks its
// piece of the merge path in scratch memory to find it.
//
// A primitive describes its per-interval and per-item work with an item operation:
//   using staged_type, value_type;
//   staged_type stage(k)             what the team keeps in scratch for interval k, read once
//                                    per interval (a value to expand, the source and
//                                    destination starts of a copy, ...);
//   value_type load(i, r, staged)    the value of item i, the r-th item of its interval (i and
//                                    r are ints: total is below 2^31);
//   void store(i, r, staged, value)  where it goes.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/sorted_search.hpp>
#include <tessera/core/tiling.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <limits>
#include <string>

namespace tessera {
namespace Impl {

/// v limited to [lo, hi].
KOKKOS_INLINE_FUNCTION std::int64_t clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

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

/// One team's piece of the merged sequence: items [a0, a0 + items) and offsets [b0, b0 + m).
struct TeamPiece {
  int a0, items, b0, m;
};

/// pieces[t] = team t's piece: the merge path cut at t * per_team and (t + 1) * per_team. The
/// clamps only matter for offsets that IntervalOptions::check would reject: they keep every
/// piece inside the items, the offsets and one team's scratch arrays.
template <class Offsets, class Pieces>
struct MergePathPartition {
  Offsets offsets;
  Pieces pieces;
  std::int64_t total, n, per_team;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    const std::int64_t end = total + n;
    const std::int64_t d0  = clamp(static_cast<std::int64_t>(t) * per_team, 0, end);
    const std::int64_t d1  = clamp(d0 + per_team, 0, end);
    const std::int64_t a0  = merge_path_items(offsets, total, n, d0);
    const std::int64_t a1  = merge_path_items(offsets, total, n, d1);
    const std::int64_t b0  = clamp(d0 - a0, 0, n);
    const std::int64_t b1  = clamp(d1 - a1, b0, n);
    const std::int64_t k   = clamp(a1 - a0, 0, per_team);
    pieces(t) = TeamPiece{static_cast<int>(a0), static_cast<int>(k), static_cast<int>(b0),
                          static_cast<int>(clamp(b1 - b0, 0, per_team - k))};
  }
};

/// Merged entries each thread walks, and items it then loads before it stores (registers per
/// thread: this many values).
inline constexpr int interval_items_per_thread = 8;

/// Team kernel: for every item i in [0, total) of interval k, op.store(i, s, op.load(i, s))
/// with s = op.stage(k, offsets[k]).
///
/// Three phases per team (moderngpu's CTALoadBalance): (1) the offsets and staged data of the
/// team's intervals go to scratch; (2) each thread walks V consecutive entries of the team's
/// piece of the merge path (one binary search for its start, then one comparison per entry)
/// and writes the owner of each item it passes to scratch (skipped when the team lies inside
/// one interval); (3) each thread takes V items strided by the team size, so that a warp
/// touches consecutive items, reads their owners and staged data from scratch, issues the V
/// loads, then the V stores.
template <class ExecSpace, class Offsets, class Pieces, class ItemOp>
struct LoadBalancedItems {
  using Staged       = typename ItemOp::staged_type;
  using Value        = typename ItemOp::value_type;
  using Member       = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using ScratchSpace = typename ExecSpace::scratch_memory_space;
  template <class T>
  using ScratchArray     = Kokkos::View<T*, ScratchSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int V = interval_items_per_thread;

  Offsets offsets;
  Pieces pieces;
  ItemOp op;
  int per_team;

  /// Scratch bytes per team: offsets and staged data of up to per_team + 1 intervals, and the
  /// owners of up to per_team items.
  static std::size_t scratch_size(int per_team) {
    return ScratchArray<int>::shmem_size(per_team + 1) +
           ScratchArray<Staged>::shmem_size(per_team + 1) + ScratchArray<int>::shmem_size(per_team);
  }

  /// Rank of local item q in the interval that starts at local item `first` (exact in 32-bit
  /// unsigned arithmetic for valid offsets, where it is below 2^31).
  KOKKOS_INLINE_FUNCTION static int rank(int q, int first) {
    return static_cast<int>(static_cast<unsigned>(q) - static_cast<unsigned>(first));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const TeamPiece piece = pieces(team.league_rank());
    const int a0 = piece.a0, item_count = piece.items, b0 = piece.b0, m = piece.m;
    // Staged intervals: the owner of the team's first item (b0 - 1; interval 0 again when
    // b0 = 0, so that no owner is ever negative) at index 0, then the m that start in the
    // piece.
    const int count = m + 1;
    // offsets - a0, clamped to [INT_MIN, per_team] (valid offsets never are): compared with
    // the local item indices q in [0, per_team); q - start is the item's rank in its interval
    ScratchArray<int> start(team.team_scratch(0), per_team + 1);
    ScratchArray<Staged> staged(team.team_scratch(0), per_team + 1);
    ScratchArray<int> owner(team.team_scratch(0), per_team);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](int q) {
      const int k          = q > 0 ? b0 + q - 1 : (b0 > 0 ? b0 - 1 : 0);
      start(q) =
          static_cast<int>(clamp(static_cast<std::int64_t>(offsets(k)) - a0, INT_MIN, per_team));
      staged(q) = op.stage(k);
    });
    team.team_barrier();
    const int threads = team.team_size();
    // m == 0: the whole piece lies in one interval, staged(0); no owners to find
    if (m > 0) {
      const int* next = start.data() + 1;  // the piece's offsets, m of them
      const int size  = item_count + m;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](int tid) {
        for (int diag = tid * V; diag < size; diag += threads * V) {
          // items among the first diag entries of the piece (an offset before an equal item)
          int lo = diag - m > 0 ? diag - m : 0, hi = diag < item_count ? diag : item_count;
          while (lo < hi) {
            const int mid         = (lo + hi) / 2;
            const bool item_first = mid < next[diag - 1 - mid];
            lo                    = item_first ? mid + 1 : lo;
            hi                    = item_first ? hi : mid;
          }
          // walk: take the item if it comes before the next offset, else pass the offset
          // (bound: the next offset, or past every item once the piece's offsets are passed)
          int qi = lo, qo = diag - lo, bound = qo < m ? next[qo] : per_team;
          const int steps = size - diag < V ? size - diag : V;
          TESSERA_UNROLL_FULL
          for (int e = 0; e < V; ++e) {
            if (e < steps) {
              if (qi < bound) {
                owner(qi++) = qo;  // staged index of the last offset passed
              } else {
                ++qo;
                bound = qo < m ? next[qo] : per_team;
              }
            }
          }
        }
      });
      team.team_barrier();
    }
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](int tid) {
      for (int base = 0; base < item_count; base += threads * V) {
        int own[V];
        Value value[V];
        TESSERA_UNROLL_FULL
        for (int j = 0; j < V; ++j) {
          const int q = base + j * threads + tid;
          if (q < item_count) {
            own[j]   = m > 0 ? owner(q) : 0;
            value[j] = op.load(a0 + q, rank(q, start(own[j])), staged(own[j]));
          }
        }
        TESSERA_UNROLL_FULL
        for (int j = 0; j < V; ++j) {
          const int q = base + j * threads + tid;
          if (q < item_count) op.store(a0 + q, rank(q, start(own[j])), staged(own[j]), value[j]);
        }
      }
    });
  }
};

/// Runs op (an item operation, see above) over every item i in [0, total) and its owner k
/// (offsets[k] <= i < offsets[k + 1]). The caller validates total (at most 2^31 - 1) and, unless
/// told not to, the offsets. Allocates 16 bytes per team.
template <class ExecSpace, class Offsets, class ItemOp>
void for_each_item_with_owner(const ExecSpace& space, const std::string& label, std::int64_t total,
                              const Offsets& offsets, const ItemOp& op) {
  const std::int64_t n = static_cast<std::int64_t>(offsets.extent(0));
  if (total == 0) return;
  const IntervalTile tile  = default_interval_tile<ExecSpace>();
  const std::int64_t per   = tile.items_per_team;
  const std::int64_t teams = (total + n + per - 1) / per;
  using Pieces             = Kokkos::View<TeamPiece*, typename ExecSpace::memory_space>;
  const Pieces pieces(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                         std::string("tessera::interval::team_pieces")),
                      teams);
  Kokkos::parallel_for("tessera::interval::merge_path_partition",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(teams)),
                       MergePathPartition<Offsets, Pieces>{offsets, pieces, total, n, per});
  using Kernel = LoadBalancedItems<ExecSpace, Offsets, Pieces, ItemOp>;
  Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(teams), tile.team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_size(tile.items_per_team)));
  Kokkos::parallel_for(label, policy, Kernel{offsets, pieces, op, tile.items_per_team});
}

}  // namespace Impl
}  // namespace tessera
