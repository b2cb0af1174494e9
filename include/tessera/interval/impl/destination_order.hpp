// The moves' intervals regrouped by the output region they write (IntervalOrder::by_destination).
//
// Why: a move with destinations scattered over a large output writes, at each end of each
// interval, part of a 32-byte sector whose other part belongs to another interval. A GPU whose
// memory is protected by ECC reads such a sector from memory and merges it when it leaves the L2
// cache partly written; taken in index order, the interval that shares the sector comes at a
// random later time, long after the sector left the cache. Taken grouped by output region
// (TuningBase::destination_region_bytes_log2), the neighbouring intervals complete each sector
// while it is in the cache, and the moves read and write less memory.
//
// Within a region, the order matters too: with the intervals of each team's piece of the move
// in a narrow stretch of the output (sorted by output windows), the move kernel runs faster
// still. The measured traffic and times are in perf/README.md ("Tuning constants").
//
// How: an unstable counting sort of the n intervals by region, in two team kernels, then for
// short intervals (TuningBase::regroup_sort_max_mean_count) a sort by output window within chunks
// of intervals. (1) Each team counts the intervals and items of its tiles per region in scratch and
// adds its counts to the global ones; the last team to finish writes each region's start (the
// exclusive scan of the counts). (2) Each team counts again (a shared-memory atomic addition
// ranks each interval among the team's in its region), lays its intervals out in scratch region
// by region (a scan over the slots' counts gives their first items), reserves its positions and
// items in each region after the teams before it with one atomic addition and writes its
// intervals (first output item, count, gather and scatter starts: 16 bytes for 32-bit starts,
// one store each), with consecutive threads on consecutive positions. Global interval and item
// counts travel packed in one 64-bit integer (intervals in the high half, items in the low
// half, both below 2^31 for valid offsets), so that one atomic addition reserves both: the
// regrouped offsets are the exclusive scan of the counts in the new order. (3) Each team sorts a
// chunk of (2)'s order by output window (SortChunksByWindow) and writes the merge-path points of
// the move, which then needs no partition search; without (3), the merge-path partition of the
// move searches the regrouped offsets.
#pragma once

#include <tessera/core/impl/scratch_atomic.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/interval/impl/check_moves.hpp>
#include <tessera/interval/impl/load_balance.hpp>
#include <tessera/interval/interval_options.hpp>
#include <tessera/interval/sequence.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Output regions: region r holds the output items [r << shift, (r + 1) << shift).
struct DestinationRegions {
  int shift = 0;
  int count = 1;
};

/// Whether a move of total items in n intervals into output_bytes of output takes its
/// intervals by destination.
template <class ExecSpace>
bool takes_by_destination(IntervalOrder order, std::int64_t total, std::int64_t n,
                          std::size_t output_bytes) {
  if (order == IntervalOrder::automatic) {
    using P = Tuning<ExecSpace>;
    return P::regroups_moves && output_bytes > P::regroup_min_output_bytes &&
           n >= P::regroup_min_intervals && total >= P::regroup_min_mean_count * n;
  }
  return order == IntervalOrder::by_destination;
}

/// The regions of an output of `extent` items of `item_bytes` bytes each.
inline DestinationRegions destination_regions(std::size_t extent, std::size_t item_bytes) {
  int shift = 0;
  while ((item_bytes << (shift + 1)) <=
         (std::size_t{1} << TuningBase::destination_region_bytes_log2))
    ++shift;
  const auto regions = [&](int s) {  // ceil(extent / 2^s)
    return (extent >> s) + ((extent & ((std::size_t{1} << s) - 1)) != 0 ? 1 : 0);
  };
  while (regions(shift) > static_cast<std::size_t>(TuningBase::max_destination_regions))
    ++shift;
  const std::size_t count = regions(shift);
  return {shift, count > 0 ? static_cast<int>(count) : 1};
}

/// One regrouped interval: its first output item in the new order, its count, its gather and
/// scatter starts, 16-byte aligned (16 bytes for 32-bit starts, else 32) so that a kernel writes
/// a 32-bit interval with one aligned store and neighbouring intervals fill whole sectors.
template <class G, class S>
struct alignas(16) RegroupedInterval {
  int offset, count;
  G gather;
  S scatter;
};

static_assert(sizeof(RegroupedInterval<int, int>) == 16,
              "tessera: a regrouped interval of 32-bit starts takes one 16-byte store");

/// The bytes of a RegroupedInterval, padding included, as the placing kernel stores them (a
/// copy of the interval itself leaves its padding unwritten, and a partly written sector costs a
/// read from memory when it leaves the cache).
template <class G, class S>
struct alignas(16) RegroupedIntervalBytes {
  std::uint32_t words[sizeof(RegroupedInterval<G, S>) / 4];

  RegroupedIntervalBytes() = default;
  KOKKOS_INLINE_FUNCTION explicit RegroupedIntervalBytes(const RegroupedInterval<G, S>& r) {
    memcpy(words, &r, sizeof(words));
  }
  /// The field of type T at `byte` (its offsetof) alone, read as the aligned 4-byte words that
  /// hold it. (A load of the whole interval for some of its fields leaves registers that the
  /// compiler reuses while the load is in flight, which makes the thread wait for it.)
  template <class T>
  KOKKOS_INLINE_FUNCTION T field(std::size_t byte) const {
    constexpr std::size_t most = (sizeof(T) + 3) / 4 + 1;  // words a T can touch
    std::uint32_t held[most];
    const std::size_t first = byte / 4, count = (byte % 4 + sizeof(T) + 3) / 4;
    for (std::size_t w = 0; w < most; ++w)
      held[w] = w < count ? words[first + w] : 0;
    T v;
    memcpy(&v, reinterpret_cast<const char*>(held) + byte % 4, sizeof(v));
    return v;
  }
};

/// The regrouped intervals of a move, the memory of their counting sort and its regions.
template <class ExecSpace, class G, class S>
struct RegroupedMoves {
  using Record = RegroupedInterval<G, S>;
  template <class T>
  using Array =
      Kokkos::View<T*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  /// One field of the records, read as a strided array.
  template <class T>
  using Field       = Kokkos::View<const T*, Kokkos::LayoutStride, typename ExecSpace::memory_space,
                             Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using gather_type = G;
  using scatter_type = S;
  using Bytes        = RegroupedIntervalBytes<G, S>;
  /// the intervals grouped by region (pass (2)), then in the final order (pass (3))
  Array<Bytes> staged, records;
  /// the final intervals' offsets, gather and scatter starts (fields of records)
  Field<int> offsets;
  Field<G> gather;
  Field<S> scatter;
  /// per region, the packed interval and item counts (pass (1)), and the packed position and
  /// item where its next intervals go (its start, which the last team of pass (1) writes, plus
  /// what the teams of pass (2) have reserved: after pass (2), its end)
  Array<std::uint64_t> region_counts, reserved;
  /// the teams of pass (1) that have finished
  Array<std::uint64_t> teams_done;
  /// region_counts, reserved and teams_done: the counters zeroed before pass (1)
  Array<std::uint64_t> counters;
  DestinationRegions regions;

  /// 64-bit words of memory for n intervals and `regions` regions.
  static std::int64_t words(std::int64_t n, const DestinationRegions& regions) {
    return counter_words(regions) + 2 * n * record_words;
  }

  /// The arrays for n intervals in `memory` (at least words(n, regions) of them, aligned to
  /// sizeof(Record) bytes).
  RegroupedMoves(std::uint64_t* memory, int n, const DestinationRegions& r)
      : staged(reinterpret_cast<Bytes*>(memory + counter_words(r)), n),
        records(reinterpret_cast<Bytes*>(memory + counter_words(r) + n * record_words), n),
        offsets(field<int>(records.data(), offsetof(Record, offset), n)),
        gather(field<G>(records.data(), offsetof(Record, gather), n)),
        scatter(field<S>(records.data(), offsetof(Record, scatter), n)),
        region_counts(memory, r.count),
        reserved(memory + r.count, r.count),
        teams_done(memory + 2 * r.count, 1),
        counters(memory, 2 * r.count + 1),
        regions(r) {}

 private:
  static constexpr std::int64_t record_words = sizeof(Record) / sizeof(std::uint64_t);  // 2 or 4
  /// the counters, rounded up to whole records so that the records stay aligned
  static std::int64_t counter_words(const DestinationRegions& r) {
    return (2 * r.count + 1 + record_words - 1) / record_words * record_words;
  }
  template <class T>
  static Field<T> field(const Bytes* records, std::size_t byte_offset, int n) {
    return Field<T>(
        reinterpret_cast<const T*>(reinterpret_cast<const char*>(records) + byte_offset),
        Kokkos::LayoutStride(static_cast<std::size_t>(n), sizeof(Record) / sizeof(T)));
  }
};

/// count values of T in team scratch (the kernel's scratch_size counts them all).
template <class T, class Member>
KOKKOS_INLINE_FUNCTION T* regroup_scratch(const Member& team, std::size_t count) {
  void* const p = team.team_scratch(0).get_shmem_aligned(sizeof(T) * count, 8);
  if (p == nullptr) Kokkos::abort("tessera: regroup_by_destination's scratch_size is too small");
  return static_cast<T*>(p);
}

/// The thread's run [begin, end) of `count` entries, the team's threads taking consecutive runs
/// of equal length.
template <class Member>
KOKKOS_INLINE_FUNCTION void thread_run(const Member& team, int count, int& begin, int& end) {
  const int run = (count + team.team_size() - 1) / team.team_size();
  begin         = team.team_rank() * run < count ? team.team_rank() * run : count;
  end           = begin + run < count ? begin + run : count;
}

/// values[0..count) replaced by their exclusive scan, each thread taking a run of them.
template <class T, class Member>
KOKKOS_INLINE_FUNCTION void scan_in_place(const Member& team, T* values, int count) {
  int begin = 0, end = 0;
  thread_run(team, count, begin, end);
  T sum = 0;
  for (int i = begin; i < end; ++i)
    sum += values[i];
  sum = team.team_scan(sum);
  for (int i = begin; i < end; ++i) {
    const T v = values[i];
    values[i] = sum;
    sum += v;
  }
}

/// Team kernel of the counting sort's passes (1) (place = false) and (2) (place = true). A team
/// takes `chunks` consecutive chunks of `tile` intervals (pass (2): one), each thread up to
/// per_thread of a chunk strided by the team size, and counts them per region in scratch with
/// 32-bit shared-memory atomics (GPUs have no 64-bit shared-memory atomic addition: it would be
/// a compare-and-swap loop).
///
/// Pass (1) adds the team's counts to region_counts; the last team to finish (a ticket in
/// teams_done) writes the regions' starts, the exclusive scan of region_counts, to `reserved`.
/// Pass (2): the atomic that counts an interval in its region ranks it there among the team's;
/// a scan over the regions gives each region's first slot in the team's region-by-region
/// order, a scan over the slots' counts their first items, and one 64-bit global atomic
/// addition per region to `reserved` the team's first position and item there. Each slot's
/// region, gather and scatter starts go to scratch (its position and first item follow from its
/// region's bases, its count from the scan); consecutive threads then store consecutive slots as
/// 16-byte intervals (to `staged` when pass (3) follows, else to `records`), so that the stores
/// are coalesced. Invalid offsets (IntervalOptions::check
/// off) give unspecified positions, never an access outside the arrays.
template <class ExecSpace, class Offsets, class Gather, class Scatter, class Regrouped, bool place>
struct RegroupByRegion {
  using Member                    = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using G                         = typename Regrouped::gather_type;
  using S                         = typename Regrouped::scatter_type;
  static constexpr int threads    = Tuning<ExecSpace>::interval_safe_team_size;
  static constexpr int per_thread = Tuning<ExecSpace>::interval_regroup_tile / threads;

  Offsets offsets;
  Gather gather;
  Scatter scatter;
  std::int64_t total;
  int n;
  /// intervals per chunk, at most interval_regroup_tile, and chunks per team
  int tile, chunks;
  Regrouped regrouped;
  /// pass (2): whether pass (3) follows (the intervals go to `staged`, else to `records`)
  bool to_staged;

  /// Bytes of team scratch, each array 8-byte aligned (at most 7 bytes of padding each): two
  /// 4-byte values per region (pass (2): three) and a flag (pass (1)); for pass (2) per slot of
  /// the tile a 16-bit region, an item (one more: the scan's total), a gather and a scatter
  /// start.
  static std::size_t scratch_size(const DestinationRegions& r, int tile) {
    const auto regions = static_cast<std::size_t>(r.count);
    const auto slots   = static_cast<std::size_t>(tile);
    if constexpr (!place) {
      return 2 * (sizeof(std::uint32_t) * regions + 7) + sizeof(int) + 7;
    } else {
      return 3 * (sizeof(std::uint32_t) * regions + 7) + sizeof(std::uint16_t) * slots + 7 +
             sizeof(std::uint32_t) * (slots + 1) + 7 + sizeof(G) * slots + 7 + sizeof(S) * slots +
             7;
    }
  }

  /// Interval k's region: its destination start's (clamped to the regions), or for an empty
  /// interval, which writes nothing, a pseudo-random one (many empty intervals at one start
  /// would otherwise queue on one counter).
  KOKKOS_INLINE_FUNCTION int region_of(int k, std::int64_t count) const {
    const int regions    = regrouped.regions.count;
    const auto start     = static_cast<std::int64_t>(scatter(k));  // read in any case: no branch
    const std::int64_t r = start < 0 ? 0 : start >> regrouped.regions.shift;
    // empty intervals: a multiplicative hash of k scaled to the regions (no division)
    const auto spread =
        static_cast<int>((std::uint64_t{static_cast<std::uint32_t>(k) * 2654435761u} *
                          static_cast<std::uint64_t>(regions)) >>
                         32);
    return count == 0 ? spread : (r < regions ? static_cast<int>(r) : regions - 1);
  }

  /// Interval k's count, limited to [0, total] (invalid offsets give any value there).
  KOKKOS_INLINE_FUNCTION std::int64_t count_of(int k) const {
    return clamp(interval_count(offsets, total, k), 0, total);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int regions = regrouped.regions.count;
    // per region: the team's intervals, and pass (1)'s items
    auto* const intervals = regroup_scratch<std::uint32_t>(team, regions);
    auto* const items     = place ? nullptr : regroup_scratch<std::uint32_t>(team, regions);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, regions), [&](int r) {
      intervals[r] = 0;
      if (!place) items[r] = 0;
    });
    team.team_barrier();
    // per chunk: the counts and regions first (independent loads), then the atomics; pass (2)
    // keeps each interval's region and rank for its one chunk (key: region + rank * 2^16, both
    // below 2^16)
    int key[per_thread];
    std::uint32_t count[per_thread];
    int k0 = 0, entries = 0;
    for (int c = 0; c < chunks; ++c) {
      const std::int64_t first = (std::int64_t{team.league_rank()} * chunks + c) * tile;
      if (first >= n) break;  // (the last team's last chunks)
      k0      = static_cast<int>(first);
      entries = n - k0 < tile ? n - k0 : tile;
      // (idle lanes read the last interval, without branches, so that every load is issued
      // before the first is used)
      TESSERA_UNROLL_FULL
      for (int j = 0; j < per_thread; ++j) {
        const int e              = j * threads + team.team_rank();
        const int k              = e < entries ? k0 + e : n - 1;
        const std::int64_t items = count_of(k);
        key[j]                   = region_of(k, items);
        count[j]                 = static_cast<std::uint32_t>(items);
      }
      TESSERA_UNROLL_FULL
      for (int j = 0; j < per_thread; ++j) {
        if (j * threads + team.team_rank() < entries) {
          if constexpr (place) {
            key[j] += static_cast<int>(scratch_atomic_fetch_add(&intervals[key[j]], 1u)) << 16;
          } else {
            scratch_atomic_fetch_add(&intervals[key[j]], 1u);
            scratch_atomic_fetch_add(&items[key[j]], count[j]);
          }
        }
      }
    }
    team.team_barrier();
    if constexpr (!place) {
      add_counts(team, intervals, items);
    } else {
      place_tile(team, intervals, key, k0, entries);
    }
  }

  /// Pass (1) after the counts: the team's counts added to region_counts; the last team to
  /// finish writes the regions' starts to `reserved`.
  KOKKOS_INLINE_FUNCTION void add_counts(const Member& team, const std::uint32_t* intervals,
                                         const std::uint32_t* items) const {
    const int regions = regrouped.regions.count;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, regions), [&](int r) {
      if (intervals[r] != 0) {
        Kokkos::atomic_add(&regrouped.region_counts(r),
                           std::uint64_t{intervals[r]} << 32 | items[r]);
      }
    });
    // the ticket after the additions (the fence orders each thread's additions before it)
    Kokkos::memory_fence();
    team.team_barrier();
    auto* const last = regroup_scratch<int>(team, 1);
    if (team.team_rank() == 0) {
      const auto done = Kokkos::atomic_fetch_add(&regrouped.teams_done(0), std::uint64_t{1});
      *last           = done + 1 == static_cast<std::uint64_t>(team.league_size());
    }
    team.team_barrier();
    if (!*last) return;
    Kokkos::memory_fence();
    // the exclusive scan of region_counts (read with atomic additions of 0: from the
    // device-wide level where the other teams added, not from a cache of this multiprocessor)
    int r0 = 0, r1 = 0;
    thread_run(team, regions, r0, r1);
    std::uint64_t sum = 0;
    for (int r = r0; r < r1; ++r)
      sum += Kokkos::atomic_fetch_add(&regrouped.region_counts(r), std::uint64_t{0});
    sum = team.team_scan(sum);
    for (int r = r0; r < r1; ++r) {
      regrouped.reserved(r) = sum;
      sum += Kokkos::atomic_fetch_add(&regrouped.region_counts(r), std::uint64_t{0});
    }
  }

  /// Pass (2) after the ranks: the team's intervals k0 + e, e < entries (thread tid has entry
  /// j * threads + tid, its region and rank in key[j]), written to their positions. Slot s
  /// takes the team's s-th interval in region order.
  KOKKOS_INLINE_FUNCTION void place_tile(const Member& team, std::uint32_t* first_slot,
                                         const int (&key)[per_thread], int k0, int entries) const {
    const int regions          = regrouped.regions.count;
    const int tid              = team.team_rank();
    auto* const position_base  = regroup_scratch<std::uint32_t>(team, regions);
    auto* const item_base      = regroup_scratch<std::uint32_t>(team, regions);
    auto* const region_of_slot = regroup_scratch<std::uint16_t>(team, tile);
    auto* const item           = regroup_scratch<std::uint32_t>(team, tile + 1);
    auto* const gathers        = regroup_scratch<G>(team, tile);
    auto* const scatters       = regroup_scratch<S>(team, tile);
    // first_slot[r]: the team's intervals in the regions before r
    scan_in_place(team, first_slot, regions);
    team.team_barrier();
    const auto slot_of = [&](int j) { return first_slot[key[j] & 0xffff] + (key[j] >> 16); };
    // the slots' counts (read again: fewer registers held through the scans), then their
    // exclusive scan: each slot's first item in the tile
    TESSERA_UNROLL_FULL
    for (int j = 0; j < per_thread; ++j) {
      const int e = j * threads + tid;
      if (e < entries) item[slot_of(j)] = static_cast<std::uint32_t>(count_of(k0 + e));
    }
    if (tid == 0) item[entries] = 0;
    team.team_barrier();
    scan_in_place(team, item, entries + 1);
    team.team_barrier();
    // per region with intervals of the team (its slots [first, next)), one atomic addition
    // reserves their positions and items: position_base[r] + s and item_base[r] + item[s] are
    // then slot s's position and offset
    int r0 = 0, r1 = 0;
    thread_run(team, regions, r0, r1);
    for (int r = r0; r < r1; ++r) {
      const std::uint32_t first = first_slot[r];
      const std::uint32_t next =
          r + 1 < regions ? first_slot[r + 1] : static_cast<std::uint32_t>(entries);
      if (next == first) continue;
      const std::uint64_t b = Kokkos::atomic_fetch_add(
          &regrouped.reserved(r), std::uint64_t{next - first} << 32 | (item[next] - item[first]));
      position_base[r] = static_cast<std::uint32_t>(b >> 32) - first;
      item_base[r]     = static_cast<std::uint32_t>(b) - item[first];
    }
    team.team_barrier();
    TESSERA_UNROLL_FULL
    for (int j = 0; j < per_thread; ++j) {
      const int e = j * threads + tid;
      if (e < entries) {
        const int s       = slot_of(j);
        region_of_slot[s] = static_cast<std::uint16_t>(key[j] & 0xffff);
        gathers[s]        = gather(k0 + e);
        scatters[s]       = scatter(k0 + e);
      }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, entries), [&](int s) {
      const int region      = region_of_slot[s];
      const std::uint32_t p = position_base[region] + static_cast<std::uint32_t>(s);
      if (p >= static_cast<std::uint32_t>(n)) return;  // only for invalid offsets
      const std::uint32_t offset = (item_base[region] + item[s]) & 0x7fffffffu;
      const std::uint32_t count  = item[s + 1] - item[s];
      (to_staged ? regrouped.staged : regrouped.records)(p) = typename Regrouped::Bytes(
          {static_cast<int>(offset), static_cast<int>(count), gathers[s], scatters[s]});
    });
  }
};

/// Most intervals per chunk of pass (3) on ExecSpace: its team's threads times the intervals
/// each holds (8192 on GPUs).
template <class ExecSpace>
constexpr int regroup_sort_max_chunk() {
  return Tuning<ExecSpace>::interval_regroup_sort_team_size *
         Tuning<ExecSpace>::interval_regroup_sort_per_thread;
}

/// Intervals per chunk of pass (3): the regions' mean intervals rounded up to a power of two,
/// within [regroup_sort_max_chunk / 8, regroup_sort_max_chunk] (a chunk sorts well when it
/// holds a region's intervals; smaller chunks make more teams).
template <class ExecSpace>
int regroup_sort_chunk(const DestinationRegions& regions, std::int64_t n) {
  constexpr int most = regroup_sort_max_chunk<ExecSpace>();
  int chunk          = most >= 8 ? most / 8 : 1;
  while (chunk < most && std::int64_t{chunk} * regions.count < n)
    chunk *= 2;
  return chunk;
}

/// log2 of the output items per window of pass (3): windows such that a chunk's share of the
/// output (its intervals times the output items per interval of the regions) spans about
/// interval_regroup_sort_bins of them.
template <class ExecSpace>
int regroup_window_shift(const DestinationRegions& regions, std::int64_t n) {
  const std::int64_t output_items = std::int64_t{regions.count} << regions.shift;
  const std::int64_t chunk        = regroup_sort_chunk<ExecSpace>(regions, n);
  int shift                       = 0;
  while ((std::int64_t{Tuning<ExecSpace>::interval_regroup_sort_bins} << shift) * n <
         chunk * output_items)
    ++shift;
  return shift;
}

/// The first window and the window size (log2, at least min_shift) of pass (3)'s chunk of
/// positions [p0, p1): windows from the start of the region holding position p0 to the end of
/// the one holding p1 - 1, at most interval_regroup_sort_bins of them. ends(r) >> 32: region r's
/// end position (pass (2)'s `reserved`).
struct ChunkWindows {
  std::int64_t first;
  int shift;
};
template <class Ends>
KOKKOS_INLINE_FUNCTION ChunkWindows chunk_windows(const Ends& ends, const DestinationRegions& r,
                                                  int min_shift, int p0, int p1) {
  const auto region_at = [&](int p) {  // the regions that end at or before p
    int lo = 0, hi = r.count;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (static_cast<int>(ends(mid) >> 32) <= p) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  const std::int64_t begin = std::int64_t{region_at(p0)} << r.shift;
  const std::int64_t last  = ((std::int64_t{region_at(p1 - 1)} + 1) << r.shift) - 1;
  int shift                = min_shift;
  while ((last >> shift) - (begin >> shift) >= TuningBase::interval_regroup_sort_bins)
    ++shift;
  return {begin >> shift, shift};
}

/// Pass (3): each team takes a chunk of `chunk` (regroup_sort_chunk) consecutive intervals of
/// pass (2)'s order and sorts them by output window in place of the chunk: a counting sort over
/// the at most interval_regroup_sort_bins windows of the regions the chunk covers
/// (chunk_windows; empty intervals, which write nothing, spread over the bins). The chunk is read
/// once, with coalesced loads: each thread holds per_thread of its intervals (count, gather and
/// scatter starts) in registers. (a) Each interval counted in its bin (shared-memory atomics),
/// whose scan gives each bin's first slot; (b) each interval ranked in its bin (an atomic
/// addition to the bin's cursor): its slot in the chunk; (c) segment by segment of the slots,
/// the intervals whose slots fall in it laid out in scratch, then the segment's slots in order,
/// each thread taking consecutive ones: the slot's first item the chunk's first item plus a team
/// scan of the counts before it, the interval written with coalesced stores (a scattered 16-byte
/// store per interval leaves partly written sectors that the cache evicts before their other half
/// arrives), with the merge-path points of the move kernel that fall on its entries (diagonals
/// o + q to o + q + count for position q and first item o; pieces of per_team entries), which
/// replaces the merge-path search. The chunk keeps its items and positions, so the offsets stay
/// the exclusive scan of the counts. Invalid offsets (IntervalOptions::check off) give
/// unspecified positions and points, never an access outside the arrays.
template <class ExecSpace, class Regrouped, class Points>
struct SortChunksByWindow {
  using Member                    = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Record                    = typename Regrouped::Record;
  using Bytes                     = typename Regrouped::Bytes;
  using G                         = typename Regrouped::gather_type;
  using S                         = typename Regrouped::scatter_type;
  static constexpr int threads    = Tuning<ExecSpace>::interval_regroup_sort_team_size;
  static constexpr int per_thread = Tuning<ExecSpace>::interval_regroup_sort_per_thread;
  static constexpr int bins       = Tuning<ExecSpace>::interval_regroup_sort_bins;
  static constexpr int max_chunk  = regroup_sort_max_chunk<ExecSpace>();
  /// consecutive slots per thread in round (c): the most whose count, gather and scatter starts
  /// take at most 36 KiB for the team (3 for 32-bit starts on GPUs), within [1, per_thread]
  static constexpr int per_slot_thread = [] {
    const auto fit = static_cast<int>(std::size_t{36} * 1024 /
                                      ((sizeof(int) + sizeof(G) + sizeof(S)) * threads));
    return fit < 1 ? 1 : fit > per_thread ? per_thread : fit;
  }();
  /// slots laid out in scratch at a time (3072 for 32-bit starts on GPUs)
  static constexpr int segment = per_slot_thread * threads;
  /// where a segment's gather and scatter starts begin in the scratch buffer (its counts at 0),
  /// at multiples of 8 bytes
  static constexpr std::size_t gathers_at    = (sizeof(int) * segment + 7) / 8 * 8;
  static constexpr std::size_t scatters_at   = gathers_at + (sizeof(G) * segment + 7) / 8 * 8;
  static constexpr std::size_t segment_bytes = scatters_at + sizeof(S) * segment;
  static constexpr std::size_t cursor_bytes  = sizeof(std::uint32_t) * bins;
  /// scratch bytes of a segment's counts, gather and scatter starts, which first hold the bins'
  /// cursors (rounds (a) and (b))
  static constexpr std::size_t buffer_bytes =
      segment_bytes > cursor_bytes ? segment_bytes : cursor_bytes;

  Regrouped regrouped;
  Points points;
  int total, n;
  int chunk;  // at most max_chunk
  int window_shift;
  int per_team;
  int pieces;

  /// Scratch: the bins' counts (then cursors), then in the same memory a segment's counts,
  /// gather and scatter starts.
  static std::size_t scratch_size() { return buffer_bytes + 7; }

  /// Interval p's bin: its window's (clamped to the bins; valid offsets never need it), or for
  /// an empty interval, which writes nothing, p's (not all in one bin, whose counter would take
  /// all their atomic additions one after the other).
  KOKKOS_INLINE_FUNCTION int bin_of(int p, int count, const S& scatter,
                                    const ChunkWindows& windows) const {
    const auto start     = static_cast<std::int64_t>(scatter);
    const std::int64_t w = (start < 0 ? 0 : start >> windows.shift) - windows.first;
    return count == 0 ? p % bins : static_cast<int>(clamp(w, 0, bins - 1));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int p0         = team.league_rank() * chunk;
    const int m          = n - p0 < chunk ? n - p0 : chunk;  // the chunk's intervals
    const int t          = team.team_rank();
    char* const buffer   = regroup_scratch<char>(team, buffer_bytes);
    auto* const cursor   = reinterpret_cast<std::uint32_t*>(buffer);  // rounds (a) and (b)
    auto* const counts   = reinterpret_cast<int*>(buffer);            // round (c)
    auto* const gathers  = reinterpret_cast<G*>(buffer + gathers_at);
    auto* const scatters = reinterpret_cast<S*>(buffer + scatters_at);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, bins), [&](int b) { cursor[b] = 0; });
    const ChunkWindows windows =
        chunk_windows(regrouped.reserved, regrouped.regions, window_shift, p0, p0 + m);
    // the thread's intervals e = i * threads + t of the chunk (idle lanes read the last one:
    // every load is issued before the first is used) with, after (a), their bins, after (b),
    // their slots
    int count[per_thread], slot[per_thread];
    G gather[per_thread];
    S start[per_thread];
    TESSERA_UNROLL_FULL
    for (int i = 0; i < per_thread; ++i) {
      const int e        = i * threads + t;
      const Bytes record = regrouped.staged(p0 + (e < m ? e : m - 1));
      count[i]           = record.template field<int>(offsetof(Record, count));
      gather[i]          = record.template field<G>(offsetof(Record, gather));
      start[i]           = record.template field<S>(offsetof(Record, scatter));
    }
    team.team_barrier();
    // (a) the bins' counts
    TESSERA_UNROLL_FULL
    for (int i = 0; i < per_thread; ++i) {
      const int e = i * threads + t;
      slot[i]     = bin_of(p0 + e, count[i], start[i], windows);
      if (e < m) scratch_atomic_fetch_add(&cursor[slot[i]], 1u);
    }
    team.team_barrier();
    scan_in_place(team, cursor, bins);
    team.team_barrier();
    // (b) the slots
    TESSERA_UNROLL_FULL
    for (int i = 0; i < per_thread; ++i) {
      if (i * threads + t < m)
        slot[i] = static_cast<int>(scratch_atomic_fetch_add(&cursor[slot[i]], 1u));
    }
    team.team_barrier();  // the cursors' last use before their memory holds intervals
    // (c) per segment of slots [s0, s0 + segment): its intervals to scratch, then its slots in
    // order, per_slot_thread consecutive ones per thread; `first`: the chunk's first item, then
    // that of each segment's first slot
    std::uint32_t first = static_cast<std::uint32_t>(
        clamp(regrouped.staged(p0).template field<int>(offsetof(Record, offset)), 0, total));
    for (int s0 = 0; s0 < m; s0 += segment) {
      const int length = m - s0 < segment ? m - s0 : segment;
      TESSERA_UNROLL_FULL
      for (int i = 0; i < per_thread; ++i) {
        const auto s = static_cast<unsigned>(slot[i] - s0);
        if (i * threads + t < m && s < static_cast<unsigned>(length)) {
          counts[s]   = count[i];
          gathers[s]  = gather[i];
          scatters[s] = start[i];
        }
      }
      team.team_barrier();
      const int s1      = t * per_slot_thread;  // the thread's first slot in the segment
      std::uint32_t sum = 0;
      TESSERA_UNROLL_FULL
      for (int j = 0; j < per_slot_thread; ++j) {
        if (s1 + j < length) sum += static_cast<std::uint32_t>(counts[s1 + j]);
      }
      const std::uint32_t before  = team.team_scan(sum);
      std::uint32_t segment_total = before + sum;  // the last thread's: the segment's items
      team.team_broadcast(segment_total, team.team_size() - 1);
      std::uint32_t item = first + before;
      TESSERA_UNROLL_FULL
      for (int j = 0; j < per_slot_thread; ++j) {
        const int s = s1 + j;
        if (s < length) {
          const int offset = static_cast<int>(item & 0x7fffffffu);
          regrouped.records(p0 + s0 + s) =
              Bytes(Record{offset, counts[s], gathers[s], scatters[s]});
          write_points(p0 + s0 + s, offset, counts[s]);
          item += static_cast<std::uint32_t>(counts[s]);
        }
      }
      first += segment_total;
      team.team_barrier();  // the segment's scratch read before the next one's is written
    }
    if (p0 + m == n && t == 0) points(pieces) = MergePoint{total, n};
  }

  /// The merge-path points on the entries of the interval at position q with first item
  /// `offset` (diagonals d0 = offset + q to d0 + count): the cut before diagonal d is
  /// (offset, q) at its offset entry d = d0, and (d - q - 1, q + 1) before its items.
  KOKKOS_INLINE_FUNCTION void write_points(int q, int offset, int count) const {
    // (both below 2^31: d0 + count below 2^32)
    const std::uint32_t d0 = static_cast<std::uint32_t>(offset) + static_cast<std::uint32_t>(q);
    const std::uint32_t e  = static_cast<std::uint32_t>(per_team);
    const std::uint32_t j0 = d0 / e + (d0 % e != 0 ? 1 : 0);
    const std::uint32_t d1 = d0 + static_cast<std::uint32_t>(count);
    for (std::uint32_t j = j0, d = j0 * e; j < static_cast<std::uint32_t>(pieces) && d <= d1;
         ++j, d += e) {
      points(j) = d == d0
                      ? MergePoint{offset, q}
                      : MergePoint{static_cast<int>(d - static_cast<std::uint32_t>(q) - 1), q + 1};
    }
  }
};

/// Fills `regrouped` with the n intervals (offsets, gather, scatter; total items) grouped by the
/// region of the output that they write and, for intervals of at most
/// regroup_sort_max_mean_count items on average, sorted by output window within chunks, with
/// `points` (pieces + 1 of them) the merge-path points of a move over them in pieces of per_team
/// entries. Returns whether it sorted and wrote the points: a fill and two or three kernels, no
/// fence.
template <class ExecSpace, class Offsets, class Gather, class Scatter, class Regrouped,
          class Points>
bool regroup_by_destination(const ExecSpace& space, std::int64_t total, const Offsets& offsets,
                            const Gather& gather, const Scatter& scatter,
                            const Regrouped& regrouped, const Points& points, std::int64_t per_team,
                            std::int64_t pieces) {
  using Count = RegroupByRegion<ExecSpace, Offsets, Gather, Scatter, Regrouped, false>;
  using Place = RegroupByRegion<ExecSpace, Offsets, Gather, Scatter, Regrouped, true>;
  // light weight: the kernels' arguments travel with the launch (under 4 KiB); Kokkos would pass
  // these functors of more than 512 bytes through CUDA constant memory, and such a launch waits
  // on the host for the previous one to finish
  using Policy =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;
  const int n = static_cast<int>(offsets.extent(0));
  if (n == 0) return false;
  using P          = Tuning<ExecSpace>;
  const bool sorts = total <= P::regroup_sort_max_mean_count * n;
  int tile         = P::interval_regroup_tile;  // halved until pass (2)'s scratch fits
  if constexpr (is_device_space<ExecSpace>) {
    const auto most = static_cast<std::size_t>(Policy::scratch_size_max(0));
    while (tile > Place::threads && Place::scratch_size(regrouped.regions, tile) > most)
      tile /= 2;
  }
  const auto teams = [&](int chunks) {
    const std::int64_t per_team = static_cast<std::int64_t>(tile) * chunks;
    return static_cast<int>((static_cast<std::int64_t>(n) + per_team - 1) / per_team);
  };
  // pass (1): up to interval_regroup_count_chunks chunks per team (fewer teams add to the same
  // global counters), fewer where that would leave less than half the teams the device holds
  // at once
  const int resident = static_cast<int>(space.concurrency()) / Count::threads;
  int chunks         = P::interval_regroup_count_chunks;
  while (chunks > 1 && 2 * teams(chunks) < resident)
    chunks /= 2;
  Kokkos::deep_copy(space, regrouped.counters, std::uint64_t{0});
  Policy count_policy(space, teams(chunks), Count::threads);
  count_policy.set_scratch_size(0, Kokkos::PerTeam(Count::scratch_size(regrouped.regions, tile)));
  Kokkos::parallel_for("tessera::interval::count_by_destination", count_policy,
                       Count{offsets, gather, scatter, total, n, tile, chunks, regrouped, false});
  Policy place_policy(space, teams(1), Place::threads);
  place_policy.set_scratch_size(0, Kokkos::PerTeam(Place::scratch_size(regrouped.regions, tile)));
  Kokkos::parallel_for("tessera::interval::regroup_by_destination", place_policy,
                       Place{offsets, gather, scatter, total, n, tile, 1, regrouped, sorts});
  if (!sorts) return false;
  using Sort             = SortChunksByWindow<ExecSpace, Regrouped, Points>;
  const int chunk        = regroup_sort_chunk<ExecSpace>(regrouped.regions, n);
  const int window_shift = regroup_window_shift<ExecSpace>(regrouped.regions, n);
  // (one team per GPU multiprocessor: at most 64 registers per thread)
  Kokkos::TeamPolicy<ExecSpace, Kokkos::Experimental::WorkItemProperty::HintLightWeight_t,
                     Kokkos::LaunchBounds<Sort::threads, 1>>
      sort_policy(space, (n + chunk - 1) / chunk, Sort::threads);
  sort_policy.set_scratch_size(0, Kokkos::PerTeam(Sort::scratch_size()));
  Kokkos::parallel_for("tessera::interval::sort_by_window", sort_policy,
                       Sort{regrouped, points, static_cast<int>(total), n, chunk, window_shift,
                            static_cast<int>(per_team), static_cast<int>(pieces)});
  return true;
}

}  // namespace Impl
}  // namespace tessera
