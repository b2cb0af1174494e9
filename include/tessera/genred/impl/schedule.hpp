// How the (i, j) plane of one genred call is cut into team tiles, shared by the portable, the
// CUDA and the host launches: the 1D/2D choice, the 2D chunks and their partial buffer, the
// block-sparse team tables, and the second (combine) kernel of the 2D scheme.
#pragma once

#include <tessera/core/impl/block_sparse_axis.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/sorted_search.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace tessera {
namespace Impl {

/// The extents every View of a call must agree on.
struct Shape {
  std::size_t batch;
  std::size_t m, n;
};

/// The sparsity argument of a dense call.
struct NoSparsity {};

/// The team tile of a dense call's league entry. schedule() numbers the league chunk-fastest:
/// league = (batch * tiles_outer + tile) * chunks + chunk.
struct DenseTile {
  int batch;  ///< batch entry
  int tile;   ///< tile of outer rows
  int chunk;  ///< reduced-range chunk (0 for the 1D scheme)
};
KOKKOS_INLINE_FUNCTION DenseTile dense_tile(int league, int chunks, int tiles_outer) {
  return {league / chunks / tiles_outer, (league / chunks) % tiles_outer, league % chunks};
}

/// Largest power of two <= n (n >= 1), at most 2^(tile_levels - 1): the block-sparse team tables
/// exist for these tile heights.
inline int sparse_team_level(int n) {
  int level = 0;
  while (level + 1 < tile_levels && (2 << level) <= n)
    ++level;
  return level;
}

/// The outer rows and inner ranges of one block-sparse team tile.
struct SparseTile {
  int o_begin, o_end;  ///< outer rows [o_begin, o_end), inside one segment
  int l_begin, l_end;  ///< the segment's inner ranges [l_begin, l_end) of SparseSchedule::ranges
};

/// The block-sparse schedule of one direction for one tile height, as raw pointers (see
/// core/impl/block_sparse_axis.hpp): team tile t of a batch entry lies inside the segment q whose
/// tile_starts[q] <= t < tile_starts[q + 1].
struct SparseSchedule {
  const int* segments    = nullptr;  // (Q, 2) outer segments
  const int* slices      = nullptr;  // (Q) end offsets into ranges
  const int* ranges      = nullptr;  // (P, 2) inner ranges
  const int* tile_starts = nullptr;  // (Q + 1) first team tile of each segment
  int segment_count      = 0;
  int tiles              = 0;  // team tiles per batch entry

  /// Team tile t (in [0, tiles)) of `tile_rows` outer rows, the height it was built for.
  KOKKOS_INLINE_FUNCTION SparseTile tile(int t, int tile_rows) const {
    const int q     = upper_bound(tile_starts, segment_count + 1, t) - 1;
    const int begin = segments[2 * q] + (t - tile_starts[q]) * tile_rows;
    const int end   = segments[2 * q + 1];
    return {begin, begin + tile_rows < end ? begin + tile_rows : end, q == 0 ? 0 : slices[q - 1],
            slices[q]};
  }
};

/// The SparseSchedule of tiles of `tile_rows` outer rows in the direction a reduction over j
/// (OuterIsI) or over i walks. Throws std::logic_error unless tile_rows is a power of two below
/// 2^tile_levels (the heights with team tables).
template <bool OuterIsI, class Sparsity>
SparseSchedule sparse_schedule(const Sparsity& sparsity, int tile_rows) {
  const int level = sparse_team_level(tile_rows);
  if ((1 << level) != tile_rows) {
    throw std::logic_error(concat("tessera::genred: block-sparse tile height ", tile_rows,
                                  " is not a power of two up to 2^", tile_levels - 1));
  }
  const auto& dir = OuterIsI ? sparsity.by_rows() : sparsity.by_columns();
  return {dir.segments.data(), dir.slices.data(),
          dir.ranges.data(),   dir.tile_starts.data() + level * (dir.segment_count() + 1),
          dir.segment_count(), dir.teams[level]};
}

inline void require_league(std::size_t league, const char* what) {
  if (league > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error(concat("tessera::genred: ", what, " = ", league,
                                   " exceeds the largest league size ",
                                   std::numeric_limits<int>::max()));
  }
}

/// The 2D partial buffer of a launch (empty for the 1D scheme and block-sparse calls).
template <class T, class MemorySpace>
struct PartialViews {
  Kokkos::View<T*, MemorySpace> values;
  Kokkos::View<int*, MemorySpace> indices;
};

/// Chunks of the reduced range for `teams` row tiles on a device that holds `resident` teams at
/// once: enough to fill it twice when the row tiles alone cannot, otherwise the fewest (up to
/// Tuning::genred_2d_max_chunks) that leave the last wave at least genred_2d_min_wave_fill full
/// (1954 tiles on 1320 slots run as 1.48 waves, 74% busy; cut in two chunks, as 2.96 waves, 99%
/// busy).
template <class Tuning>
std::size_t balanced_chunks(std::size_t teams, std::size_t resident) {
  if (teams == 0 || resident == 0) return 1;
  if (teams < resident) return (2 * resident + teams - 1) / teams;
  constexpr std::size_t most = Tuning::genred_2d_max_chunks;
  for (std::size_t c = 1; c < most; ++c) {
    const double waves = static_cast<double>(teams * c) / static_cast<double>(resident);
    if (waves / std::ceil(waves) >= Tuning::genred_2d_min_wave_fill) return c;
  }
  return most;
}

/// Sets k.tiles_outer, k.chunks, k.chunk_rows (and k.sparse) for a kernel whose tile height
/// (k.tile_rows()) and tile_j are set. Dense calls run the 2D scheme when asked to, or, with
/// Scheme::automatic on a device, when the reduced range spans at least
/// Tuning::genred_2d_min_tiles staged tiles and balanced_chunks() asks for more than one chunk.
/// Returns the league size (0: nothing to run); the caller provides the partial buffer when
/// k.chunks > 1.
template <class ExecSpace, class Kernel, class Sparsity>
std::size_t schedule(const GenredOptions& options, const Shape& shape, const Sparsity& sparsity,
                     std::size_t resident_teams, Kernel& k) {
  using P                         = Tuning<ExecSpace>;
  const std::size_t rows_per_tile = static_cast<std::size_t>(k.tile_rows());
  k.chunks                        = 1;
  k.chunk_rows                    = std::max(k.n_inner, 1);
  if constexpr (!std::is_same_v<Sparsity, NoSparsity>) {
    k.sparse                 = sparse_schedule<Kernel::outer_is_i>(sparsity, k.tile_rows());
    k.tiles_outer            = k.sparse.tiles;
    const std::size_t league = shape.batch * static_cast<std::size_t>(k.tiles_outer);
    require_league(league, "batch * row tiles");
    return league;
  } else {
    const std::size_t n_outer = static_cast<std::size_t>(k.n_outer);
    const std::size_t tiles   = (n_outer + rows_per_tile - 1) / rows_per_tile;
    const std::size_t teams   = shape.batch * tiles;
    const std::size_t tiles_j = (static_cast<std::size_t>(k.n_inner) + k.tile_j - 1) / k.tile_j;
    require_league(tiles, "row tiles");
    k.tiles_outer      = static_cast<int>(tiles);
    std::size_t chunks = 1;
    if (options.scheme == Scheme::tiled_2d) {
      chunks = options.chunks_2d > 0 ? static_cast<std::size_t>(options.chunks_2d)
                                     : balanced_chunks<P>(teams, resident_teams);
    } else if (options.scheme == Scheme::automatic && is_device_space<ExecSpace> &&
               tiles_j >= static_cast<std::size_t>(P::genred_2d_min_tiles)) {
      chunks = balanced_chunks<P>(teams, resident_teams);
    }
    chunks = std::min(std::max<std::size_t>(chunks, 1), tiles_j);
    if (chunks > 1) {
      // Rows per chunk: an even share rounded up to the chunk granularity (not to tile_j), so
      // that the chunk count, hence the league, stays what balanced_chunks asked for.
      constexpr std::size_t g = P::genred_2d_chunk_granularity;
      const std::size_t share = (static_cast<std::size_t>(k.n_inner) + chunks - 1) / chunks;
      k.chunk_rows            = static_cast<int>((share + g - 1) / g * g);
      k.chunks                = (k.n_inner + k.chunk_rows - 1) / k.chunk_rows;
    }
    const std::size_t league = teams * static_cast<std::size_t>(k.chunks);
    require_league(league, "batch * row tiles * chunks");
    return league;
  }
}

/// Scalars of the 2D partial buffer of a scheduled kernel.
struct PartialExtents {
  std::size_t values, indices;
};
// (A named struct: nvcc 13 with g++ rejects std::pair<std::size_t, std::size_t> as this
// template's return type in some translation units, "use of built-in trait __remove_cv".)
template <class Kernel>
PartialExtents partial_extents(const Kernel& k, std::size_t batch) {
  const std::size_t rows = batch * static_cast<std::size_t>(k.n_outer) * k.chunks;
  return {rows * k.red.acc_values(), rows * k.red.acc_indices()};
}

/// Allocates the 2D partial buffer of a scheduled kernel as Views (nothing for one chunk).
template <class ExecSpace, class Kernel, class T = typename Kernel::scalar_type>
PartialViews<T, typename ExecSpace::memory_space> allocate_partials(const ExecSpace& space,
                                                                    Kernel& k, std::size_t batch) {
  PartialViews<T, typename ExecSpace::memory_space> partials;
  if (k.chunks <= 1) return partials;
  const auto extents = partial_extents(k, batch);
  partials.values    = decltype(partials.values)(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::partial_values"),
      extents.values);
  partials.indices = decltype(partials.indices)(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::partial_indices"),
      extents.indices);
  k.partial = {partials.values.data(), partials.indices.data(), k.red.acc_values(),
               k.red.acc_indices()};
  return partials;
}

}  // namespace Impl
}  // namespace tessera
