// The load-balanced kernel behind the interval primitives (moderngpu's CTALoadBalance).
//
// Output items 0, 1, ..., total - 1 and the interval offsets offsets[0..n) are merged, an
// offset before an item of equal value (upper bound). Cutting the merged sequence of
// total + n entries into pieces of items_per_team gives every piece the same work whatever the
// counts: a run of empty intervals fills a piece with offsets and no items, one huge interval
// fills many pieces with items and one offset each. A piece that holds items [a0, a1) and
// offsets [b0, b1) knows that offsets before b0 are <= a0 and offsets from b1 on are > a1 - 1,
// so the owner of item i in [a0, a1) is one of the intervals [b0 - 1, b1): the team that takes
// the piece walks its part of the merge path in scratch memory to find it. Each team takes a
// few pieces (TuningBase::interval_pieces_per_team), one after the other, strided by the number of
// teams. The cuts are merge-path points (MergePoint: the items and offsets before the cut), found
// by one binary search each (MergePathPartition); piece t lies between points t and t + 1.
//
// A primitive describes its per-interval and per-item work with an item operation of one of
// two kinds. A fill operation writes one value per interval to every item of its interval in
// a rank-1 output View (interval_expand, load_balancing_search):
//   static constexpr bool fills = true;
//   using staged_type;               the value written
//   staged_type stage(k)             interval k's value, read once per interval;
//   Out out;                         the rank-1 output View, out(i) = stage(owner of i).
// A per-item operation reads one value per item and writes it elsewhere, given the item's
// interval's staged data (moves):
//   static constexpr bool fills = false;
//   using staged_type, value_type, target_type;
//   staged_type stage(k, first)      what the team keeps in scratch for interval k, whose first
//                                    item is the team's local item `first` (an int, negative
//                                    when the interval starts before the team's items);
//   value_type load(q, staged)       the value of the team's local item q (item q - first of
//                                    its interval);
//   target_type target(q, staged)    where it goes (kept in registers until the store);
//   void store(target, value)        writes it there.
#pragma once

#include <tessera/core/impl/call_memory.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/interval/impl/check_offsets.hpp>
#include <tessera/interval/interval_options.hpp>
#include <tessera/interval/impl/merge_point.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

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

/// Merge-path pieces of per_team entries for total items in n intervals (the last one shorter).
inline std::int64_t merge_path_pieces(std::int64_t total, std::int64_t n, std::int64_t per_team) {
  return (total + n + per_team - 1) / per_team;
}

/// points[t] = the merge path's point on diagonal t * per_team (the last one: total + n).
template <class Offsets, class Points>
struct MergePathPartition {
  Offsets offsets;
  Points points;
  std::int64_t total, n, per_team;
  KOKKOS_INLINE_FUNCTION void operator()(int t) const {
    const std::int64_t d = clamp(static_cast<std::int64_t>(t) * per_team, 0, total + n);
    const std::int64_t a = merge_path_items(offsets, total, n, d);
    points(t)            = MergePoint{static_cast<int>(a), static_cast<int>(d - a)};
  }
};

/// A piece of the merged sequence: items [a0, a0 + items) and offsets [b0, b0 + m).
struct TeamPiece {
  int a0, items, b0, m;
};

/// The piece between merge-path points p and q of a path of total items and n offsets cut every
/// per_team entries. The clamps only matter for points that valid offsets do not give
/// (IntervalOptions::check off, or a kernel that wrote them from such offsets): they keep every
/// piece inside the items, the offsets and one team's scratch arrays.
KOKKOS_INLINE_FUNCTION TeamPiece piece_between(const MergePoint& p, const MergePoint& q,
                                               std::int64_t total, std::int64_t n, int per_team) {
  const std::int64_t a0 = clamp(p.items, 0, total);
  const std::int64_t items =
      clamp(std::int64_t{q.items} - a0, 0, per_team < total - a0 ? per_team : total - a0);
  const std::int64_t b0   = clamp(p.offsets, 0, n);
  const std::int64_t room = per_team - items;  // what the piece's scratch holds besides
  const std::int64_t m    = clamp(std::int64_t{q.offsets} - b0, 0, room < n - b0 ? room : n - b0);
  return {static_cast<int>(a0), static_cast<int>(items), static_cast<int>(b0), static_cast<int>(m)};
}

/// Items of T per 16-byte vector store (1: T's size does not divide 16).
template <class T>
constexpr int items_per_vector() {
  return sizeof(T) < 16 && 16 % sizeof(T) == 0 ? static_cast<int>(16 / sizeof(T)) : 1;
}

/// 16 bytes moved with one access: the GPU vector type where there is one (compilers split
/// copies of other 16-byte structs into narrower accesses).
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
using Bytes16 = uint4;
#else
struct alignas(16) Bytes16 {
  std::uint32_t word[4];
};
#endif

/// *destination = x with one 16-byte store (nvcc splits a plain uint4 assignment whose value
/// comes from two branches into four 4-byte stores). On CUDA destination is global memory:
/// the data of a View the execution space can access.
KOKKOS_INLINE_FUNCTION void store_bytes16(Bytes16* destination, const Bytes16& x) {
#if defined(__CUDA_ARCH__)
  asm("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(destination), "r"(x.x), "r"(x.y), "r"(x.z),
      "r"(x.w)
      : "memory");
#else
  *destination = x;
#endif
}

/// Team kernel: for every item i in [0, total) of interval k, the item operation's work (see
/// above) with its staged data op.stage(k).
///
/// Three phases per piece (moderngpu's CTALoadBalance): (1) the offsets and staged data of the
/// piece's intervals go to scratch; (2) each thread walks WALK consecutive entries of the
/// piece's part of the merge path (one binary search for its start, then one comparison per
/// entry, without branches) and writes a mark for each item it passes to scratch: the
/// interval's value for fill operations, the interval's index in scratch otherwise (skipped
/// when the piece lies inside one interval); (3) fill operations copy the marks to the output
/// with 16-byte stores where the type allows it; per-item operations load V items per thread
/// strided by the team size, so that a warp touches consecutive items, and store them after
/// the next round's loads are issued, which may be the next piece's (move_pieces).
template <class ExecSpace, class Offsets, class Points, class ItemOp>
struct LoadBalancedItems {
  static constexpr bool fills = ItemOp::fills;
  using Staged                = typename ItemOp::staged_type;
  /// What the walk writes per item: the value (fill operations) or the staged index.
  using Mark         = std::conditional_t<fills, Staged, int>;
  using Member       = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using ScratchSpace = typename ExecSpace::scratch_memory_space;
  template <class T>
  using ScratchArray     = Kokkos::View<T*, ScratchSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int V = Tuning<ExecSpace>::interval_items_per_thread;
  static constexpr int WALK = Tuning<ExecSpace>::interval_walk_length;
  /// Marks per vector store (fill operations on a contiguous output).
  static constexpr int W = fills ? items_per_vector<Mark>() : 1;

  Offsets offsets;
  /// the piece_count + 1 merge-path points that cut the pieces
  Points points;
  ItemOp op;
  /// items in all (offsets.extent(0) intervals)
  std::int64_t total;
  /// Merge-path entries per piece (the tile's items_per_team); pieces in all.
  int per_team, piece_count;
  /// Fill operations: the output takes 16-byte stores (see vector_stores below).
  bool vector_stores;
  /// Pieces each team takes (team t: t, t + teams, ...).
  static constexpr int pieces_per_team = Tuning<ExecSpace>::interval_pieces_per_team(fills);

  /// Alignment of the scratch arrays (16 bytes at least: marks are read 16 bytes at once).
  template <class T>
  static constexpr std::size_t scratch_alignment = alignof(T) > 16 ? alignof(T) : 16;

  /// Entries of the offsets (start) array: m + 1 staged intervals and WALK end markers.
  KOKKOS_INLINE_FUNCTION static constexpr int start_count(int m) { return m + WALK + 1; }

  /// Bytes of the staged data of m + 1 intervals and WALK end markers, rounded up so that the
  /// marks that follow them are aligned.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t staged_bytes(int m) {
    const std::size_t bytes = sizeof(Staged) * static_cast<std::size_t>(start_count(m));
    const std::size_t align = scratch_alignment<Mark>;
    return (bytes + align - 1) / align * align;
  }

  /// Bytes of the pool that holds the staged data of a piece's m + 1 intervals (and WALK end
  /// markers) followed by the marks of its items: m + items <= per_team.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t pool_bytes(int per_team) {
    const std::size_t largest = sizeof(Staged) > sizeof(Mark) ? sizeof(Staged) : sizeof(Mark);
    return largest * static_cast<std::size_t>(start_count(per_team)) + sizeof(Mark) * W +
           scratch_alignment<Mark>;
  }

  /// Alignment of the pool.
  static constexpr std::size_t pool_alignment = scratch_alignment<Staged> > scratch_alignment<Mark>
                                                    ? scratch_alignment<Staged>
                                                    : scratch_alignment<Mark>;

  /// Scratch bytes per team: the offsets array and the pool, each with its alignment padding.
  static std::size_t scratch_size(int per_team) {
    return sizeof(int) * static_cast<std::size_t>(start_count(per_team)) + scratch_alignment<int> +
           pool_bytes(per_team) + pool_alignment;
  }

  /// What a walked piece leaves in team scratch for its items: its staged data and the marks
  /// of its items (marks(shift + q): local item q).
  struct PieceScratch {
    ScratchArray<Staged> staged;
    ScratchArray<Mark> marks;
    int shift;
  };

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    // one allocation of the team's scratch, reused by each of its pieces
    const auto& scratch = team.team_scratch(0);
    int* const start    = static_cast<int*>(
        scratch.get_shmem_aligned(sizeof(int) * start_count(per_team), scratch_alignment<int>));
    char* const pool =
        static_cast<char*>(scratch.get_shmem_aligned(pool_bytes(per_team), pool_alignment));
    if constexpr (fills) {  // one piece per team
      const TeamPiece piece = piece_of(team.league_rank());
      const PieceScratch s  = walk_piece(team, piece, start, pool);
      store_marks(team, piece.a0, piece.items, piece.m, s.shift, s.staged(0), s.marks);
    } else {
      move_pieces(team, team.league_rank(), team.league_size(), start, pool);
    }
  }

  /// Piece t.
  KOKKOS_INLINE_FUNCTION TeamPiece piece_of(int t) const {
    return piece_between(points(t), points(t + 1), total,
                         static_cast<std::int64_t>(offsets.extent(0)), per_team);
  }

  /// Stages a piece's intervals in scratch and walks its merge path, writing the marks of its
  /// items; returns the piece's arrays, ready to read (after a team barrier).
  ///
  /// Staged intervals: the owner of the piece's first item (b0 - 1; interval 0 again when
  /// b0 = 0, so that no owner is ever negative) at index 0, then the m that start in the piece,
  /// then WALK end markers (start = items) that stop every walk at the piece's end. start:
  /// offsets - a0, clamped to [INT_MIN, items] (valid offsets never are), the local index of
  /// each staged interval's first item: the walk compares it with the local item indices in
  /// [0, items); per-item operations stage it with the interval.
  KOKKOS_INLINE_FUNCTION PieceScratch walk_piece(const Member& team, const TeamPiece& piece,
                                                 int* start_memory, char* pool) const {
    const int a0 = piece.a0, item_count = piece.items, b0 = piece.b0, m = piece.m;
    const ScratchArray<int> start(start_memory, start_count(m));
    const ScratchArray<Staged> staged(reinterpret_cast<Staged*>(pool), start_count(m));
    const ScratchArray<Mark> marks(reinterpret_cast<Mark*>(pool + staged_bytes(m)), item_count + W);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, start_count(m)), [&](int q) {
      if (q > m) {
        start(q)  = item_count;
        staged(q) = Staged{};
        return;
      }
      const int k = q > 0 ? b0 + q - 1 : (b0 > 0 ? b0 - 1 : 0);
      const int first =
          static_cast<int>(clamp(static_cast<std::int64_t>(offsets(k)) - a0, INT_MIN, item_count));
      start(q) = first;
      if constexpr (fills) {
        staged(q) = op.stage(k);
      } else {
        staged(q) = op.stage(k, first);
      }
    });
    // fill operations: marks(shift + q) is local item q, with shift chosen so that marks
    // W * j to W * j + W - 1 are one 16-byte aligned vector of the output
    int shift = 0;
    if constexpr (fills) {
      if (vector_stores) {
        shift = static_cast<int>(reinterpret_cast<std::uintptr_t>(op.out.data() + a0) /
                                 sizeof(Mark) % W);
      }
    }
    team.team_barrier();
    const int threads = team.team_size();
    // m == 0: the whole piece lies in one interval, staged(0); no marks to write
    if (m > 0) {
      const int* next = start.data() + 1;  // the piece's offsets, m of them, and the end markers
      const int size  = item_count + m;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](int tid) {
        for (int diag = tid * WALK; diag < size; diag += threads * WALK) {
          // items among the first diag entries of the piece (an offset before an equal item)
          int lo = diag - m > 0 ? diag - m : 0, hi = diag < item_count ? diag : item_count;
          while (lo < hi) {
            const int mid         = static_cast<int>(static_cast<unsigned>(lo + hi) >> 1);
            const bool item_first = mid < next[diag - 1 - mid];
            lo                    = item_first ? mid + 1 : lo;
            hi                    = item_first ? hi : mid;
          }
          // take the item if it comes before the next offset, else pass the offset; past the
          // piece's end the end markers (bound = item_count) pass without marking
          int qi = lo, qo = diag - lo, bound = next[qo];
          Mark* mark_at = marks.data() + shift + qi;
          Mark mark     = mark_of(staged, qo);
          TESSERA_UNROLL_FULL
          for (int e = 0; e < WALK; ++e) {
            if (qi < bound) {
              *mark_at++ = mark;
              ++qi;
            } else {
              ++qo;
              bound = next[qo];
              mark  = mark_of(staged, qo);
            }
          }
        }
      });
      team.team_barrier();
    }
    return {staged, marks, shift};
  }

  /// The walk's mark for staged interval qo (past m: an end marker, never written).
  KOKKOS_INLINE_FUNCTION static Mark mark_of(const ScratchArray<Staged>& staged, int qo) {
    if constexpr (fills) {
      return staged(qo);
    } else {
      (void)staged;
      return qo;
    }
  }

  /// Fill operations: out(a0 + q) = marks(shift + q) (staged(0) when m == 0) for q in
  /// [0, item_count): with vector_stores whole vectors of W items with one 16-byte store each
  /// and the partial ones at the ends item by item, else item by item.
  KOKKOS_INLINE_FUNCTION void store_marks(const Member& team, int a0, int item_count, int m,
                                          int shift, const Mark& only,
                                          const ScratchArray<Mark>& marks) const {
    if (W == 1 || !vector_stores) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, item_count),
                           [&](int q) { op.out(a0 + q) = m > 0 ? marks(q) : only; });
      return;
    }
    if constexpr (W > 1) {
      const int slots   = shift + item_count;  // marks [shift, slots) hold the team's items
      const int vectors = (slots + W - 1) / W;
      Mark* const first = op.out.data() + a0;  // output item of marks(shift)
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, vectors), [&](int v) {
        const int p0 = v * W;
        if (p0 >= shift && p0 + W <= slots) {
          Bytes16 x;
          if (m > 0) {
            x = reinterpret_cast<const Bytes16*>(marks.data())[v];
          } else {
            Mark copies[W];
            TESSERA_UNROLL_FULL
            for (int e = 0; e < W; ++e)
              copies[e] = only;
            std::memcpy(&x, copies, sizeof(x));
          }
          store_bytes16(reinterpret_cast<Bytes16*>(first + (p0 - shift)), x);
        } else {
          for (int p = p0; p < p0 + W; ++p) {
            if (p >= shift && p < slots) first[p - shift] = m > 0 ? marks(p) : only;
          }
        }
      });
    }
  }

  /// Per-item operations, pieces p0, p0 + stride, p0 + 2 stride, ... below piece_count (with
  /// stride the number of teams, the teams resident at one time work on neighbouring pieces,
  /// so that the output sectors two pieces share are completed close in time), in rounds of V items
  /// per thread strided by the team size (a warp touches consecutive items). Each round loads V
  /// values and computes their targets (their staged data read from scratch), then stores the
  /// values the previous round loaded: the loads of a piece's last round stay in flight while the
  /// team stages and walks its next piece. The rounds alternate between two sets of registers, so
  /// that no value is copied (a copy would wait for its load). The idle lanes of a round compute
  /// with the piece's last item and do not store, so that every lane runs the same instructions.
  KOKKOS_INLINE_FUNCTION void move_pieces(const Member& team, int p0, int stride, int* start,
                                          char* pool) const {
    using Value       = typename ItemOp::value_type;
    using Target      = typename ItemOp::target_type;
    const int tid     = team.team_rank();
    const int threads = team.team_size();
    int p = p0 - stride, base = 0;
    TeamPiece piece{0, 0, 0, 0};
    PieceScratch s{};
    // the next round (the team's next piece staged and walked first where needed); false
    // after the last
    const auto next_round = [&]() {
      base += threads * V;
      while (base >= piece.items) {  // also pieces without items (runs of empty intervals)
        if (p >= piece_count - stride) return false;  // (p + stride would be past the last)
        p += stride;
        if (p > p0) team.team_barrier();  // the previous piece's loads have read its scratch
        piece = piece_of(p);
        s     = walk_piece(team, piece, start, pool);
        base  = 0;
      }
      return true;
    };
    // the current round's values and targets; returns its items less the round's base (lane j
    // holds an item if j * threads + tid is below it)
    const auto load = [&](Value(&value)[V], Target(&target)[V]) {
      TESSERA_UNROLL_FULL
      for (int j = 0; j < V; ++j) {
        const int qj     = base + j * threads + tid;
        const int q      = qj < piece.items ? qj : piece.items - 1;
        const Staged& st = s.staged(piece.m > 0 ? s.marks(q) : 0);
        value[j]         = op.load(q, st);
        target[j]        = op.target(q, st);
      }
      return piece.items - base;
    };
    const auto store = [&](const Value(&value)[V], const Target(&target)[V], int items) {
      TESSERA_UNROLL_FULL
      for (int j = 0; j < V; ++j) {
        if (j * threads + tid < items) op.store(target[j], value[j]);
      }
    };
    Value a[V], b[V];
    Target at[V], bt[V];
    int b_items = 0;
    while (next_round()) {
      const int a_items = load(a, at);
      store(b, bt, b_items);
      if (!next_round()) {
        store(a, at, a_items);
        return;
      }
      b_items = load(b, bt);
      store(a, at, a_items);
    }
    store(b, bt, b_items);
  }
};

/// Whether a fill operation's output takes 16-byte stores of several items: contiguous, its
/// items aligned to their size (then every W-th item is 16-byte aligned).
template <class ItemOp>
bool vector_stores(const ItemOp& op) {
  if constexpr (ItemOp::fills) {
    using T = typename ItemOp::staged_type;
    return items_per_vector<T>() > 1 && op.out.span_is_contiguous() &&
           reinterpret_cast<std::uintptr_t>(op.out.data()) % sizeof(T) == 0;
  } else {
    (void)op;
    return false;
  }
}

/// The kernel of an item operation.
template <class ExecSpace, class Offsets, class ItemOp>
using LoadBalancedKernel = LoadBalancedItems<ExecSpace, Offsets, MergePoints<ExecSpace>, ItemOp>;

/// The tile of IntervalOptions::tile for this kernel, checked before any kernel runs: positive,
/// at most 2^24 entries per piece, a team size the backend runs the kernel with, team scratch
/// that fits a GPU's shared memory, and at most 2^31 - 2 pieces for the total + n merge-path
/// entries. Zero fields take the tuning policy's interval_tile, whose entries per piece halve on
/// GPUs until the team scratch fits (large staged types). The team size is checked against the
/// backend by interval_tile, which needs the kernel's operation.
template <class ItemOp, class ExecSpace, class Offsets>
IntervalTile interval_tile_shape(const ExecSpace&, const char* fn, std::int64_t total,
                                 const Offsets& offsets, const IntervalTile& requested) {
  const std::size_t n = offsets.extent(0);
  require_total(fn, total, n);
  using Kernel                = LoadBalancedKernel<ExecSpace, Offsets, ItemOp>;
  using Policy                = Kokkos::TeamPolicy<ExecSpace>;
  const IntervalTile fallback = Tuning<ExecSpace>::interval_tile(ItemOp::fills);
  IntervalTile tile{requested.team_size != 0 ? requested.team_size : fallback.team_size,
                    requested.items_per_team};
  const auto scratch_max = is_device_space<ExecSpace>  // host backends allocate any scratch
                               ? static_cast<std::size_t>(Policy::scratch_size_max(0))
                               : ~std::size_t{0};
  if (tile.items_per_team == 0) {
    tile.items_per_team = fallback.items_per_team;
    while (tile.items_per_team > 1 && Kernel::scratch_size(tile.items_per_team) > scratch_max) {
      tile.items_per_team /= 2;
    }
  }
  require(tile.team_size > 0, fn, "options.tile.team_size must be positive (got ", tile.team_size,
          ")");
  require(tile.items_per_team > 0 && tile.items_per_team <= (1 << 24), fn,
          "options.tile.items_per_team is outside [1, 2^24] (got ", tile.items_per_team, ")");
  const std::int64_t entries = total + static_cast<std::int64_t>(n);  // both below 2^31
  const std::int64_t pieces =
      merge_path_pieces(total, static_cast<std::int64_t>(n), tile.items_per_team);
  require(pieces < INT_MAX, fn,  // pieces + 1 points
          concat("options.tile.items_per_team = ", tile.items_per_team, " makes ", pieces,
                 " pieces for ", entries, " merge-path entries (expected at most 2^31 - 2)"));
  const std::size_t scratch = Kernel::scratch_size(tile.items_per_team);
  require(scratch <= scratch_max, fn, "options.tile.items_per_team = ", tile.items_per_team,
          " needs ", scratch, " bytes of team scratch (expected at most ", scratch_max, ")");
  return tile;
}

/// interval_tile_shape for the kernel of `op`, then the team size checked against what the backend
/// runs that kernel with (asked of the backend only for teams above
/// Tuning::interval_safe_team_size: on CUDA an occupancy calculation, 0.1 ms a call).
template <class ExecSpace, class Offsets, class ItemOp>
IntervalTile interval_tile(const ExecSpace& space, const char* fn, std::int64_t total,
                           const Offsets& offsets, const ItemOp& op,
                           const IntervalTile& requested) {
  const IntervalTile tile = interval_tile_shape<ItemOp>(space, fn, total, offsets, requested);
  if (tile.team_size > Tuning<ExecSpace>::interval_safe_team_size) {
    using Kernel = LoadBalancedKernel<ExecSpace, Offsets, ItemOp>;
    Kokkos::TeamPolicy<ExecSpace> policy(space, 1, 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_size(tile.items_per_team)));
    const Kernel kernel{offsets, decltype(Kernel::points)(), op, total, tile.items_per_team, 0,
                        false};
    const int team_max = policy.team_size_max(kernel, Kokkos::ParallelForTag());
    require(tile.team_size <= team_max, fn,
            "options.tile.team_size is too large for this backend and tile (got ", tile.team_size,
            ", expected at most ", team_max, ")");
  }
  return tile;
}

/// Runs op (an item operation, see above) over every item i in [0, total) and its owner k
/// (offsets[k] <= i < offsets[k + 1]), in the pieces of tile.items_per_team merge-path entries
/// that `points` cut (merge_path_pieces(total, n, tile.items_per_team) + 1 of them, as
/// MergePathPartition writes them).
template <class ExecSpace, class Offsets, class ItemOp>
void for_each_item_of_pieces(const ExecSpace& space, const std::string& label, std::int64_t total,
                             const Offsets& offsets, const ItemOp& op, const IntervalTile& tile,
                             const MergePoints<ExecSpace>& points) {
  if (total == 0) return;
  const std::int64_t n     = static_cast<std::int64_t>(offsets.extent(0));
  const std::int64_t count = merge_path_pieces(total, n, tile.items_per_team);
  using Kernel             = LoadBalancedKernel<ExecSpace, Offsets, ItemOp>;
  const std::int64_t teams = (count + Kernel::pieces_per_team - 1) / Kernel::pieces_per_team;
  Kokkos::TeamPolicy<ExecSpace> policy(space, static_cast<int>(teams), tile.team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_size(tile.items_per_team)));
  Kokkos::parallel_for(label, policy,
                       Kernel{offsets, points, op, total, tile.items_per_team,
                              static_cast<int>(count), vector_stores(op)});
}

/// Runs op (an item operation, see above) over every item i in [0, total) and its owner k
/// (offsets[k] <= i < offsets[k + 1]) with the tile of interval_tile, the merge-path points in
/// `points` (at least merge_path_pieces(total, n, tile.items_per_team) + 1 of them). The caller
/// validates total (at most 2^31 - 1) and, unless told not to, the offsets.
template <class ExecSpace, class Offsets, class ItemOp, class Points>
void partition_and_run(const ExecSpace& space, const std::string& label, std::int64_t total,
                       const Offsets& offsets, const ItemOp& op, const IntervalTile& tile,
                       const Points& points) {
  if (total == 0) return;
  const std::int64_t n     = static_cast<std::int64_t>(offsets.extent(0));
  const std::int64_t per   = tile.items_per_team;
  const std::int64_t count = merge_path_pieces(total, n, per);
  Kokkos::parallel_for("tessera::interval::merge_path_partition",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(count + 1)),
                       MergePathPartition<Offsets, Points>{offsets, points, total, n, per});
  for_each_item_of_pieces(space, label, total, offsets, op, tile, points);
}

/// partition_and_run with the merge-path points in `workspace`'s memory (nullptr: 8 bytes per
/// piece allocated for the call); a size query (measures_only) records them and runs nothing.
template <class ExecSpace, class Offsets, class ItemOp>
void for_each_item_with_owner(const ExecSpace& space, const std::string& label, std::int64_t total,
                              const Offsets& offsets, const ItemOp& op, const IntervalTile& tile,
                              Workspace* workspace) {
  const std::int64_t n     = static_cast<std::int64_t>(offsets.extent(0));
  const std::int64_t count = total == 0 ? 0 : merge_path_pieces(total, n, tile.items_per_team);
  CallMemory<typename ExecSpace::memory_space> memory;
  const std::size_t points = memory.template add<MergePoint>(count + 1);
  if (!memory.take(workspace, "tessera::interval::merge_path")) return;
  partition_and_run(space, label, total, offsets, op, tile,
                    memory.template view<MergePoint>(points, count + 1));
}

}  // namespace Impl
}  // namespace tessera
