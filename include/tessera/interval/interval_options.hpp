// Options of the interval primitives and the checks they share.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/tiling.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

/// The order in which interval_move and interval_scatter take their intervals.
enum class IntervalOrder {
  /// by_destination on GPU backends for outputs over 32 MiB with at least 2^17 intervals of at
  /// least 8 items on average (where it pays: perf/README.md, "Tuning constants"), given
  /// otherwise.
  automatic,
  /// In index order: interval k's items after interval k - 1's.
  given,
  /// Grouped by the 1 MiB region of the output that each interval's destination starts in and,
  /// for intervals of at most 128 items on average, sorted by output window within chunks of
  /// up to 8192 intervals (unstable counting sorts: two kernels that read the offsets and
  /// starts twice and write 16 bytes per interval, a third that reads and writes those once;
  /// 32 bytes per interval of workspace, 64 for 64-bit starts). Intervals whose destinations
  /// are neighbours then write the 32-byte sectors they share at about the same time (a GPU
  /// with ECC memory reads a sector back from memory when it leaves the L2 cache partly
  /// written), and each team writes a narrow stretch of the output: short intervals with random
  /// destinations move markedly faster (perf/README.md).
  by_destination,
};

/// Options of the interval primitives.
struct IntervalOptions {
  /// Validate the offsets before running (one pass over them and a fence): offsets[0] = 0,
  /// non-decreasing, offsets[n - 1] <= total; for the moves also every source and destination
  /// range. Off, the call reads the intervals once, and arguments that break these rules give
  /// unspecified results (never an access outside the Views).
  bool check = true;
  /// interval_move and interval_scatter: also verify that no two intervals write the same
  /// output item (sorts the n destination starts and ends: O(n log n) work, 2n temporary
  /// integers and a fence). Off (the default), overlapping destinations are the caller's
  /// responsibility: which interval's item lands there is unspecified.
  bool check_overlap = false;
  /// Threads per team and merge-path entries per piece (zero: the backend's default, on GPUs
  /// 256 x 2048 for the moves and 128 x 2304 for interval_expand and load_balancing_search,
  /// 1 x 4096 on host backends). Any positive shape gives the same
  /// results; the team size must be one the backend runs (1 on Serial) and the team's scratch
  /// (about 12 bytes per entry for int data) must fit, else the call throws before any kernel
  /// runs.
  IntervalTile tile = {};
  /// interval_move and interval_scatter: the order in which the kernel takes the intervals
  /// (any order gives the same output for disjoint destinations; with overlapping ones, which
  /// interval's item lands on a shared output item is unspecified either way).
  IntervalOrder order = IntervalOrder::automatic;
};

namespace Impl {

/// The first k where the offsets break the rules of IntervalOptions::check.
template <class Offsets>
struct FirstBadOffset {
  Offsets offsets;
  std::int64_t total;
  KOKKOS_INLINE_FUNCTION void operator()(int k, int& first) const {
    const auto v = static_cast<std::int64_t>(offsets(k));
    const bool ok =
        (k == 0 ? v == 0 : v >= static_cast<std::int64_t>(offsets(k - 1))) && v <= total;
    if (!ok && k < first) first = k;
  }
};

/// Host checks of total and the number of intervals n: both fit the kernels' int indices, and
/// items need an interval.
inline void require_total(const char* fn, std::int64_t total, std::size_t n) {
  require_int_extent(fn, "offsets", n);
  if (total < 0 || total > std::numeric_limits<int>::max()) {
    throw std::length_error(concat("tessera::", fn, ": total ", total,
                                   " is outside the supported range [0, ",
                                   std::numeric_limits<int>::max(), "]"));
  }
  require(n > 0 || total == 0, fn, "offsets is empty but total = ", total,
          ": no interval owns the items");
}

/// With options.check, the offsets follow the rules of IntervalOptions::check. The caller has
/// validated total and n (require_total, run by interval_tile before any kernel).
template <class ExecSpace, class Offsets>
void check_offsets(const ExecSpace& space, const char* fn, std::int64_t total,
                   const Offsets& offsets, const IntervalOptions& options) {
  static_assert(Kokkos::is_view<Offsets>::value && Offsets::rank == 1 &&
                    std::is_integral<typename Offsets::non_const_value_type>::value,
                "tessera: offsets must be a rank-1 Kokkos View of integers");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Offsets::memory_space>::accessible,
                "tessera: offsets must be accessible from the execution space");
  const std::size_t n = offsets.extent(0);
  if (!options.check || n == 0) return;
  int first = std::numeric_limits<int>::max();  // the Min reducer's identity: none found
  Kokkos::parallel_reduce("tessera::interval::check_offsets",
                          Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(n)),
                          FirstBadOffset<Offsets>{offsets, total}, Kokkos::Min<int>(first));
  if (first >= static_cast<int>(n)) return;
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), offsets);
  const auto v    = static_cast<std::int64_t>(host(first));
  if (first == 0 && v != 0) {
    throw std::invalid_argument(
        concat("tessera::", fn, ": offsets[0] must be 0 (got ", v, ", expected 0)"));
  }
  if (v > total) {
    throw std::invalid_argument(concat("tessera::", fn, ": offsets[", first,
                                       "] exceeds total (got ", v, ", expected at most ", total,
                                       ")"));
  }
  throw std::invalid_argument(
      concat("tessera::", fn, ": offsets must be non-decreasing (got offsets[", first - 1,
             "] = ", +host(first - 1), " > offsets[", first, "] = ", v, ")"));
}

}  // namespace Impl
}  // namespace tessera
