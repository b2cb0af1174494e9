// The moves' intervals regrouped by the output region they write (IntervalOrder::by_destination).
//
// Why: a move with destinations scattered over a large output writes, at each end of each
// interval, part of a 32-byte sector whose other part belongs to another interval. A GPU whose
// memory is protected by ECC (an H100) reads such a sector from memory and merges it when it
// leaves the L2 cache partly written; taken in index order, the interval that shares the sector
// comes at a random later time, long after the sector left the cache. Taken grouped by output
// region (1 MiB regions), the neighbouring intervals complete each sector while it is in the
// cache (on an H100 the moves of 2^27 items in intervals of 32 items then read 0.87 GB from
// memory instead of 1.06 and write 0.55 GB instead of 0.65; perf/README.md).
//
// How: an unstable counting sort of the n intervals by region, in two team kernels. (1) Each
// team counts the intervals and items of its tile per region in scratch and adds its counts to
// the global ones. (2) Each team counts again (a shared-memory atomic addition ranks each
// interval among the team's in its region), finds where its intervals of each region go (the
// region's start, an exclusive scan of the global counts, plus what the teams before it
// reserved there with an atomic addition), lays its intervals out in scratch region by region
// and writes them, gather and scatter starts and first output items, with consecutive threads
// on consecutive positions. Interval and item counts travel packed in one 64-bit integer
// (intervals in the high half, items in the low half, both below 2^31 for valid offsets), so
// that one atomic addition reserves both: the regrouped offsets are the exclusive scan of the
// counts in the new order.
#pragma once

#include <tessera/core/tiling.hpp>
#include <tessera/interval/impl/check_moves.hpp>
#include <tessera/interval/impl/load_balance.hpp>
#include <tessera/interval/interval_options.hpp>
#include <tessera/interval/interval_workspace.hpp>
#include <tessera/interval/sequence.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Output regions: region r holds the output items [r << shift, (r + 1) << shift).
struct DestinationRegions {
  int shift = 0;
  int count = 1;
};

/// Bytes of an output region (2^20: 1 MiB), unless the output needs more than
/// max_destination_regions of them. On an H100 the regrouped moves of 2^27 items in intervals
/// of 32 items took the same time with regions of 64 KiB to 1 MiB, and 12% (4 MiB) to 42%
/// (16 MiB) longer with larger ones (perf/README.md).
inline constexpr int destination_region_bytes_log2 = 20;
/// Most regions (their 64-bit counters are in every team's scratch: 4 KiB).
inline constexpr int max_destination_regions = 512;

/// IntervalOrder::automatic regroups the moves of GPU backends whose output spans more than
/// 2^25 bytes (32 MiB: smaller outputs stay in an H100's 50 MB L2 cache, partly written
/// sectors included), that have at least 2^17 intervals (fewer cost less in memory reads than
/// the regrouping's two extra kernels) and at least 8 items per interval on average (shorter
/// intervals gain nothing on an H100: the regrouping reads and writes about 30 bytes per
/// interval; perf/README.md).
inline constexpr std::size_t regroup_min_output_bytes = std::size_t{1} << 25;
inline constexpr std::int64_t regroup_min_intervals   = std::int64_t{1} << 17;
inline constexpr std::int64_t regroup_min_mean_count  = 8;

/// Whether a move of total items in n intervals into output_bytes of output takes its
/// intervals by destination.
template <class ExecSpace>
bool takes_by_destination(IntervalOrder order, std::int64_t total, std::int64_t n,
                          std::size_t output_bytes) {
  if (order == IntervalOrder::automatic) {
    return is_device_space<ExecSpace> && output_bytes > regroup_min_output_bytes &&
           n >= regroup_min_intervals && total >= regroup_min_mean_count * n;
  }
  return order == IntervalOrder::by_destination;
}

/// The regions of an output of `extent` items of `item_bytes` bytes each.
inline DestinationRegions destination_regions(std::size_t extent, std::size_t item_bytes) {
  int shift = 0;
  while ((item_bytes << (shift + 1)) <= (std::size_t{1} << destination_region_bytes_log2))
    ++shift;
  const auto regions = [&](int s) {  // ceil(extent / 2^s)
    return (extent >> s) + ((extent & ((std::size_t{1} << s) - 1)) != 0 ? 1 : 0);
  };
  while (regions(shift) > static_cast<std::size_t>(max_destination_regions))
    ++shift;
  const std::size_t count = regions(shift);
  return {shift, count > 0 ? static_cast<int>(count) : 1};
}

/// The regrouped intervals of a move, the memory of their counting sort and its regions.
template <class ExecSpace, class G, class S>
struct RegroupedMoves {
  template <class T>
  using Array =
      Kokkos::View<T*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using gather_type  = G;
  using scatter_type = S;
  /// offsets, gather and scatter starts in the new order
  Array<int> offsets;
  Array<G> gather;
  Array<S> scatter;
  /// per region, the packed interval and item counts (pass 1), and the packed counts that the
  /// teams of pass 3 have reserved
  Array<std::uint64_t> region_counts, reserved;
  /// both: the counters zeroed before pass (1)
  Array<std::uint64_t> counters;
  DestinationRegions regions;

  /// 64-bit words of memory for n intervals and `regions` regions.
  static std::int64_t words(std::int64_t n, const DestinationRegions& regions) {
    return 2 * regions.count + words_of<int>(n) + words_of<G>(n) + words_of<S>(n);
  }

  /// The arrays for n intervals in `memory` (at least words(n, regions) of them).
  RegroupedMoves(std::uint64_t* memory, int n, const DestinationRegions& r)
      : offsets(reinterpret_cast<int*>(memory + 2 * r.count), n),
        gather(reinterpret_cast<G*>(memory + 2 * r.count + words_of<int>(n)), n),
        scatter(reinterpret_cast<S*>(memory + 2 * r.count + words_of<int>(n) + words_of<G>(n)), n),
        region_counts(memory, r.count),
        reserved(memory + r.count, r.count),
        counters(memory, 2 * r.count),
        regions(r) {}

 private:
  template <class T>
  static std::int64_t words_of(std::int64_t n) {
    return (n * static_cast<std::int64_t>(sizeof(T)) + 7) / 8;
  }
};

/// Team kernel of the counting sort's passes (1) (place = false) and (2) (place = true): team t
/// takes the intervals [t * tile, (t + 1) * tile), each thread up to max_per_thread of them
/// strided by the team size, and counts them per region in scratch (a shared-memory atomic
/// addition gives each interval its rank in its region among the team's). Pass (1) adds the
/// team's counts to region_counts. Pass (2) finds where its intervals go: each region's first
/// position and item (the exclusive scan of region_counts, which every team computes) plus what
/// the teams before it reserved there (an atomic addition to `reserved`); it then lays its
/// intervals out in scratch region by region and writes them with consecutive threads on
/// consecutive positions, so that the stores are coalesced. Invalid offsets (IntervalOptions::
/// check off) give unspecified positions, never an access outside the arrays.
template <class ExecSpace, class Offsets, class Gather, class Scatter, class Regrouped, bool place>
struct RegroupByRegion {
  using Member                                = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using G                                     = typename Regrouped::gather_type;
  using S                                     = typename Regrouped::scatter_type;
  static constexpr int threads                = safe_interval_team_size<ExecSpace>();
  static constexpr int max_per_thread         = interval_regroup_tile / threads;
  static constexpr std::uint64_t one_interval = std::uint64_t{1} << 32;
  /// A record that no interval wrote (its position is past every array).
  static constexpr std::uint64_t no_record = ~std::uint64_t{0};

  Offsets offsets;
  Gather gather;
  Scatter scatter;
  std::int64_t total;
  int n;
  /// intervals per team, at most interval_regroup_tile
  int tile;
  Regrouped regrouped;

  /// Bytes of team scratch: a counter per region; for pass (2) also each region's first slot
  /// and the tile's records (position, gather and scatter starts), each array 8-byte aligned.
  static std::size_t scratch_size(const DestinationRegions& r, int tile) {
    const auto regions = static_cast<std::size_t>(r.count),
               entries = static_cast<std::size_t>(tile);
    std::size_t bytes  = sizeof(std::uint64_t) * regions + 8;
    if constexpr (place) {
      bytes += sizeof(int) * regions + (sizeof(std::uint64_t) + sizeof(G) + sizeof(S)) * entries +
               (sizeof(int) + sizeof(std::uint64_t)) * static_cast<std::size_t>(threads) + 6 * 8;
    }
    return bytes;
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

  template <class T>
  KOKKOS_INLINE_FUNCTION static T* scratch_array(const Member& team, int count) {
    return static_cast<T*>(team.team_scratch(0).get_shmem_aligned(sizeof(T) * count, 8));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int regions = regrouped.regions.count;
    auto* const bins  = scratch_array<std::uint64_t>(team, regions);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, regions), [&](int r) { bins[r] = 0; });
    team.team_barrier();
    const int tid     = team.team_rank();
    const int k0      = team.league_rank() * tile;  // below n <= INT_MAX
    const int entries = n - k0 < tile ? n - k0 : tile;
    // the tile's counts and regions first (independent loads), then their ranks
    int region[max_per_thread];
    std::uint64_t rank[max_per_thread];
    // (idle lanes read the last interval, without branches, so that every load is issued
    // before the first is used; their rank stays 0)
    TESSERA_UNROLL_FULL
    for (int j = 0; j < max_per_thread; ++j) {
      const int e              = j * threads + tid;
      const int k              = e < entries ? k0 + e : n - 1;
      const std::int64_t count = clamp(interval_count(offsets, total, k), 0, total);
      region[j]                = region_of(k, count);
      rank[j]                  = e < entries ? one_interval | static_cast<std::uint64_t>(count) : 0;
    }
    TESSERA_UNROLL_FULL
    for (int j = 0; j < max_per_thread; ++j) {
      if (rank[j] != 0) {
        if constexpr (place) {
          rank[j] = Kokkos::atomic_fetch_add(&bins[region[j]], rank[j]);
        } else {
          Kokkos::atomic_add(&bins[region[j]], rank[j]);
        }
      }
    }
    team.team_barrier();
    if constexpr (!place) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, regions), [&](int r) {
        if (bins[r] != 0) Kokkos::atomic_add(&regrouped.region_counts(r), bins[r]);
      });
    } else {
      place_tile(team, bins, region, rank, k0, entries);
    }
  }

  /// Pass (2): first_slot[r] = the team's intervals in the regions before r (where its
  /// records of region r start in scratch), and bins[r] = where its intervals of region r start
  /// in the regrouped arrays (packed position and item): region r's start (the exclusive scan
  /// of region_counts) plus what the teams before it reserved there. Each thread takes a run of
  /// regions; a log-depth scan over the threads' sums (in scratch) gives the runs' starts.
  KOKKOS_INLINE_FUNCTION void reserve_regions(const Member& team, std::uint64_t* bins,
                                              int* first_slot) const {
    const int regions = regrouped.regions.count;
    const int tid = team.team_rank(), size = team.team_size();
    auto* const slot_sums  = scratch_array<int>(team, size);
    auto* const count_sums = scratch_array<std::uint64_t>(team, size);
    const int run          = (regions + size - 1) / size;
    const int r0           = tid * run < regions ? tid * run : regions;
    const int r1           = r0 + run < regions ? r0 + run : regions;
    int slots              = 0;
    std::uint64_t counts   = 0;
    for (int r = r0; r < r1; ++r) {
      slots += static_cast<int>(bins[r] >> 32);
      counts += regrouped.region_counts(r);
    }
    slot_sums[tid]  = slots;
    count_sums[tid] = counts;
    team.team_barrier();
    for (int d = 1; d < size; d *= 2) {  // inclusive scan of the threads' sums
      const int s           = tid >= d ? slot_sums[tid - d] : 0;
      const std::uint64_t c = tid >= d ? count_sums[tid - d] : 0;
      team.team_barrier();
      slot_sums[tid] += s;
      count_sums[tid] += c;
      team.team_barrier();
    }
    slots  = tid > 0 ? slot_sums[tid - 1] : 0;
    counts = tid > 0 ? count_sums[tid - 1] : 0;
    for (int r = r0; r < r1; ++r) {
      first_slot[r]         = slots;
      const std::uint64_t b = bins[r];
      slots += static_cast<int>(b >> 32);
      if (b != 0) bins[r] = counts + Kokkos::atomic_fetch_add(&regrouped.reserved(r), b);
      counts += regrouped.region_counts(r);
    }
  }

  /// Pass (2) after the counts: the team's intervals k0 + e, e < entries (thread tid has entry
  /// j * threads + tid in region[j], ranked rank[j] among the team's in its region), written to
  /// their positions.
  KOKKOS_INLINE_FUNCTION void place_tile(const Member& team, std::uint64_t* bins,
                                         const int (&region)[max_per_thread],
                                         const std::uint64_t (&rank)[max_per_thread], int k0,
                                         int entries) const {
    const int regions      = regrouped.regions.count;
    const int tid          = team.team_rank();
    auto* const first_slot = scratch_array<int>(team, regions);
    auto* const at         = scratch_array<std::uint64_t>(team, tile);
    auto* const gathers    = scratch_array<G>(team, tile);
    auto* const scatters   = scratch_array<S>(team, tile);
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, entries), [&](int e) { at[e] = no_record; });
    reserve_regions(team, bins, first_slot);
    team.team_barrier();
    TESSERA_UNROLL_FULL
    for (int j = 0; j < max_per_thread; ++j) {
      const int e    = j * threads + tid;
      const int k    = e < entries ? k0 + e : n - 1;
      const G g      = gather(k);
      const S d      = scatter(k);
      const int slot = first_slot[region[j]] + static_cast<int>(rank[j] >> 32);
      // slot < entries always, unless invalid offsets carried into the ranks
      if (e < entries && slot < entries) {
        at[slot]       = bins[region[j]] + rank[j];
        gathers[slot]  = g;
        scatters[slot] = d;
      }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, entries), [&](int slot) {
      const std::uint64_t pos = at[slot] >> 32;
      if (pos >= static_cast<std::uint64_t>(n)) return;  // only for invalid offsets
      regrouped.offsets(pos) = static_cast<int>(static_cast<std::uint32_t>(at[slot]) & 0x7fffffffu);
      regrouped.gather(pos)  = gathers[slot];
      regrouped.scatter(pos) = scatters[slot];
    });
  }
};

/// Fills `regrouped` with the n intervals (offsets, gather, scatter; total items) grouped by the
/// region of the output that they write: a fill and two kernels, no fence.
template <class ExecSpace, class Offsets, class Gather, class Scatter, class Regrouped>
void regroup_by_destination(const ExecSpace& space, std::int64_t total, const Offsets& offsets,
                            const Gather& gather, const Scatter& scatter,
                            const Regrouped& regrouped) {
  using Count  = RegroupByRegion<ExecSpace, Offsets, Gather, Scatter, Regrouped, false>;
  using Place  = RegroupByRegion<ExecSpace, Offsets, Gather, Scatter, Regrouped, true>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const int n  = static_cast<int>(offsets.extent(0));
  if (n == 0) return;
  int tile = interval_regroup_tile;  // halved until pass (2)'s scratch fits
  if constexpr (is_device_space<ExecSpace>) {
    const auto most = static_cast<std::size_t>(Policy::scratch_size_max(0));
    while (tile > Place::threads && Place::scratch_size(regrouped.regions, tile) > most)
      tile /= 2;
  }
  const int teams = static_cast<int>((static_cast<std::int64_t>(n) + tile - 1) / tile);
  Kokkos::deep_copy(space, regrouped.counters, std::uint64_t{0});
  Policy count_policy(space, teams, Count::threads);
  count_policy.set_scratch_size(0, Kokkos::PerTeam(Count::scratch_size(regrouped.regions, tile)));
  Kokkos::parallel_for("tessera::interval::count_by_destination", count_policy,
                       Count{offsets, gather, scatter, total, n, tile, regrouped});
  Policy place_policy(space, teams, Place::threads);
  place_policy.set_scratch_size(0, Kokkos::PerTeam(Place::scratch_size(regrouped.regions, tile)));
  Kokkos::parallel_for("tessera::interval::regroup_by_destination", place_policy,
                       Place{offsets, gather, scatter, total, n, tile, regrouped});
}

}  // namespace Impl
}  // namespace tessera
