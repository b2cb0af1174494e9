// The checks of the interval moves that read the intervals on the device: every source and
// destination range inside its sequence (one pass), and destinations that do not overlap
// (a sort, under IntervalOptions::check_overlap).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/sort_view.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <string>

namespace tessera {
namespace Impl {

/// The Min reductions' identity: nothing found.
inline constexpr std::int64_t none_found = std::numeric_limits<std::int64_t>::max();

/// Items of interval k: offsets[k + 1] - offsets[k], with offsets[n] taken as total.
template <class Offsets>
KOKKOS_INLINE_FUNCTION std::int64_t interval_count(const Offsets& offsets, std::int64_t total,
                                                   std::int64_t k) {
  const std::int64_t n   = static_cast<std::int64_t>(offsets.extent(0));
  const std::int64_t end = k + 1 < n ? static_cast<std::int64_t>(offsets(k + 1)) : total;
  return end - static_cast<std::int64_t>(offsets(k));
}

/// Whether [first, first + count) lies inside [0, extent), without overflow.
KOKKOS_INLINE_FUNCTION bool range_inside(std::int64_t first, std::int64_t count,
                                         std::int64_t extent) {
  return first >= 0 && first <= extent && count <= extent - first;
}

/// 2k for the first interval k whose source range leaves the input, 2k + 1 for a destination
/// range outside the output.
template <class Offsets, class Gather, class Scatter>
struct FirstBadRange {
  Offsets offsets;
  Gather gather;
  Scatter scatter;
  std::int64_t total, input_extent, output_extent;
  KOKKOS_INLINE_FUNCTION void operator()(int k, std::int64_t& first) const {
    const std::int64_t count = interval_count(offsets, total, k);
    std::int64_t bad         = none_found;
    if (!range_inside(static_cast<std::int64_t>(scatter(k)), count, output_extent)) {
      bad = 2 * static_cast<std::int64_t>(k) + 1;
    }
    if (!range_inside(static_cast<std::int64_t>(gather(k)), count, input_extent)) {
      bad = 2 * static_cast<std::int64_t>(k);
    }
    if (bad < first) first = bad;
  }
};

/// Throws if an interval's source range leaves the input or its destination range leaves the
/// output (offsets already validated): one pass over the intervals and a fence.
template <class ExecSpace, class Offsets, class Gather, class Scatter>
void check_move_ranges(const ExecSpace& space, const char* fn, std::int64_t total,
                       const Offsets& offsets, const Gather& gather, const Scatter& scatter,
                       std::int64_t input_extent, std::int64_t output_extent) {
  const int n        = static_cast<int>(offsets.extent(0));
  std::int64_t first = none_found;
  Kokkos::parallel_reduce("tessera::interval::check_move_ranges",
                          Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                          FirstBadRange<Offsets, Gather, Scatter>{offsets, gather, scatter, total,
                                                                  input_extent, output_extent},
                          Kokkos::Min<std::int64_t>(first));
  if (first == none_found) return;
  const std::int64_t k      = first / 2;
  const bool is_destination = first % 2 == 1;
  // the offending interval's range, read back for the message
  Kokkos::View<std::int64_t[2], typename ExecSpace::memory_space> range(
      "tessera::interval::bad_range");
  Kokkos::parallel_for(
      "tessera::interval::read_bad_range", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
      KOKKOS_LAMBDA(int) {
        range(0) = is_destination ? static_cast<std::int64_t>(scatter(k))
                                  : static_cast<std::int64_t>(gather(k));
        range(1) = interval_count(offsets, total, k);
      });
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), range);
  throw std::invalid_argument(concat(
      "tessera::", fn, ": interval ", k, " ", is_destination ? "writes" : "reads", " outside the ",
      is_destination ? "output" : "input", " (got items [", host(0), ", ", host(0) + host(1),
      "), expected within [0, ", is_destination ? output_extent : input_extent, "))"));
}

/// Throws if two intervals write the same output item: the destination starts and ends,
/// sorted separately, pair up as disjoint ranges exactly when no item is covered twice (the
/// i-th end must not pass the (i + 1)-th start). O(n log n) work, 2n integers, a fence.
template <class ExecSpace, class Offsets, class Scatter>
void check_disjoint_destinations(const ExecSpace& space, const char* fn, std::int64_t total,
                                 const Offsets& offsets, const Scatter& scatter) {
  const int n = static_cast<int>(offsets.extent(0));
  if (n < 2) return;
  using Keys = Kokkos::View<std::int64_t*, typename ExecSpace::memory_space>;
  const Keys starts(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                       std::string("tessera::interval::destination_starts")),
                    n);
  const Keys ends(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                     std::string("tessera::interval::destination_ends")),
                  n);
  Kokkos::parallel_for(
      "tessera::interval::destination_ranges", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int k) {
        starts(k) = static_cast<std::int64_t>(scatter(k));
        ends(k)   = starts(k) + interval_count(offsets, total, k);
      });
  sort_view(space, starts);
  sort_view(space, ends);
  std::int64_t first = none_found;
  Kokkos::parallel_reduce(
      "tessera::interval::first_overlap", Kokkos::RangePolicy<ExecSpace>(space, 0, n - 1),
      KOKKOS_LAMBDA(int i, std::int64_t& f) {
        if (ends(i) > starts(i + 1) && starts(i + 1) < f) f = starts(i + 1);
      },
      Kokkos::Min<std::int64_t>(first));
  if (first == none_found) return;
  throw std::invalid_argument(concat("tessera::", fn, ": destination ranges overlap (output item ",
                                     first, " is written by two intervals)"));
}

}  // namespace Impl
}  // namespace tessera
