// Device kernels behind BlockSparseRanges: copying the user's triple, validating it, building
// the transposed triple and the team tables of the block-sparse kernel.
//
// A direction of a pattern ("axis") is an outer partition into segments, each with a sorted list
// of disjoint inner ranges. The transpose of a direction is built without materialising the
// covered tiles: the inner index is cut at every range end point into elementary segments, so
// that each outer segment q covers a set U(q) of whole elementary segments (a union of
// intervals of elementary indices). Column u of the coverage matrix then consists of runs of
// consecutive covering segments; a run starts at q where u is in U(q) but not in U(q-1), and
// ends at q where u is in U(q) but not in U(q+1). Both sets are interval differences computed by a
// merge walk, so the work and memory are proportional to the input plus the output (the runs).
#pragma once

#include <tessera/core/impl/block_sparse_axis.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/sort_view.hpp>
#include <tessera/core/impl/sorted_search.hpp>
#include <tessera/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace tessera {

namespace Impl {

/// Copies a user's (rows, 2) integer View of any layout into an IndexRanges.
template <class ExecSpace, class Src>
IndexRanges<typename ExecSpace::memory_space> copy_ranges(const ExecSpace& space, const Src& src,
                                                          const std::string& label) {
  IndexRanges<typename ExecSpace::memory_space> dst(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label), src.extent(0));
  Kokkos::parallel_for(
      "tessera::cluster::copy_ranges",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(src.extent(0))),
      KOKKOS_LAMBDA(int r) {
        dst(r, 0) = src(r, 0);
        dst(r, 1) = src(r, 1);
      });
  return dst;
}

/// Copies a user's rank-1 integer View into a contiguous one.
template <class ExecSpace, class Src>
Kokkos::View<int*, typename ExecSpace::memory_space> copy_offsets(const ExecSpace& space,
                                                                  const Src& src,
                                                                  const std::string& label) {
  Kokkos::View<int*, typename ExecSpace::memory_space> dst(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, label), src.extent(0));
  Kokkos::parallel_for(
      "tessera::cluster::copy_offsets",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(src.extent(0))),
      KOKKOS_LAMBDA(int r) { dst(r) = src(r); });
  return dst;
}

/// The checks of a block-sparse direction, in the order their violations are reported.
enum class AxisDefect : int {
  segment_reversed,  // segments(q) has start > end
  segment_gap,       // segments(q) does not start where segments(q - 1) ended (0 for q = 0)
  segment_short,     // the last segment does not end at n_outer
  slice_decreasing,  // slices(q) < slices(q - 1) (or < 0)
  slice_total,       // slices(Q - 1) != P
  range_outside,     // ranges(p) has start > end or leaves [0, n_inner]
  range_unsorted,    // ranges(p) and ranges(p + 1) of one segment overlap or are unsorted
  count
};

/// Finds the first defect of a direction: the smallest defect * stride + index.
template <class MemorySpace>
struct FindAxisDefect {
  using value_type = std::int64_t;
  IndexRanges<MemorySpace> segments;
  Kokkos::View<int*, MemorySpace> slices;
  IndexRanges<MemorySpace> ranges;
  int q_count, p_count, n_outer, n_inner;
  std::int64_t stride;

  KOKKOS_FUNCTION void flag(std::int64_t& first, AxisDefect d, int index) const {
    const std::int64_t code = static_cast<std::int64_t>(d) * stride + index;
    if (code < first) first = code;
  }
  KOKKOS_FUNCTION void operator()(int t, std::int64_t& first) const {
    if (t < q_count) {
      const int s = segments(t, 0), e = segments(t, 1);
      if (s > e) flag(first, AxisDefect::segment_reversed, t);
      if (s != (t == 0 ? 0 : segments(t - 1, 1))) flag(first, AxisDefect::segment_gap, t);
      if (t == q_count - 1 && e != n_outer) flag(first, AxisDefect::segment_short, t);
      if (slices(t) < (t == 0 ? 0 : slices(t - 1))) flag(first, AxisDefect::slice_decreasing, t);
      if (t == q_count - 1 && slices(t) != p_count) flag(first, AxisDefect::slice_total, t);
    }
    if (t < p_count) {
      const int a = ranges(t, 0), b = ranges(t, 1);
      if (a < 0 || a > b || b > n_inner) flag(first, AxisDefect::range_outside, t);
      if (t + 1 < p_count) {
        // t + 1 belongs to the same segment unless a slice ends at t + 1
        const int q             = upper_bound(slices.data(), q_count, t);
        const bool same_segment = q < q_count && slices(q) > t + 1;
        if (same_segment && b > ranges(t + 1, 0)) flag(first, AxisDefect::range_unsorted, t);
      }
    }
  }
};

/// Throws std::invalid_argument naming the first defect of a direction, if it has one.
/// `names` are the user's names of (segments, slices, ranges, n_outer, n_inner).
template <class ExecSpace, class MemorySpace>
void validate_axis(const ExecSpace& space, const IndexRanges<MemorySpace>& segments,
                   const Kokkos::View<int*, MemorySpace>& slices,
                   const IndexRanges<MemorySpace>& ranges, int n_outer, int n_inner,
                   const char* const (&names)[5]) {
  const char* fn = "BlockSparseRanges";
  const int q    = static_cast<int>(segments.extent(0));
  const int p    = static_cast<int>(ranges.extent(0));
  require_equal(fn, names[1], "extent", slices.extent(0), segments.extent(0));
  require(q > 0 || n_outer == 0, fn, names[0], " is empty but ", names[3], " = ", n_outer,
          ": the segments must partition [0, ", names[3], ")");
  require(q > 0 || p == 0, fn, names[2], " has ", p, " rows but there is no segment to own them");
  const int work = q > p ? q : p;
  if (work == 0) return;

  FindAxisDefect<MemorySpace> find{segments, slices,  ranges,  q,
                                   p,        n_outer, n_inner, static_cast<std::int64_t>(work) + 1};
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  Kokkos::parallel_reduce("tessera::cluster::validate_block_sparse",
                          Kokkos::RangePolicy<ExecSpace>(space, 0, work), find,
                          Kokkos::Min<std::int64_t>(first));
  if (first == std::numeric_limits<std::int64_t>::max()) return;

  const auto defect = static_cast<AxisDefect>(first / find.stride);
  const int t       = static_cast<int>(first % find.stride);
  const auto hs     = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), segments);
  const auto hl     = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), slices);
  const auto hr     = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ranges);
  auto seg          = [&](int r) {
    return concat(names[0], "[", r, "] = [", hs(r, 0), ", ", hs(r, 1), ")");
  };
  auto rng = [&](int r) {
    return concat(names[2], "[", r, "] = [", hr(r, 0), ", ", hr(r, 1), ")");
  };
  std::string what;
  switch (defect) {
    case AxisDefect::segment_reversed:
      what = concat(seg(t), " has start > end");
      break;
    case AxisDefect::segment_gap:
      what = concat(seg(t), " starts at ", hs(t, 0), " (expected ", t == 0 ? 0 : hs(t - 1, 1),
                    "): the segments must partition [0, ", names[3],
                    ") in order, without gaps or overlaps");
      break;
    case AxisDefect::segment_short:
      what = concat(seg(t), " is the last segment and ends at ", hs(t, 1), " (expected ", names[3],
                    " = ", n_outer, ")");
      break;
    case AxisDefect::slice_decreasing:
      what = concat(names[1], "[", t, "] = ", hl(t), " is smaller than the previous end offset ",
                    t == 0 ? 0 : hl(t - 1), ": ", names[1], " must be non-decreasing");
      break;
    case AxisDefect::slice_total:
      what = concat(names[1], "[", t, "] = ", hl(t), " (expected ", p, ", the rows of ", names[2],
                    "): the last end offset must cover every range");
      break;
    case AxisDefect::range_outside:
      what = concat(rng(t), " is not a range inside [0, ", names[4], " = ", n_inner, ")");
      break;
    case AxisDefect::range_unsorted:
      what = concat(rng(t), " and ", rng(t + 1),
                    " belong to one segment and overlap or are not sorted");
      break;
    default:
      break;
  }
  throw std::invalid_argument(concat("tessera::", fn, ": ", what));
}

/// Elementary index of each range end point: lower_bound in the sorted unique end points.
template <class MemorySpace>
struct ElementaryIntervals {
  Kokkos::View<int*, MemorySpace> points;  // sorted unique end points, points(0) = 0
  int count;                               // number of points
  KOKKOS_INLINE_FUNCTION int index(int x) const { return lower_bound(points.data(), count, x); }
};

/// Visits the elementary intervals of segment a's ranges that segment b's ranges do not cover
/// (b < 0: covers nothing), as half-open intervals [u0, u1) of elementary indices.
template <class MemorySpace, class Visit>
KOKKOS_INLINE_FUNCTION void for_each_uncovered(const BlockSparseAxis<MemorySpace>& axis,
                                               const ElementaryIntervals<MemorySpace>& elem, int a,
                                               int b, const Visit& visit) {
  auto empty = [&](int q) { return axis.segments(q, 0) == axis.segments(q, 1); };
  if (empty(a)) return;
  const int a_begin = a == 0 ? 0 : axis.slices(a - 1);
  const int a_end   = axis.slices(a);
  int b_next = 0, b_end = 0;
  if (b >= 0 && !empty(b)) {
    b_next = b == 0 ? 0 : axis.slices(b - 1);
    b_end  = axis.slices(b);
  }
  for (int l = a_begin; l < a_end; ++l) {
    int cur       = elem.index(axis.ranges(l, 0));
    const int end = elem.index(axis.ranges(l, 1));
    while (b_next < b_end && elem.index(axis.ranges(b_next, 1)) <= cur)
      ++b_next;
    for (int k = b_next; cur < end; ++k) {
      const int k0 = k < b_end ? elem.index(axis.ranges(k, 0)) : end;
      if (k0 >= end) {
        visit(cur, end);
        break;
      }
      if (k0 > cur) visit(cur, k0);
      const int k1 = elem.index(axis.ranges(k, 1));
      cur          = cur > k1 ? cur : k1;
    }
  }
}

/// Run boundaries of the coverage columns: `direction` -1 gives run starts (u in U(q) minus
/// U(q-1)), +1 run ends (u in U(q) minus U(q+1)). Counts them per segment (scan), then writes
/// the keys u * Q + q.
template <class MemorySpace>
struct RunBoundaries {
  using value_type = std::int64_t;
  BlockSparseAxis<MemorySpace> axis;
  ElementaryIntervals<MemorySpace> elem;
  Kokkos::View<std::int64_t*, MemorySpace> keys;  // empty while counting
  int direction;

  KOKKOS_FUNCTION int neighbour(int q) const {
    const int r = q + direction;
    return r >= 0 && r < axis.segment_count() ? r : -1;
  }
  KOKKOS_FUNCTION void operator()(int q, std::int64_t& offset, bool final) const {
    const std::int64_t qs = axis.segment_count();
    std::int64_t pos      = offset;
    for_each_uncovered(axis, elem, q, neighbour(q), [&](int u0, int u1) {
      if (final && keys.extent(0) > 0) {
        for (int u = u0; u < u1; ++u)
          keys(pos + (u - u0)) = static_cast<std::int64_t>(u) * qs + q;
      }
      pos += u1 - u0;
    });
    offset = pos;
  }
};

/// Sorted unique end points of all ranges of a direction, with 0 and n_inner.
template <class ExecSpace, class MemorySpace>
ElementaryIntervals<MemorySpace> elementary_intervals(const ExecSpace& space,
                                                      const BlockSparseAxis<MemorySpace>& axis,
                                                      int n_inner) {
  const int p = axis.range_count();
  Kokkos::View<int*, MemorySpace> points(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::end_points"),
      2 * p + 2);
  const auto ranges = axis.ranges;
  Kokkos::parallel_for(
      "tessera::cluster::collect_end_points", Kokkos::RangePolicy<ExecSpace>(space, 0, p + 1),
      KOKKOS_LAMBDA(int r) {
        points(2 * r)     = r < p ? ranges(r, 0) : 0;
        points(2 * r + 1) = r < p ? ranges(r, 1) : n_inner;
      });
  sort_view(space, points);
  Kokkos::View<int*, MemorySpace> unique(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::elementary"),
      2 * p + 2);
  int count = 0;
  Kokkos::parallel_scan(
      "tessera::cluster::unique_end_points", Kokkos::RangePolicy<ExecSpace>(space, 0, 2 * p + 2),
      KOKKOS_LAMBDA(int t, int& pos, bool final) {
        if (t == 0 || points(t) != points(t - 1)) {
          if (final) unique(pos) = points(t);
          ++pos;
        }
      },
      count);
  return {unique, count};
}

/// The transposed direction: segments are the elementary intervals of the inner index, and
/// each lists the runs of consecutive outer segments that cover it (merged into one range).
template <class ExecSpace, class MemorySpace>
BlockSparseAxis<MemorySpace> transpose_axis(const ExecSpace& space,
                                            const BlockSparseAxis<MemorySpace>& fwd, int n_inner) {
  const auto elem   = elementary_intervals(space, fwd, n_inner);
  const int q       = fwd.segment_count();
  const int s       = elem.count - 1;  // elementary intervals
  using Keys        = Kokkos::View<std::int64_t*, MemorySpace>;
  std::int64_t runs = 0;
  Kokkos::parallel_scan("tessera::cluster::count_runs", Kokkos::RangePolicy<ExecSpace>(space, 0, q),
                        RunBoundaries<MemorySpace>{fwd, elem, Keys(), -1}, runs);
  require_int_extent("BlockSparseRanges", "transposed ranges", static_cast<std::size_t>(runs));
  const int r = static_cast<int>(runs);
  Keys starts(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::run_starts"), r);
  Keys ends(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::run_ends"),
            r);
  Kokkos::parallel_scan("tessera::cluster::run_starts", Kokkos::RangePolicy<ExecSpace>(space, 0, q),
                        RunBoundaries<MemorySpace>{fwd, elem, starts, -1});
  Kokkos::parallel_scan("tessera::cluster::run_ends", Kokkos::RangePolicy<ExecSpace>(space, 0, q),
                        RunBoundaries<MemorySpace>{fwd, elem, ends, +1});
  sort_view(space, starts);
  sort_view(space, ends);

  BlockSparseAxis<MemorySpace> bwd;
  bwd.segments = IndexRanges<MemorySpace>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::segments"), s);
  bwd.slices = Kokkos::View<int*, MemorySpace>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::slices"), s);
  bwd.ranges = IndexRanges<MemorySpace>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::ranges"), r);
  Kokkos::View<int*, MemorySpace> run_column(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::run_columns"), r);
  const auto out_ranges = bwd.ranges;
  const auto fwd_seg    = fwd.segments;
  const std::int64_t qs = q;
  Kokkos::parallel_for(
      "tessera::cluster::merge_runs", Kokkos::RangePolicy<ExecSpace>(space, 0, r),
      KOKKOS_LAMBDA(int k) {
        // the k-th start and the k-th end in (column, segment) order delimit the same run
        const int first  = static_cast<int>(starts(k) % qs);
        const int last   = static_cast<int>(ends(k) % qs);
        out_ranges(k, 0) = fwd_seg(first, 0);
        out_ranges(k, 1) = fwd_seg(last, 1);
        run_column(k)    = static_cast<int>(starts(k) / qs);
      });
  const auto out_seg    = bwd.segments;
  const auto out_slices = bwd.slices;
  Kokkos::parallel_for(
      "tessera::cluster::transposed_segments", Kokkos::RangePolicy<ExecSpace>(space, 0, s),
      KOKKOS_LAMBDA(int u) {
        out_seg(u, 0) = elem.points(u);
        out_seg(u, 1) = elem.points(u + 1);
        out_slices(u) = upper_bound(run_column.data(), r, u);
      });
  return bwd;
}

/// Fills the team tables: for team size 2^level, segment q owns teams
/// [tile_starts(level * (Q + 1) + q), tile_starts(level * (Q + 1) + q + 1)).
template <class ExecSpace, class MemorySpace>
void build_team_tables(const ExecSpace& space, BlockSparseAxis<MemorySpace>& axis) {
  const int q      = axis.segment_count();
  axis.tile_starts = Kokkos::View<int*, MemorySpace>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::cluster::tile_starts"),
      static_cast<std::size_t>(tile_levels) * (q + 1));
  const auto seg   = axis.segments;
  const auto table = axis.tile_starts;
  for (int level = 0; level < tile_levels; ++level) {
    int total = 0;
    Kokkos::parallel_scan(
        "tessera::cluster::team_table", Kokkos::RangePolicy<ExecSpace>(space, 0, q + 1),
        KOKKOS_LAMBDA(int t, int& pos, bool final) {
          if (final) table(level * (q + 1) + t) = pos;
          if (t < q) pos += ((seg(t, 1) - seg(t, 0)) + (1 << level) - 1) >> level;
        },
        total);
    axis.teams[level] = total;
  }
}

/// Number of (outer, inner) pairs a direction covers.
template <class ExecSpace, class MemorySpace>
std::int64_t covered_pairs(const ExecSpace& space, const BlockSparseAxis<MemorySpace>& axis) {
  std::int64_t pairs = 0;
  const auto seg     = axis.segments;
  const auto slices  = axis.slices;
  const auto ranges  = axis.ranges;
  Kokkos::parallel_reduce(
      "tessera::cluster::covered_pairs",
      Kokkos::RangePolicy<ExecSpace>(space, 0, axis.segment_count()),
      KOKKOS_LAMBDA(int q, std::int64_t& sum) {
        std::int64_t inner = 0;
        for (int l = q == 0 ? 0 : slices(q - 1); l < slices(q); ++l)
          inner += ranges(l, 1) - ranges(l, 0);
        sum += inner * (seg(q, 1) - seg(q, 0));
      },
      pairs);
  return pairs;
}

}  // namespace Impl
}  // namespace tessera
