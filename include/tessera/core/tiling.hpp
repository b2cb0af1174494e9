// Tiling and tuning: the one place where Tessera decides how work is cut into team-sized pieces.
//
// Every constant that was chosen by measuring lives in a tuning policy here, one per kind of
// backend (CUB's policy_hub is the model): HostTuning for host backends (Serial, OpenMP,
// Threads), GpuTuning for the portable kernels on GPU backends (CUDA, HIP, SYCL), CudaTuning for
// Tessera's hand-written CUDA kernels on top. Tuning<ExecSpace> selects the policy of a call's
// execution space; kernels and launches read their constants from it, never from literals at
// the call site. A new backend (a HIP policy, say) is a new struct and one TuningPolicy
// specialisation. The measurements behind each value are in perf/README.md ("Tuning
// constants") and docs/perf-history.md.
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

/// Constants that every backend shares: they shape the kernels' data layout rather than their
/// fit to one device (measured on GPUs, where they matter most).
struct TuningBase {
  // ---- Genred (tiled_reduce.hpp, schedule.hpp)
  /// 32-bit registers that a thread's outer rows and accumulators may take: rows per thread are
  /// 4, 2 or 1, as many as fit (one when a size is known only at run time: several rows then
  /// keep their KMin lists in shared memory, which ran slower than one row).
  static constexpr int genred_row_registers = 64;
  /// Most outer rows per thread of dense calls and of block-sparse calls (a segment's last team
  /// tile is partly idle, more so for taller tiles).
  static constexpr int genred_dense_rows_per_thread  = 4;
  static constexpr int genred_sparse_rows_per_thread = 2;
  /// Bytes of level-0 scratch (GPU shared memory) that the portable kernel's per-thread buffers
  /// may use before they move to level-1 scratch (device memory): room for the staged tile and
  /// two resident teams per multiprocessor.
  static constexpr std::size_t genred_thread_scratch0_budget = 24 * 1024;
  /// The 2D scheme: Scheme::automatic considers it when the reduced range spans at least this
  /// many staged tiles; balanced_chunks cuts the reduced range in at most this many chunks when
  /// the row tiles fill the device, the fewest that leave the last wave this full.
  static constexpr int genred_2d_min_tiles         = 4;
  static constexpr int genred_2d_max_chunks        = 4;
  static constexpr double genred_2d_min_wave_fill  = 0.9;
  static constexpr int genred_2d_chunk_granularity = 32;  ///< rows per chunk rounded up to this

  // ---- distributed Genred (mpi/impl/distributed_genred.hpp)
  /// Schedule::automatic gathers every rank's reduced rows onto each rank (one collective, one
  /// kernel per rank) when all of them together take at most this many bytes, and runs the ring
  /// otherwise. Below it the ring's per-slice launches, merges and fences cost more than moving
  /// the rows; above it the gathered copy would grow with the whole problem on every rank.
  static constexpr std::size_t mpi_all_gather_bytes = std::size_t{4} << 20;
  /// The ring's account of hidden messages (DistributedReport::exposed_exchange_seconds): a
  /// step's fence that takes longer than this found the step's kernels still running when its
  /// messages had arrived, so their wait was hidden (a launch and a fence of finished work take
  /// microseconds).
  static constexpr double mpi_busy_fence_seconds = 50e-6;

  // ---- interval primitives (load_balance.hpp)
  /// Items each thread of a per-item operation loads per round (the moves hold two rounds in
  /// registers; 8 cost occupancy and ran slower).
  static constexpr int interval_items_per_thread = 4;
  /// Merge-path pieces each team takes one after the other: the moves overlap a piece's loads
  /// with the staging and walk of the next; fills take one.
  static constexpr int interval_pieces_per_team(bool fills) { return fills ? 1 : 4; }
  /// Merged entries each thread walks: odd, so that the marks the 32 threads of a warp write at
  /// one step fall in 32 different shared-memory banks (with 8, four threads share each bank).
  static constexpr int interval_walk_length = 9;

  // ---- moves regrouped by destination (destination_order.hpp)
  /// Output regions of 2^20 bytes (1 MiB), at most 512 of them (a team keeps three 4-byte values
  /// per region in scratch: 6 KiB); smaller regions moved as fast, larger ones slower.
  static constexpr int destination_region_bytes_log2 = 20;
  static constexpr int max_destination_regions       = 512;
  /// Intervals per chunk of the counting and placing kernels (8 per thread of a GPU team; the
  /// placing kernel's scratch, 35 KB with 512 regions, fits Kokkos' 40936-byte level-0 limit on
  /// CUDA after halving to 1024), and chunks per counting team.
  static constexpr int interval_regroup_tile         = 2048;
  static constexpr int interval_regroup_count_chunks = 4;
  /// The window sort: intervals each thread holds in registers, and bins of its counting sort.
  /// A GPU team sorts chunks of up to 8192 intervals (smaller chunks left the moves slower).
  static constexpr int interval_regroup_sort_per_thread = 8;
  static constexpr int interval_regroup_sort_bins       = 2048;
  /// Intervals of at most this many items on average are also sorted by output window (longer
  /// intervals gain less from the sort than it costs).
  static constexpr std::int64_t regroup_sort_max_mean_count = 128;
  /// IntervalOrder::automatic regroups moves whose output spans more than 32 MiB (smaller ones
  /// stay in a large GPU's L2 cache), with at least 2^17 intervals (fewer cost less than the two
  /// extra kernels) of at least 8 items on average (the regrouping moves about 30 bytes per
  /// interval).
  static constexpr std::size_t regroup_min_output_bytes = std::size_t{1} << 25;
  static constexpr std::int64_t regroup_min_intervals   = std::int64_t{1} << 17;
  static constexpr std::int64_t regroup_min_mean_count  = 8;

  // ---- Pairwise engine (pairwise/impl/)
  /// A PCF team tile is G x G pairs with G = this / sizeof(breakpoint): the G row and G column
  /// functions of a tile sit transposed in scratch, so that G threads reading G different
  /// functions at any positions touch G different banks (one 128-byte wavefront).
  static constexpr int pairwise_pcf_tile_bytes = 128;
  /// Point vectors: a team tile is this many rows x this many columns.
  static constexpr int pairwise_point_tile = 32;
  /// The budget's share (the rest holds the block's function data) that the two output
  /// buffers take, and the share of free device memory that an automatic budget takes.
  static constexpr double pairwise_output_share      = 0.5;
  static constexpr double pairwise_free_memory_share = 0.8;
  /// Blocks the output is split into by default (masspcf's 32 per GPU): enough for the
  /// pipeline's first kernel and last download to be a small part of the whole.
  static constexpr std::size_t pairwise_splits_hint = 32;
  /// Host copies of at least this many bytes into pairwise outputs use non-temporal stores
  /// (pairwise/impl/host_stream_copy.hpp).
  static constexpr std::size_t pairwise_stream_copy_min_bytes = 4096;

  // ---- Fused sequences (fusion/)
  /// What the plan model charges for a kernel launch, in bytes moved (launch latency times the
  /// memory bandwidth): below it, a second kernel costs more than the bytes fusion saves.
  static constexpr double fusion_launch_bytes = 1 << 16;
};

/// Host backends: a team is one thread; staged tiles sized to stay in L1.
struct HostTuning : TuningBase {
  /// Genred's portable kernel: one outer row per team, 256 staged inner rows.
  static constexpr TileShape genred_tile(int /*scalar_bytes*/) { return {1, 256}; }
  /// Genred's host kernel (genred/impl/host/): independent lanes of a cache line (16 floats, 8
  /// doubles) in its folds, blocks of 4 outer rows per one-thread team, and tiles sized so that
  /// the staged rows and the 4 rows of formula values take 16 KiB (L1 is 32 KiB or more).
  static constexpr int genred_host_lane_bytes = 64;
  static constexpr int genred_host_rows       = 4;
  static constexpr int genred_host_tile_bytes = 16 * 1024;
  /// Radial kernels of at least genred_host_blocked_min_dim components, squared distances and
  /// dot products of at least genred_host_blocked_min_dim_point_pairs, sum their pairs'
  /// components as a matrix product (genred/impl/host/host_blocked_pairs.hpp). Measured on the
  /// 2-core CI VM (bench_genred_host): the Gaussian 4.5x faster at D = 16 (15x at 512); ArgKMin
  /// by squared distance 20% slower at D = 16, 6.8x faster at D = 64 (D = 32 not measured).
  static constexpr int genred_host_blocked_min_dim             = 8;
  static constexpr int genred_host_blocked_min_dim_point_pairs = 32;
  /// Distance::automatic (genred/impl/distance_rule.hpp) takes the expanded distance from this
  /// dimension on; 0: never. Measured on the 2-core CI VM (Xeon, AVX-512, Kokkos 3.4 Serial, the
  /// host kernel, M = N = 16000 sqrt(16 / max(D, 16)), Gaussian W = 0 and 1): expanded only
  /// 1.03-1.15x the direct distance's pairs/s in float at D = 3 to 512 (1.05-1.18x in double),
  /// too little for its cancellation error (docs/genred.md, "Distance::automatic").
  static constexpr int genred_automatic_expanded_min_dim = 0;
  /// Interval primitives: one thread with 4096 merge-path entries per piece.
  static constexpr IntervalTile interval_tile(bool /*fills*/) { return {1, 4096}; }
  /// Threads per team that every interval kernel runs with.
  static constexpr int interval_safe_team_size = 1;
  /// Threads of the window sort's teams (a host team sorts interval_regroup_sort_per_thread).
  static constexpr int interval_regroup_sort_team_size = 1;
  /// Whether IntervalOrder::automatic ever regroups moves by destination.
  static constexpr bool regroups_moves = false;
  /// Pairwise engine: threads per team, the block budget when the caller gives none (host
  /// memory is the "device" memory here), and no occupancy floor on the block side.
  static constexpr int pairwise_team_size                    = 1;
  static constexpr std::size_t pairwise_default_budget_bytes = std::size_t{1} << 30;
  static constexpr double pairwise_occupancy_share           = 0;
  /// No staging: host backends write blocks straight from the block buffer.
  static constexpr std::size_t pairwise_staging_bytes = 0;
  /// Fused sequences: a one-thread team takes a cache line of consecutive elements at a time
  /// (fusion_lanes: 16 floats or 8 doubles, independent sums that the compiler vectorises).
  /// With 8 floats, half of each line waited for the next step, and at a power-of-two stride
  /// the lines in flight evicted it before (GESUMMV LayoutLeft in float at 4096^2: 16.4 ms with
  /// 8 floats, 8.4 with 16; BiCGK in float 12.3 -> 4.6 ms; single-matrix ATAX, SGEMV and
  /// SGEMVT in float lost 3 to 10%).
  static constexpr int fusion_lane_bytes = 64;
  /// Groups touching at least this many bytes write the vectors and matrices they do not read
  /// with streaming stores (core/streaming_access.hpp: no read for ownership of the output
  /// lines; at 2^24 elements VADD 10.1 -> 8.3 ms in float, WAXPBY 13.6 -> 11.0 in double; MADD
  /// at 4096^2 in float 7.9 -> 5.6). Smaller ones keep their outputs in cache for the next
  /// kernel (the CI VM's last-level cache: 32 MiB).
  static constexpr std::size_t fusion_streaming_min_bytes = std::size_t{32} << 20;
  /// Fused vector sequences: one thread per team, 16 KiB of consecutive elements per thread
  /// (4096 floats, 2048 doubles).
  static constexpr int fusion_vector_team_size        = 1;
  static constexpr int fusion_vector_bytes_per_thread = 16384;
  static constexpr int fusion_vector_unroll           = 1;  // unused: one-thread teams sweep lanes
  static constexpr FusionVectorShape fusion_vector_reduction_shape = {1, 4096};
  static constexpr int fusion_max_team_size                        = 1;
  /// The launch shapes the tuner times (with every valid plan).
  static constexpr int fusion_tune_team_sizes[] = {1};
  static constexpr int fusion_tune_per_thread[] = {1024, 4096, 16384};
  /// Fused matrix sequences: one thread per team sweeps its lines a cache line at a time, 4
  /// lines per team iteration (the default shape: lines); one team per core when the group has
  /// partial sums.
  static constexpr int fusion_matrix_team_size      = 1;
  static constexpr int fusion_matrix_rows           = 4;
  static constexpr int fusion_matrix_lines          = 4;  // the default shape: lines
  static constexpr double fusion_partial_team_share = 1;
  /// The kernel adding the teams' partial sums: one thread per team, no vector lanes.
  static constexpr int fusion_partials_team_size     = 1;
  static constexpr int fusion_partials_vector_length = 1;
  /// The plan model's charge for reading a matrix again in a later sweep, as a share of
  /// reading it: the team's lines are still in cache (ATAX fused runs 1.15x its unfused plan).
  static constexpr double fusion_reread_share          = 0;
  static constexpr int fusion_tune_matrix_team_sizes[] = {1};
  static constexpr int fusion_tune_matrix_rows[]       = {1, 4, 16, 256};
  /// Matrix tiles (a launch shape of at least fusion::tile_lines lines per team): one thread, no
  /// vector lanes, a band of 1 KiB of swept elements (independent sums of fusion_lanes each),
  /// one line at a time, with or without sums.
  static constexpr int fusion_tile_vector_length = 1;
  static constexpr int fusion_tile_unroll        = 1;
  static constexpr int fusion_tile_elements(FusionTileKind, int value_bytes) {
    return 1024 / value_bytes;
  }
  /// The tiles of a default (automatic) launch shape, unused: the default shape sweeps lines.
  static constexpr FusionTileShape fusion_tile_shape            = {1, 256};
  static constexpr FusionTileShape fusion_tile_shape_maps       = {1, 256};
  static constexpr FusionTileShape fusion_tile_shape_owned_sums = {1, 256};
  /// Held lines (with a tile shape, the groups that sweep their lines twice): only lines of 9
  /// to 16 floats (5 to 8 doubles), in a one-thread team's registers. Longer lines stay in
  /// cache between a team's sweeps, which is faster than copying them into an array (ATAX at
  /// 2048 x 2048 in float: 6.5 ms held in a 2048-element array, 2.5 ms swept twice).
  static constexpr int fusion_held_team_size      = 1;
  static constexpr int fusion_held_bytes          = 64;
  static constexpr int fusion_held_league_threads = 1;
  static constexpr double fusion_held_min_share   = 0.5;
};

/// GPU backends, portable kernels.
struct GpuTuning : TuningBase {
  /// Genred's portable kernel: a team of 256 threads owns 256 outer rows and stages 256 inner
  /// rows at a time (KeOps' 1D scheme with K = 256); 128 for double, to keep registers and
  /// shared memory per block in check.
  static constexpr TileShape genred_tile(int scalar_bytes) {
    return scalar_bytes > 4 ? TileShape{128, 128} : TileShape{256, 256};
  }
  /// Distance::automatic (genred/impl/distance_rule.hpp) takes the expanded distance from this
  /// dimension on; 0: never. The portable kernel on the H100 (bench_genred_gpu, float, M = N =
  /// 1e6) ran the expanded distance only 1.21x (D = 3) and 1.38x (D = 16, W = 3) as fast as
  /// the direct one, too little for its cancellation error; no other GPU was measured.
  static constexpr int genred_automatic_expanded_min_dim = 0;
  /// Interval primitives: 256 threads and 2048 entries for the moves, 128 threads and 2304
  /// entries (2 walks of 9 per thread) for the fills, whose teams finish sooner (more resident
  /// teams overlap their phases); the best of the shapes measured.
  static constexpr IntervalTile interval_tile(bool fills) {
    return fills ? IntervalTile{128, 2304} : IntervalTile{256, 2048};
  }
  /// 256: 255 registers per thread, the most a thread gets, fit 256 threads.
  static constexpr int interval_safe_team_size = 256;
  /// 1024: one team per multiprocessor at up to 64 registers per thread.
  static constexpr int interval_regroup_sort_team_size = 1024;
  static constexpr bool regroups_moves                 = true;
  /// Pairwise engine: threads per team (at most a tile's pairs), the budget when the backend
  /// cannot tell its free memory, and the occupancy floor on the block side,
  /// min_block_side = floor(sqrt(concurrency x this)): a block has at least this share of the
  /// threads the device holds at once (masspcf: 1024 of an SM's 2048 threads).
  static constexpr int pairwise_team_size                    = 128;
  static constexpr std::size_t pairwise_default_budget_bytes = std::size_t{1} << 30;
  static constexpr double pairwise_occupancy_share           = 0.5;
  /// Pinned host memory of each of the two staging buffers through which blocks are downloaded
  /// to host outputs, chunk by chunk (one chunk's copy overlaps the previous chunk's scatter);
  /// small, because page-locking memory costs about as much as copying it.
  static constexpr std::size_t pairwise_staging_bytes = std::size_t{8} << 20;
  /// Fused sequences: a thread takes one element at a time (fusion_lanes = 1); stores need no
  /// read for ownership on GPUs, so none are streaming stores.
  static constexpr int fusion_lane_bytes                  = 0;
  static constexpr std::size_t fusion_streaming_min_bytes = ~std::size_t{0};
  /// Fused vector sequences: 256 threads per team, 16 bytes of elements per thread (4 floats
  /// or 2 doubles, 256 apart), each thread loading up to 4 elements' operands before computing
  /// and storing them (loads in flight); measured on the H100 at 2^26 against 16 elements per
  /// thread: SSCAL in float 189 -> 182 us (cuBLAS 229), in double 387 -> 359 us (383); VADD in
  /// double 721 -> 689 us; WAXPBY in double 555 -> 528 us. A launch costs about as much as
  /// moving 8 MiB (a few microseconds at a few TB/s).
  static constexpr int fusion_vector_team_size        = 256;
  static constexpr int fusion_vector_bytes_per_thread = 16;
  static constexpr int fusion_vector_unroll           = 4;
  /// Groups with a reduction, under the default shape: 512 threads of 32 elements (fewer teams
  /// to combine; every vector kernel runs with 512 threads). AXPYDOT in float: 1.74x its
  /// cuBLAS chain with 512 x 64, 1.30x with 256 x 16 (the tuner's pick against the default).
  static constexpr FusionVectorShape fusion_vector_reduction_shape = {512, 32};
  static constexpr int fusion_max_team_size                        = 1024;
  static constexpr double fusion_launch_bytes                      = 1 << 23;
  static constexpr int fusion_tune_team_sizes[]                    = {128, 256, 512};
  static constexpr int fusion_tune_per_thread[]                    = {1, 2, 4, 8, 16, 32, 64};
  /// Fused matrix sequences: by default tiles (fusion_matrix_lines >= fusion::tile_lines; each
  /// tile group then takes fusion_tile_shape or fusion_tile_shape_owned_sums below). Groups
  /// sweeping lines: 128 threads, 16 lines per team iteration (16 loads in flight per thread;
  /// partial sums in scratch added once per 16 lines); those with partial sums run half the
  /// teams the device holds at once (each team's partial sums are written once, and added by a
  /// second launch).
  static constexpr int fusion_matrix_team_size      = 128;
  static constexpr int fusion_matrix_rows           = 16;
  static constexpr int fusion_matrix_lines          = 128;  // the default shape: tiles
  static constexpr double fusion_partial_team_share = 0.5;
  /// The kernel adding the teams' partial sums: 8 threads of 32 vector lanes (32 consecutive
  /// columns read coalesced, each thread adding every 8th team's sums; a one-thread-per-column
  /// loop over the teams took 68 us for 529 teams x 16384 columns, at 6% occupancy).
  static constexpr int fusion_partials_team_size     = 8;
  static constexpr int fusion_partials_vector_length = 32;
  /// The plan model's charge for reading a matrix again in a later sweep: measured, the
  /// re-read and the team barrier before it cost more than a second read from memory (ATAX
  /// fused took 1.16x its unfused plan, 1670 against 1443 us in float at n = 16384).
  static constexpr double fusion_reread_share          = 1.25;
  static constexpr int fusion_tune_matrix_team_sizes[] = {128, 256, 512};
  static constexpr int fusion_tune_matrix_rows[]       = {4, 16, 32, 64, 128, 256};
  /// Matrix tiles: warps (32 vector lanes), 2 lines at a time per warp, elements per lane and
  /// line by the group's kind (coalesced; 16 floats, a band of 512 swept elements: 32 loads in
  /// flight per thread and matrix). Measured on the H100 for BiCGK in float, 16384^2: 2852 GB/s
  /// (97% of the copy rate) with 8 warps and 256-line tiles, 2650 to 2890 GB/s over 4 to 32
  /// elements, 1 to 8 lines and 64 to 256 lines a tile (wider vector loads gained nothing).
  /// Against 16 elements of every type and kind and ordinary loads (16384^2, default shapes;
  /// the figures include the streaming loads of core/streaming_access.hpp where they apply):
  ///   - groups with sums that write no matrix take 64 bytes (8 doubles; 16 doubles took up to
  ///     222 registers a thread, one 256-thread team per multiprocessor): SGEMV with
  ///     LayoutRight in double 708 -> 689 us, GESUMMV 1458 -> 1382 us, BiCGK 847 -> 761 us;
  ///   - groups of maps only take 32 bytes (8 floats, 4 doubles), with 512 threads
  ///     (fusion_tile_shape_maps): MADD in float 1071 -> 1059 us (cuBLAS geam 1063), in double
  ///     2165 -> 2125 us (2126);
  ///   - groups with sums that write matrices (GEMVER's first) keep 16 elements: with 8 doubles
  ///     GEMVER in double took 2413 us against 2229, with 32 floats (spilling) 2515 against 1149.
  static constexpr int fusion_tile_vector_length = 32;
  static constexpr int fusion_tile_unroll        = 2;
  static constexpr int fusion_tile_elements(FusionTileKind kind, int value_bytes) {
    return kind == FusionTileKind::maps   ? 32 / value_bytes
           : kind == FusionTileKind::sums ? 64 / value_bytes
                                          : 16;
  }
  /// The tiles of the default launch shape, per group: 256 threads (8 warps) and 64-line tiles
  /// for groups with sums along the swept axis only (measured in float at 16384^2 with an
  /// experiment kernel: SGEMV 2983 GB/s against 2867 with 4 warps); 512 threads and 64-line
  /// tiles for groups of maps only; 128 threads and 512-line tiles for groups with sums along
  /// the owned axis, whose tiles each write and add a sum per swept index (BiCGK: 2669 GB/s
  /// against 2398 with 8 warps and 64 lines; GESUMMV with LayoutLeft in float 723 us with
  /// 256-line tiles, 711 with 512).
  static constexpr FusionTileShape fusion_tile_shape            = {256, 64};
  static constexpr FusionTileShape fusion_tile_shape_maps       = {512, 64};
  static constexpr FusionTileShape fusion_tile_shape_owned_sums = {128, 512};
  /// Held lines (with a tile shape, the groups that sweep their lines twice, such as ATAX's
  /// with rows owned): 512 threads of 128 bytes per held matrix or sum (lines of up to 16384
  /// floats or 8192 doubles in registers); at 128 registers a thread such a team fills a
  /// multiprocessor's registers, so the league is one team per 2048 threads the device holds
  /// (an H100 multiprocessor's). Measured for ATAX in float at 16384^2: 2663-2698 GB/s on one
  /// read of A, against 2510-2519 with 1024 threads of 64 bytes (twice the reductions per
  /// element), and 2410-2434 prefetching two lines ahead instead of one; an experiment kernel
  /// reaches 3006 (98% of a read of A). Lines of at most half a team's capacity are read twice
  /// instead (ATAX in float at 4099^2: 551 GB/s held against 708 read twice; 1250 against 1251
  /// at 8192^2).
  static constexpr int fusion_held_team_size      = 512;
  static constexpr int fusion_held_bytes          = 128;
  static constexpr int fusion_held_league_threads = 2048;
  static constexpr double fusion_held_min_share   = 0.5;
};

/// Tessera's hand-written CUDA kernels (genred/impl/cuda/), on top of the portable GPU policy.
struct CudaTuning : GpuTuning {
  /// Kernels whose outer rows and accumulators take at most this many registers are "light".
  static constexpr int genred_light_row_registers = 32;
  /// Threads per block: light dense kernels run faster in 256-thread blocks; block-sparse
  /// segments end in a partly idle tile, which 128 x 2-row tiles keep small; the double and
  /// wide (D = 16) kernels run faster in 128.
  static constexpr int genred_light_block = 256;
  static constexpr int genred_block       = 128;
  /// Threads per multiprocessor the register budget must allow (__launch_bounds__): light
  /// kernels are held to 51 registers (1280 threads), the others may use 128 (512 threads; held
  /// to 51, the double and D = 16 kernels spill).
  static constexpr int genred_light_resident_threads = 1280;
  static constexpr int genred_resident_threads       = 512;
  /// Staged tile: as many inner rows as the block holds outer rows, within this many bytes (so
  /// that several blocks share a multiprocessor) and at least this many rows.
  static constexpr int genred_tile_bytes    = 16 * 1024;
  static constexpr int genred_min_tile_rows = 32;
  /// The tensor-core kernel (Sum of radial kernels, Distance::matrix): warps per block, 16-row
  /// m-tiles per warp and threads per multiprocessor its registers must allow (a wide block
  /// keeps the matrix units busy while warps wait on the staging loads).
  static constexpr int matrix_radial_warps            = 16;
  static constexpr int matrix_radial_m_tiles          = 2;
  static constexpr int matrix_radial_resident_threads = 512;
  /// The streamed tensor-core kernels (any dimension: impl/cuda/matrix_tiles.hpp): outer rows
  /// and inner rows of a block tile, 16-bit elements of the dimension per pipeline stage,
  /// stages of asynchronous copies in flight, and the warps of a block along each side (each
  /// warp computes a (rows / warps_m) x (cols / warps_n) piece of the tile).
  static constexpr int matrix_tile_rows    = 128;
  static constexpr int matrix_tile_cols    = 128;
  static constexpr int matrix_tile_k       = 64;
  static constexpr int matrix_tile_stages  = 3;
  static constexpr int matrix_tile_warps_m = 2;
  static constexpr int matrix_tile_warps_n = 2;
  /// Blocks per multiprocessor the streamed kernels' registers must allow.
  static constexpr int matrix_tile_min_blocks = 2;
  /// Distance::automatic takes Distance::matrix from this dimension on, for the calls a
  /// tensor-core kernel takes (genred/impl/cuda/cuda_distance_rule.hpp). H100, M = N = 1e5,
  /// float Gaussian W = 1 (bench_genred_dims): matrix 1.83e12 pairs/s against 0.45e12 direct at
  /// D = 16, 0.63e12 against 0.134e12 at D = 64, 0.358e12 against 0.052e12 at D = 128; at
  /// D <= 8 the SIMT kernel's direct distance is at least as fast, and exact.
  static constexpr int genred_automatic_matrix_min_dim = 9;
  /// The Hopper engine (impl/cuda/matrix_tiles_sm90.hpp, builds for sm_90a): outer rows (two
  /// warpgroups of 64) and inner rows of a block tile, pipeline stages, and the k-step of split
  /// operands (whose stages hold four panels; one product's k-step is matrix_tile_k).
  static constexpr int matrix_sm90_tile_rows = 128;
  static constexpr int matrix_sm90_tile_cols = 256;
  static constexpr int matrix_sm90_stages    = 4;
  static constexpr int matrix_sm90_split_k   = 32;
  /// The Hopper engine of the radial sums up to matrix_sm90_narrow_max_dim, and of the
  /// selections: tiles of matrix_sm90_narrow_cols inner rows and matrix_sm90_narrow_stages stages
  /// (96 KiB), so that matrix_sm90_narrow_blocks blocks of 128 registers a thread share a
  /// multiprocessor: four warps per scheduler
  /// instead of two (the kernel is latency-bound: 36% of issue slots busy, L2 at 16% of its
  /// throughput, at D = 128 in bfloat16), one block's epilogue beside the other's products.
  static constexpr int matrix_sm90_narrow_cols    = 128;
  static constexpr int matrix_sm90_narrow_stages  = 3;
  static constexpr int matrix_sm90_narrow_max_dim = 256;
  static constexpr int matrix_sm90_narrow_blocks  = 2;
  /// Stages of the radial sums' narrow tiles when they keep their outer rows resident in shared
  /// memory (genred/impl/cuda/matrix_engine.hpp: MatrixNarrowEngine; the selections keep
  /// matrix_select_stages), measured in perf/README.md.
  static constexpr int matrix_sm90_resident_stages = 4;
  /// The widest weights the streamed radial sum keeps per row in registers.
  static constexpr int matrix_sum_max_weights = 4;
  /// Weights from this width on take the wide-weights kernel (impl/cuda/
  /// matrix_wide_sum_cuda.hpp: the weights' product on the matrix units); a block computes at
  /// most block_columns of them (wider weights: several blocks per row tile, each recomputing
  /// the tile's kernel values), and a warp's running sums cover at most warp_columns (wider
  /// blocks split their columns between the two column warps, which exchange partial sums
  /// through shared memory each tile).
  static constexpr int matrix_wide_sum_min_weights   = 16;
  static constexpr int matrix_wide_sum_block_columns = 64;
  static constexpr int matrix_wide_sum_warp_columns  = 32;
  /// Pipeline stages of the wide-weights kernel on the Hopper engine (its shared memory also
  /// holds a tile's weights: four stages do not fit beside them).
  static constexpr int matrix_wide_sum_sm90_stages = 3;
  /// The largest k the tensor-core selections take (each thread keeps, for each of its outer
  /// rows, a list of k + matrix_select_margin candidates in shared memory).
  static constexpr int matrix_select_max_k = 16;
  /// Candidates a list keeps beyond k: the margin that lets the rounding-error certificate hold
  /// when the k-th and the following scores are close.
  static constexpr int matrix_select_margin = 8;
  /// Selections run on the tensor cores above this dimension, whatever the points' type (H200,
  /// ArgKMin K = 10, M = N = 1e5, uniform points: 1.81e12 pairs/s at D = 16 against the SIMT
  /// kernel's 0.477e12; at D = 6 and 8 1.34e12 against 0.83e12 and 0.75e12, but at D = 4 0.055e12
  /// against 0.94e12, most rows failing the certificate: perf/README.md).
  static constexpr int matrix_select_min_dim = 8;
  /// Scores a thread of the selections can queue between merges, at most (a tile that overflows
  /// a queue is redone with merges between its column steps; on the Hopper engine the queues take
  /// what the multiprocessor's shared memory leaves beside the pipeline and the lists), and the
  /// Hopper engine's stages in the selections' narrow tiles (H200, ArgKMin K = 10, bf16 points,
  /// D = 128: four stages and queues of 8 1.05e12 pairs/s, three and 16 0.99e12).
  static constexpr int matrix_select_queue  = 16;
  static constexpr int matrix_select_stages = 4;
  /// Stages of the selections' Hopper engine beyond matrix_sm90_narrow_max_dim, in the wide
  /// 128 x 256 tiles, one block per multiprocessor (H200, ArgKMin K = 10, M = N = 1e5: D = 1024
  /// 0.0899e12 pairs/s against 0.0694e12 in the narrow tiles, D = 512 0.246 against 0.231; at
  /// D = 256 the narrow tiles were faster, 0.420 against 0.379; six stages as four).
  static constexpr int matrix_select_wide_stages = 4;
  /// After each tile, all warps of a selection block merge their queues together when any
  /// thread's queue is more than 1 / matrix_select_sync_share full (H200, ArgKMin K = 10,
  /// M = N = 1e5: 8 of 16 gave 1.10e12 pairs/s at D = 16 and 0.561e12 at D = 128, 4 of 16 1.07e12
  /// and 0.546e12; 2 of 8 0.99e12 at D = 128 bf16 against 1.05e12 for 4 of 8).
  static constexpr int matrix_select_sync_share = 2;
  /// Warps of the mma.sync engine's selection blocks along each side of the 128 x 128 tile: one
  /// warp across, so that the four lanes of a quad hold all of a row's columns and share its
  /// list.
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
