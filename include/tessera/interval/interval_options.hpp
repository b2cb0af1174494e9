// Options of the interval primitives: the checks they run, their tile and the order of the moves.
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/core/workspace.hpp>

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
  /// Memory reused across calls (core/workspace.hpp): the merge-path partition, 8 bytes per
  /// piece of the tile's entries, and for moves regrouped by destination 32 bytes per interval
  /// (64 with 64-bit gather or scatter types) and at most 8 KiB of counters, in the execution
  /// space's memory. Without one (nullptr) a call allocates and frees its own, and on GPUs the
  /// free waits for the device; with one it allocates only when the workspace holds less, and an
  /// unchecked call returns without waiting. A size query (Workspace::size_query()) records
  /// these bytes after the host-side checks and runs nothing.
  Workspace* workspace = nullptr;
};

}  // namespace tessera
