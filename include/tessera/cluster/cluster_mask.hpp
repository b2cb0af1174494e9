// Coarse cluster-to-cluster masks and the block-sparsity patterns they define (KeOps'
// from_matrix): with the points of each cloud sorted by cluster (clustering.hpp), a boolean
// matrix over (x-cluster, y-cluster) pairs says which tiles of the (i, j) plane a reduction
// visits.
#pragma once

#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Checks that `ranges` partitions [0, end) in order and returns end (0 for no ranges).
template <class ExecSpace, class Ranges>
int partition_end(const ExecSpace& space, const Ranges& ranges, const char* name,
                  const char* extent_name) {
  using Mem = typename ExecSpace::memory_space;
  require_equal("ranges_from_mask", name, "columns", ranges.extent(1), 2);
  require_int_extent("ranges_from_mask", name, ranges.extent(0));
  const auto copy = copy_ranges(space, ranges, "tessera::cluster::cluster_ranges");
  const int rows  = static_cast<int>(copy.extent(0));
  int end         = 0;
  space.fence();
  if (rows > 0) Kokkos::deep_copy(end, Kokkos::subview(copy, rows - 1, 1));
  const Kokkos::View<int*, Mem> no_slices(Kokkos::view_alloc(space, "tessera::cluster::no_slices"),
                                          rows);
  const IndexRanges<Mem> no_ranges(Kokkos::view_alloc(space, "tessera::cluster::no_ranges"), 0);
  const char* const names[5] = {name, "(none)", "(none)", extent_name, "(none)"};
  validate_axis(space, copy, no_slices, no_ranges, end, 0, names);
  return end;
}

/// Whether mask rows a and a - 1 differ (a > 0): rows that agree form one i-segment.
template <class Mask>
KOKKOS_INLINE_FUNCTION bool starts_group(const Mask& mask, int a) {
  if (a == 0) return true;
  for (int b = 0; b < static_cast<int>(mask.extent(1)); ++b) {
    if (static_cast<bool>(mask(a, b)) != static_cast<bool>(mask(a - 1, b))) return true;
  }
  return false;
}

/// Walks the kept y-clusters of mask row a and visits the maximal runs of touching ranges.
template <class Mask, class RangesY, class Visit>
KOKKOS_INLINE_FUNCTION void for_each_kept_run(const Mask& mask, const RangesY& ry, int a,
                                              const Visit& visit) {
  int start = 0, end = -1;  // current run, none while end < 0
  for (int b = 0; b < static_cast<int>(mask.extent(1)); ++b) {
    const int s = ry(b, 0), e = ry(b, 1);
    if (!static_cast<bool>(mask(a, b)) || s == e) continue;
    if (end == s) {
      end = e;
    } else {
      if (end >= 0) visit(start, end);
      start = s;
      end   = e;
    }
  }
  if (end >= 0) visit(start, end);
}

}  // namespace Impl

/// The block-sparsity pattern of a cluster mask: i in x-cluster a and j in y-cluster b form a
/// kept pair iff mask(a, b) is true (non-zero).
///  - mask: (Cx, Cy) View of bool (or any type convertible to bool), any layout;
///  - ranges_x: (Cx, 2) int View, the x-clusters' index ranges, partitioning [0, M) in order;
///    ranges_y: (Cy, 2), partitioning [0, N) (as cluster_ranges_centroids returns them).
/// Adjacent x-clusters with equal mask rows share one i-segment, and touching kept y-clusters
/// one j-range, so a full mask gives the single tile [0, M) x [0, N) and runs as fast as the
/// dense reduction. Throws std::invalid_argument for mismatched extents or ranges that do not
/// partition. Work O(Cx * Cy) on the device plus BlockSparseRanges' construction; fences.
template <class ExecSpace, class Mask, class RangesX, class RangesY>
BlockSparseRanges<typename ExecSpace::memory_space> ranges_from_mask(const ExecSpace& space,
                                                                     const Mask& mask,
                                                                     const RangesX& ranges_x,
                                                                     const RangesY& ranges_y) {
  const Impl::ProfilingRegion region("tessera::cluster::ranges_from_mask");
  using Mem = typename ExecSpace::memory_space;
  static_assert(Kokkos::is_view<Mask>::value && Mask::rank == 2,
                "tessera::ranges_from_mask: the mask is a rank-2 View (x-clusters, y-clusters)");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Mask::memory_space>::accessible,
                "tessera::ranges_from_mask: the mask must be accessible from the execution space");
  const char* fn = "ranges_from_mask";
  Impl::require_equal(fn, "mask", "rows", mask.extent(0), ranges_x.extent(0));
  Impl::require_equal(fn, "mask", "columns", mask.extent(1), ranges_y.extent(0));
  const int m   = Impl::partition_end(space, ranges_x, "ranges_x", "M");
  const int n   = Impl::partition_end(space, ranges_y, "ranges_y", "N");
  const int cx  = static_cast<int>(mask.extent(0));
  const auto rx = Impl::copy_ranges(space, ranges_x, "tessera::cluster::ranges_x");
  const auto ry = Impl::copy_ranges(space, ranges_y, "tessera::cluster::ranges_y");

  // x-clusters -> segments: the first cluster of each group of equal rows
  Kokkos::View<int*, Mem> first(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::group_first"),
      cx + 1);
  int groups = 0;
  Kokkos::parallel_scan(
      "tessera::cluster::mask_row_groups", Kokkos::RangePolicy<ExecSpace>(space, 0, cx + 1),
      KOKKOS_LAMBDA(int a, int& g, bool final) {
        if (a == cx || Impl::starts_group(mask, a)) {
          if (final) first(g) = a;
          if (a < cx) ++g;
        }
      },
      groups);

  // per segment: count the runs, then write them
  IndexRanges<Mem> segments(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::segments"), groups);
  Kokkos::View<int*, Mem> slices(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::slices"), groups);
  int runs = 0;
  Kokkos::parallel_scan(
      "tessera::cluster::mask_run_counts", Kokkos::RangePolicy<ExecSpace>(space, 0, groups),
      KOKKOS_LAMBDA(int g, int& offset, bool final) {
        int count = 0;
        Impl::for_each_kept_run(mask, ry, first(g), [&](int, int) { ++count; });
        offset += count;
        if (final) {
          slices(g)      = offset;
          segments(g, 0) = rx(first(g), 0);
          segments(g, 1) = rx(first(g + 1) - 1, 1);
        }
      },
      runs);
  IndexRanges<Mem> ranges(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::ranges"), runs);
  Kokkos::parallel_for(
      "tessera::cluster::mask_runs", Kokkos::RangePolicy<ExecSpace>(space, 0, groups),
      KOKKOS_LAMBDA(int g) {
        int l = g == 0 ? 0 : slices(g - 1);
        Impl::for_each_kept_run(mask, ry, first(g), [&](int s, int e) {
          ranges(l, 0) = s;
          ranges(l, 1) = e;
          ++l;
        });
      });
  return BlockSparseRanges<Mem>(space, m, n, segments, slices, ranges);
}

/// mask(a, b) = |centroids_x(a, :) - centroids_y(b, :)| <= cutoff + radii_x(a) + radii_y(b),
/// with a slack of a few ulps of the centroids' type (relative to the cutoff and to the
/// coordinates) so that rounding never drops a pair. With the radii of cluster_ranges_centroids
/// (each cluster inside its ball), every pair of points closer than `cutoff` falls in a kept
/// tile; pass zero radii for a plain threshold on centroid distances. centroids: (C, D) Views of
/// one float type, radii rank-1 Views of it; cutoff >= 0 (+infinity keeps everything). Work O(Cx *
/// Cy * D), no fence. Returns a (Cx, Cy) View<bool**> in the execution space's memory space.
template <class ExecSpace, class CentroidsX, class RadiiX, class CentroidsY, class RadiiY>
Kokkos::View<bool**, typename ExecSpace::memory_space> mask_from_centroid_distance(
    const ExecSpace& space, const CentroidsX& centroids_x, const RadiiX& radii_x,
    const CentroidsY& centroids_y, const RadiiY& radii_y, double cutoff) {
  static_assert(
      CentroidsX::rank == 2 && CentroidsY::rank == 2 && RadiiX::rank == 1 && RadiiY::rank == 1,
      "tessera::mask_from_centroid_distance: centroids are (clusters, dim) Views and "
      "radii rank-1 Views");
  const char* fn = "mask_from_centroid_distance";
  Impl::require_equal(fn, "centroids_y", "dimension", centroids_y.extent(1), centroids_x.extent(1));
  Impl::require_equal(fn, "radii_x", "extent", radii_x.extent(0), centroids_x.extent(0));
  Impl::require_equal(fn, "radii_y", "extent", radii_y.extent(0), centroids_y.extent(0));
  Impl::require(cutoff >= 0, fn, "cutoff must be >= 0 (got ", cutoff, ")");
  Impl::require_int_extent(fn, "centroids_x", centroids_x.extent(0));
  Impl::require_int_extent(fn, "centroids_y", centroids_y.extent(0));
  const int cx = static_cast<int>(centroids_x.extent(0));
  const int cy = static_cast<int>(centroids_y.extent(0));
  const int d  = static_cast<int>(centroids_x.extent(1));
  using T      = typename CentroidsX::non_const_value_type;
  // centroids and radii are rounded to T: a few ulps of slack keep every pair within reach
  const double slack = 4 * static_cast<double>(std::numeric_limits<T>::epsilon());
  Kokkos::View<bool**, typename ExecSpace::memory_space> mask(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::cluster_mask"), cx,
      cy);
  Kokkos::parallel_for(
      "tessera::cluster::mask_from_centroid_distance",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
          space, 0, static_cast<std::int64_t>(cx) * cy),
      KOKKOS_LAMBDA(std::int64_t t) {
        const int a = static_cast<int>(t / cy), b = static_cast<int>(t % cy);
        double r2    = 0;
        double scale = 0;  // largest coordinate, for the rounding slack
        for (int c = 0; c < d; ++c) {
          const double u = centroids_x(a, c), v = centroids_y(b, c);
          r2 += (u - v) * (u - v);
          scale = math::fmax(scale, math::fmax(math::fabs(u), math::fabs(v)));
        }
        const double reach = (cutoff + radii_x(a) + radii_y(b) + slack * scale * d) * (1 + slack);
        mask(a, b)         = r2 <= reach * reach;
      });
  return mask;
}

/// mask(a, b) = |centroids_x(a, :) - centroids_y(b, :)| <= cutoff: the plain threshold on
/// centroid distances of the KeOps examples (no guarantee for the pairs near a cluster's edge).
template <class ExecSpace, class CentroidsX, class CentroidsY>
Kokkos::View<bool**, typename ExecSpace::memory_space> mask_from_centroid_distance(
    const ExecSpace& space, const CentroidsX& centroids_x, const CentroidsY& centroids_y,
    double cutoff) {
  using T     = typename CentroidsX::non_const_value_type;
  using Radii = Kokkos::View<T*, typename ExecSpace::memory_space>;
  const Radii zx(Kokkos::view_alloc(space, "tessera::cluster::zero_radii"), centroids_x.extent(0));
  const Radii zy(Kokkos::view_alloc(space, "tessera::cluster::zero_radii"), centroids_y.extent(0));
  return mask_from_centroid_distance(space, centroids_x, zx, centroids_y, zy, cutoff);
}

}  // namespace tessera
