// Tiling and tuning: the one place where Tessera decides how work is cut into team-sized pieces.
//
// Every constant chosen by measuring lives in a tuning policy (CUB's policy_hub is the model):
// HostTuning for host backends (Serial, OpenMP, Threads), GpuTuning for the portable kernels on
// GPU backends (CUDA, HIP, SYCL), CudaTuning for Tessera's hand-written CUDA kernels on top.
// Tuning<ExecSpace> selects a call's policy; kernels read their constants from it, never from
// literals. A new backend is a new struct and one TuningPolicy specialisation. A measured
// constant's comment names the benchmark and machine behind it; its row in perf/README.md
// ("Tuning constants") has the figures, docs/perf-history.md the full record.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera {

/// Shape of one team's work in the interval primitives (load-balancing search and its users):
/// a team stages and walks items_per_team entries (output items plus intervals) of the merge
/// path at a time, its scratch sized for them (a piece; the moves give each team
/// TuningBase::interval_pieces_per_team(false) consecutive pieces). A zero field means the
/// backend's default (IntervalOptions::tile).
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

/// A fused matrix sequence's tiles (fusion/impl/matrix_tile_kernel.hpp): threads per team and
/// owned lines per tile.
struct FusionTileShape {
  int threads, lines;
};

/// The kinds of a fused matrix sequence's tile groups, which take different numbers of elements
/// per vector lane (Tuning::fusion_tile_elements): groups of maps only (no nested sums), groups
/// with sums that write no matrix, and groups with sums that also write matrices.
enum class FusionTileKind { maps, sums, updates };

/// A fused vector group's launch shape (fusion/impl/vector_kernel.hpp): threads per team and
/// elements per thread.
struct FusionVectorShape {
  int team_size, per_thread;
};

/// Constants every backend shares: they shape the kernels' data layout rather than their fit to
/// one device (measured on GPUs, where they matter most).
struct TuningBase {
  // ---- Genred (tiled_reduce.hpp, schedule.hpp)
  /// Registers a thread's outer rows and accumulators may take (4, 2 or 1 rows); ArgKMin, H100.
  static constexpr int genred_row_registers = 64;
  /// Most outer rows per thread, dense and block-sparse; bench_genred_block_sparse, H100.
  static constexpr int genred_dense_rows_per_thread  = 4;
  static constexpr int genred_sparse_rows_per_thread = 2;
  /// Level-0 scratch for the portable kernel's per-thread buffers (staged tile + 2 teams per SM).
  static constexpr std::size_t genred_thread_scratch0_budget = 24 * 1024;
  /// The 2D scheme: least staged tiles, most chunks, least last-wave fill, chunk rounding (rows);
  /// bench_genred_gpu, H100.
  static constexpr int genred_2d_min_tiles         = 4;
  static constexpr int genred_2d_max_chunks        = 4;
  static constexpr double genred_2d_min_wave_fill  = 0.9;
  static constexpr int genred_2d_chunk_granularity = 32;

  // ---- distributed Genred (mpi/impl/distributed_genred.hpp)
  /// Schedule::automatic all-gathers the reduced rows up to this many bytes, runs the ring above.
  static constexpr std::size_t mpi_all_gather_bytes = std::size_t{4} << 20;
  /// A ring step's fence longer than this found its kernels running: the wait was hidden.
  static constexpr double mpi_busy_fence_seconds = 50e-6;

  // ---- interval primitives (load_balance.hpp)
  /// Items per thread and round of per-item operations; bench_interval, H100.
  static constexpr int interval_items_per_thread = 4;
  /// Merge-path pieces a team takes in turn (moves: 4, pipelined; fills: 1); bench_interval, H100.
  static constexpr int interval_pieces_per_team(bool fills) { return fills ? 1 : 4; }
  /// Merged entries each thread walks, odd to spread a warp over the banks; bench_interval, H100.
  static constexpr int interval_walk_length = 9;

  // ---- moves regrouped by destination (destination_order.hpp)
  /// Output regions of 2^20 bytes, at most 512 (6 KiB of team scratch); bench_interval, H100.
  static constexpr int destination_region_bytes_log2 = 20;
  static constexpr int max_destination_regions       = 512;
  /// Intervals per chunk of the counting and placing kernels (CUDA's scratch limit), chunks/team.
  static constexpr int interval_regroup_tile         = 2048;
  static constexpr int interval_regroup_count_chunks = 4;
  /// The window sort: intervals per thread in registers, counting-sort bins; bench_interval, H100.
  static constexpr int interval_regroup_sort_per_thread = 8;
  static constexpr int interval_regroup_sort_bins       = 2048;
  /// Intervals of at most this mean count are also sorted by output window; bench_interval, H100.
  static constexpr std::int64_t regroup_sort_max_mean_count = 128;
  /// IntervalOrder::automatic regroups outputs over 32 MiB, of 2^17+ intervals of mean 8+; H100.
  static constexpr std::size_t regroup_min_output_bytes = std::size_t{1} << 25;
  static constexpr std::int64_t regroup_min_intervals   = std::int64_t{1} << 17;
  static constexpr std::int64_t regroup_min_mean_count  = 8;

  // ---- Pairwise engine (pairwise/impl/)
  /// PCF team tile of G x G pairs, G = this / sizeof(breakpoint): one 128-byte bank wavefront.
  static constexpr int pairwise_pcf_tile_bytes = 128;
  /// Point vectors: a team tile is this many rows x this many columns.
  static constexpr int pairwise_point_tile = 32;
  /// The budget's share for the two output buffers; the free memory's share of a default budget.
  static constexpr double pairwise_output_share      = 0.5;
  static constexpr double pairwise_free_memory_share = 0.8;
  /// The budget when the caller gives none and the backend cannot tell its free memory.
  static constexpr std::size_t pairwise_default_budget_bytes = std::size_t{1} << 30;
  /// Blocks the output is split into by default (masspcf's 32 per GPU).
  static constexpr std::size_t pairwise_splits_hint = 32;
  /// Host copies into pairwise outputs of at least this many bytes use non-temporal stores.
  static constexpr std::size_t pairwise_stream_copy_min_bytes = 4096;

  // ---- Fused sequences (fusion/)
  /// The plan model's charge for a kernel launch, in bytes moved (latency x bandwidth).
  static constexpr double fusion_launch_bytes = 1 << 16;
  /// Held lines fill more than this share of a team's capacity, else are read twice; ATAX, H100.
  static constexpr double fusion_held_min_share = 0.5;
};

/// Host backends: a team is one thread; staged tiles sized to stay in L1.
struct HostTuning : TuningBase {
  /// Genred's portable kernel: one outer row per team, 256 staged inner rows.
  static constexpr TileShape genred_tile(int /*scalar_bytes*/) { return {1, 256}; }
  /// Genred's host kernel: cache-line lanes, 4-row blocks, 16 KiB tiles (L1 is 32 KiB or more).
  static constexpr int genred_host_lane_bytes = 64;
  static constexpr int genred_host_rows       = 4;
  static constexpr int genred_host_tile_bytes = 16 * 1024;
  /// Least D of the blocked pairs: radial kernels, then distances and dot products;
  /// bench_genred_host, CI VM.
  static constexpr int genred_host_blocked_min_dim             = 8;
  static constexpr int genred_host_blocked_min_dim_point_pairs = 32;
  /// Least D of Distance::automatic's expanded distance (0: never); bench_genred_host, CI VM.
  static constexpr int genred_automatic_expanded_min_dim = 0;
  /// Interval primitives: one thread with 4096 merge-path entries per piece.
  static constexpr IntervalTile interval_tile(bool /*fills*/) { return {1, 4096}; }
  /// Threads per team that every interval kernel runs with.
  static constexpr int interval_safe_team_size = 1;
  /// Threads of the window sort's teams.
  static constexpr int interval_regroup_sort_team_size = 1;
  /// Whether IntervalOrder::automatic ever regroups moves by destination.
  static constexpr bool regroups_moves = false;
  /// Pairwise engine: one-thread teams, no occupancy floor on the block side.
  static constexpr int pairwise_team_size          = 1;
  static constexpr double pairwise_occupancy_share = 0;
  /// No staging: host backends write blocks straight from the block buffer.
  static constexpr std::size_t pairwise_staging_bytes = 0;
  /// Fused kernels take a cache line of consecutive elements at a time; bench_fusion, CI VM.
  static constexpr int fusion_lane_bytes = 64;
  /// Groups touching this many bytes write with streaming stores (the LLC); bench_fusion, CI VM.
  static constexpr std::size_t fusion_streaming_min_bytes = std::size_t{32} << 20;
  /// Fused vector sequences: one thread per team, 16 KiB of consecutive elements per thread.
  static constexpr int fusion_vector_team_size        = 1;
  static constexpr int fusion_vector_bytes_per_thread = 16384;
  static constexpr int fusion_vector_unroll           = 1;  // unused: one-thread teams sweep lanes
  static constexpr FusionVectorShape fusion_vector_reduction_shape = {1, 4096};
  static constexpr int fusion_max_team_size                        = 1;
  /// The launch shapes the tuner times (with every valid plan).
  static constexpr int fusion_tune_team_sizes[] = {1};
  static constexpr int fusion_tune_per_thread[] = {1024, 4096, 16384};
  /// Fused matrix sequences: a one-thread team sweeps 4 lines at a time; one team per core when
  /// the group has partial sums.
  static constexpr int fusion_matrix_team_size      = 1;
  static constexpr int fusion_matrix_rows           = 4;
  static constexpr int fusion_matrix_lines          = 4;  // the default shape: lines
  static constexpr double fusion_partial_team_share = 1;
  /// The kernel adding the teams' partial sums: one thread per team, no vector lanes.
  static constexpr int fusion_partials_team_size     = 1;
  static constexpr int fusion_partials_vector_length = 1;
  /// The plan model's charge for re-reading a matrix (its lines still in cache); bench_fusion.
  static constexpr double fusion_reread_share          = 0;
  static constexpr int fusion_tune_matrix_team_sizes[] = {1};
  static constexpr int fusion_tune_matrix_rows[]       = {1, 4, 16, 256};
  /// Matrix tiles: one thread, no vector lanes, bands of 1 KiB of swept elements, one line a time.
  static constexpr int fusion_tile_vector_length = 1;
  static constexpr int fusion_tile_unroll        = 1;
  static constexpr int fusion_tile_elements(FusionTileKind, int value_bytes) {
    return 1024 / value_bytes;
  }
  /// The tiles of a default (automatic) launch shape, unused: the default shape sweeps lines.
  static constexpr FusionTileShape fusion_tile_shape            = {1, 256};
  static constexpr FusionTileShape fusion_tile_shape_maps       = {1, 256};
  static constexpr FusionTileShape fusion_tile_shape_owned_sums = {1, 256};
  /// Held lines: only lines of 9 to 16 floats, in a one-thread team's registers; bench_fusion.
  static constexpr int fusion_held_team_size      = 1;
  static constexpr int fusion_held_bytes          = 64;
  static constexpr int fusion_held_league_threads = 1;
};

/// GPU backends, portable kernels.
struct GpuTuning : TuningBase {
  /// Genred's portable tile: 256 x 256 (KeOps' 1D scheme), 128 x 128 for double (registers).
  static constexpr TileShape genred_tile(int scalar_bytes) {
    return scalar_bytes > 4 ? TileShape{128, 128} : TileShape{256, 256};
  }
  /// Least D of Distance::automatic's expanded distance (0: never); bench_genred_gpu, H100.
  static constexpr int genred_automatic_expanded_min_dim = 0;
  /// Interval tiles: 256 x 2048 for moves, 128 x 2304 for fills; bench_interval, H100 and H200.
  static constexpr IntervalTile interval_tile(bool fills) {
    return fills ? IntervalTile{128, 2304} : IntervalTile{256, 2048};
  }
  /// 256: 255 registers per thread, the most a thread gets, fit 256 threads.
  static constexpr int interval_safe_team_size = 256;
  /// 1024: one team per multiprocessor at up to 64 registers per thread; bench_interval, H100.
  static constexpr int interval_regroup_sort_team_size = 1024;
  static constexpr bool regroups_moves                 = true;
  /// Pairwise engine: threads per team; occupancy floor min_block_side = floor(sqrt(concurrency x
  /// this)), a block at least this share of the device's threads (masspcf: 1024 of 2048).
  static constexpr int pairwise_team_size          = 128;
  static constexpr double pairwise_occupancy_share = 0.5;
  /// Each of the two pinned staging buffers of downloads to host outputs (pinning costs a copy).
  static constexpr std::size_t pairwise_staging_bytes = std::size_t{8} << 20;
  /// Fused sequences: one element at a time per thread; no streaming stores (no RFO on GPUs).
  static constexpr int fusion_lane_bytes                  = 0;
  static constexpr std::size_t fusion_streaming_min_bytes = ~std::size_t{0};
  /// Fused vector sequences: 256 threads of 16 bytes, 4 elements' loads in flight; H100.
  static constexpr int fusion_vector_team_size        = 256;
  static constexpr int fusion_vector_bytes_per_thread = 16;
  static constexpr int fusion_vector_unroll           = 4;
  /// Vector groups with a reduction: 512 threads of 32 elements; bench_fusion AXPYDOT, H100.
  static constexpr FusionVectorShape fusion_vector_reduction_shape = {512, 32};
  static constexpr int fusion_max_team_size                        = 1024;
  /// A launch costs about as much as moving 8 MiB (a few microseconds at a few TB/s).
  static constexpr double fusion_launch_bytes   = 1 << 23;
  static constexpr int fusion_tune_team_sizes[] = {128, 256, 512};
  static constexpr int fusion_tune_per_thread[] = {1, 2, 4, 8, 16, 32, 64};
  /// Fused matrix sequences: tiles by default; line sweeps of 128 threads x 16 lines, half the
  /// device's teams when the group has partial sums.
  static constexpr int fusion_matrix_team_size      = 128;
  static constexpr int fusion_matrix_rows           = 16;
  static constexpr int fusion_matrix_lines          = 128;  // the default shape: tiles
  static constexpr double fusion_partial_team_share = 0.5;
  /// The kernel adding the teams' partial sums: 8 threads of 32 vector lanes; bench_fusion, H100.
  static constexpr int fusion_partials_team_size     = 8;
  static constexpr int fusion_partials_vector_length = 32;
  /// The plan model's charge for re-reading a matrix in a later sweep; bench_fusion ATAX, H100.
  static constexpr double fusion_reread_share          = 1.25;
  static constexpr int fusion_tune_matrix_team_sizes[] = {128, 256, 512};
  static constexpr int fusion_tune_matrix_rows[]       = {4, 16, 32, 64, 128, 256};
  /// Matrix tiles: warps of 32 lanes, 2 lines a warp, elements per lane by the group's kind
  /// (maps 32 bytes, sums 64 bytes, updates 16 elements); bench_fusion, H100.
  static constexpr int fusion_tile_vector_length = 32;
  static constexpr int fusion_tile_unroll        = 2;
  static constexpr int fusion_tile_elements(FusionTileKind kind, int value_bytes) {
    return kind == FusionTileKind::maps   ? 32 / value_bytes
           : kind == FusionTileKind::sums ? 64 / value_bytes
                                          : 16;
  }
  /// Default tiles: sums along the swept axis, maps only, sums along the owned axis; H100.
  static constexpr FusionTileShape fusion_tile_shape            = {256, 64};
  static constexpr FusionTileShape fusion_tile_shape_maps       = {512, 64};
  static constexpr FusionTileShape fusion_tile_shape_owned_sums = {128, 512};
  /// Held lines: 512 threads of 128 bytes, a team per 2048 device threads; bench_fusion ATAX, H100.
  static constexpr int fusion_held_team_size      = 512;
  static constexpr int fusion_held_bytes          = 128;
  static constexpr int fusion_held_league_threads = 2048;
};

/// Tessera's hand-written CUDA kernels (genred/impl/cuda/), on top of the portable GPU policy.
struct CudaTuning : GpuTuning {
  /// Kernels whose outer rows and accumulators take at most this many registers are "light".
  static constexpr int genred_light_row_registers = 32;
  /// Threads per block: light dense kernels 256, the others 128; bench_genred_gpu, H100.
  static constexpr int genred_light_block = 256;
  static constexpr int genred_block       = 128;
  /// __launch_bounds__ threads per SM: light 1280 (51 registers), others 512; H100.
  static constexpr int genred_light_resident_threads = 1280;
  static constexpr int genred_resident_threads       = 512;
  /// Staged tile: inner rows as the block's outer rows, within this many bytes, at least this many.
  static constexpr int genred_tile_bytes    = 16 * 1024;
  static constexpr int genred_min_tile_rows = 32;
  /// The tensor-core radial kernel: warps per block, 16-row m-tiles per warp, resident threads;
  /// bench_genred_gpu, H100.
  static constexpr int matrix_radial_warps            = 16;
  static constexpr int matrix_radial_m_tiles          = 2;
  static constexpr int matrix_radial_resident_threads = 512;
  /// The streamed tensor-core kernels (impl/cuda/matrix_tiles.hpp): block tile, k per stage,
  /// stages in flight, warps along each side.
  static constexpr int matrix_tile_rows    = 128;
  static constexpr int matrix_tile_cols    = 128;
  static constexpr int matrix_tile_k       = 64;
  static constexpr int matrix_tile_stages  = 3;
  static constexpr int matrix_tile_warps_m = 2;
  static constexpr int matrix_tile_warps_n = 2;
  /// Blocks per multiprocessor the streamed kernels' registers must allow.
  static constexpr int matrix_tile_min_blocks = 2;
  /// Distance::automatic takes Distance::matrix from this D; bench_genred_dims, H100.
  static constexpr int genred_automatic_matrix_min_dim = 9;
  /// The Hopper engine (sm_90a): block tile, stages, k-step of split operands; bench_genred_dims,
  /// H100.
  static constexpr int matrix_sm90_tile_rows = 128;
  static constexpr int matrix_sm90_tile_cols = 256;
  static constexpr int matrix_sm90_stages    = 4;
  static constexpr int matrix_sm90_split_k   = 32;
  /// The Hopper engine's narrow tiles (radial sums up to max_dim, selections): columns, stages,
  /// blocks per multiprocessor; bench_genred_dims, H100.
  static constexpr int matrix_sm90_narrow_cols    = 128;
  static constexpr int matrix_sm90_narrow_stages  = 3;
  static constexpr int matrix_sm90_narrow_max_dim = 256;
  static constexpr int matrix_sm90_narrow_blocks  = 2;
  /// Stages of the narrow tiles whose outer rows stay in shared memory; bench_genred_dims, H200.
  static constexpr int matrix_sm90_resident_stages = 4;
  /// The widest weights the streamed radial sum keeps per row in registers.
  static constexpr int matrix_sum_max_weights = 4;
  /// The wide-weights kernel (impl/cuda/matrix_wide_sum_cuda.hpp): least weights, columns per
  /// block, columns per warp.
  static constexpr int matrix_wide_sum_min_weights   = 16;
  static constexpr int matrix_wide_sum_block_columns = 64;
  static constexpr int matrix_wide_sum_warp_columns  = 32;
  /// Hopper stages of the wide-weights kernel (4 do not fit beside the weights); H100.
  static constexpr int matrix_wide_sum_sm90_stages = 3;
  /// The largest k the tensor-core selections take.
  static constexpr int matrix_select_max_k = 16;
  /// Candidates a selection list keeps beyond k, for its certificate; bench_genred_dims, H200.
  static constexpr int matrix_select_margin = 8;
  /// Selections run on the tensor cores above this D; bench_genred_dims, H200.
  static constexpr int matrix_select_min_dim = 8;
  /// Scores a selection thread queues between merges, at most; narrow-tile stages; H200.
  static constexpr int matrix_select_queue  = 16;
  static constexpr int matrix_select_stages = 4;
  /// Stages of the selections' wide tiles (beyond narrow_max_dim); bench_genred_dims, H200.
  static constexpr int matrix_select_wide_stages = 4;
  /// A block's warps merge their queues when one is over 1 / this full; bench_genred_dims, H200.
  static constexpr int matrix_select_sync_share = 2;
  /// Warps of the mma.sync selections along each side: one across (a quad shares a row's list).
  static constexpr int matrix_select_warps_m = 4;
  static constexpr int matrix_select_warps_n = 1;
};

/// The tuning policy of an execution space: TuningPolicy<ExecSpace>::type.
template <class ExecSpace>
struct TuningPolicy {
  using type = std::conditional_t<is_device_space<ExecSpace>, GpuTuning, HostTuning>;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct TuningPolicy<Kokkos::Cuda> {
  using type = CudaTuning;
};
#endif

/// The tuning policy of calls on ExecSpace.
template <class ExecSpace>
using Tuning = typename TuningPolicy<ExecSpace>::type;

/// Consecutive elements of type T that a thread of a fused kernel takes at once: a cache line's
/// worth on host backends (Tuning::fusion_lane_bytes), one on GPUs.
template <class ExecSpace, class T>
inline constexpr int fusion_lanes = Tuning<ExecSpace>::fusion_lane_bytes > int(sizeof(T))
                                        ? Tuning<ExecSpace>::fusion_lane_bytes / int(sizeof(T))
                                        : 1;

}  // namespace Impl
}  // namespace tessera
