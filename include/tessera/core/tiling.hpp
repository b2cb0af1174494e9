// Tile sizes: the one place where Tessera decides how work is cut into team-sized pieces.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {

/// Shape of one team's work in the interval primitives (load-balancing search and its users):
/// a team stages and walks items_per_team entries (output items plus intervals) of the merge
/// path at a time, its scratch sized for them (a piece; the moves give each team 4 consecutive
/// pieces). A zero field means the backend's default (IntervalOptions::tile).
struct IntervalTile {
  int team_size      = 0;  ///< threads per team
  int items_per_team = 0;  ///< output items + intervals per piece (a team's scratch holds one)
};

namespace Impl {

/// True for execution spaces whose memory the host cannot read (GPUs).
template <class ExecSpace>
inline constexpr bool is_device_space =
    !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;

/// Shape of one team's tile in the tiled map-reduce kernels.
struct TileShape {
  int team_size;  ///< threads per team = rows of the outer index per team
  int tile_j;     ///< rows of the reduced index staged in scratch memory at a time
};

/// Default tile shape. On GPUs a team of 256 threads owns 256 outer rows (one each) and stages
/// 256 inner rows at a time (the KeOps 1D scheme with K = 256; 128 for double to keep registers
/// and shared memory per block in check). On host backends a team is one thread and the staged
/// tile is sized to stay in L1.
template <class ExecSpace>
TileShape default_tile_shape(int scalar_bytes) {
  if constexpr (is_device_space<ExecSpace>) {
    const int k = scalar_bytes > 4 ? 128 : 256;
    return {k, k};
  } else {
    return {1, 256};
  }
}

/// Default interval tile: on GPUs 256 threads and 2048 entries for the moves, 128 threads and
/// 2304 entries (2 walks of 9 per thread) for the fills (interval_expand, load_balancing_search),
/// whose teams finish sooner (more resident teams overlap their phases); measured on an H100
/// and an H200 against 128 x 1024, 128 x 2048, 256 x 1024 and 512 x 2048 (perf/README.md). On
/// host backends one thread with 4096 entries.
template <class ExecSpace>
IntervalTile default_interval_tile(bool fills) {
  if constexpr (is_device_space<ExecSpace>) {
    return fills ? IntervalTile{128, 2304} : IntervalTile{256, 2048};
  } else {
    (void)fills;
    return {1, 4096};
  }
}

/// Threads per team that every interval kernel runs with, whatever its registers: 256 on GPUs
/// (255 registers per thread, the most a thread gets, fit 256 threads), 1 on host backends.
template <class ExecSpace>
constexpr int safe_interval_team_size() {
  return is_device_space<ExecSpace> ? 256 : 1;
}

/// Intervals per chunk of the kernels that regroup the moves' intervals by destination
/// (IntervalOrder::by_destination): 8 per thread of a GPU team, all of them for a host team.
/// The placing kernel takes one chunk per team (its scratch, 35 KB with 512 regions, fits
/// Kokkos' 40936-byte level-0 limit on CUDA), the counting kernel up to
/// interval_regroup_count_chunks (fewer teams add their counts to the same global counters).
inline constexpr int interval_regroup_tile         = 2048;
inline constexpr int interval_regroup_count_chunks = 4;
/// The kernel that sorts the regrouped intervals by output window within chunks: threads per
/// team (on GPUs 1024, one team per multiprocessor at up to 64 registers per thread; 1 on host
/// backends) and intervals each thread holds in registers, so that a GPU team sorts a chunk of
/// up to 8192 intervals (a host team 8), and the windows of its counting sort (32 bits of
/// scratch each). On an H100, moves of 2^27 items in intervals of 32 items took 548 us in chunks
/// of 8192 sorted intervals (a region's), 626 us in chunks of 4096 (perf/README.md).
template <class ExecSpace>
constexpr int interval_regroup_sort_team_size() {
  return is_device_space<ExecSpace> ? 1024 : 1;
}
inline constexpr int interval_regroup_sort_per_thread = 8;
inline constexpr int interval_regroup_sort_bins  = 2048;

/// Bytes of level-0 scratch (GPU shared memory) that per-thread buffers may use before they are
/// moved to level-1 scratch (device memory). Leaves room for the staged tile and for two
/// resident teams per multiprocessor.
inline constexpr std::size_t per_thread_scratch0_budget = 24 * 1024;

}  // namespace Impl
}  // namespace tessera
