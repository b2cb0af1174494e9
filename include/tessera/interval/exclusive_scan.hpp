// Exclusive scan of interval counts: the offsets that the interval primitives take.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>
#include <tessera/core/impl/value_bounds.hpp>
#include <tessera/interval/impl/scan_counts.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

/// offsets[k] = counts[0] + ... + counts[k - 1] for k in [0, n), n = counts.extent(0); returns
/// the total counts[0] + ... + counts[n - 1] as a 64-bit host value (so the call fences).
///
/// counts and offsets are rank-1 integer Views of the same extent, accessible from `space`.
/// Throws before writing anything: std::invalid_argument for a negative count (naming the
/// first one), mismatched extents or offsets sharing memory with counts; std::length_error when the
/// total does not fit the offsets' value type or 64 bits, or n exceeds 2^31 - 1. Three passes over
/// the counts (bounds, total, scan), one over the offsets; no allocation.
template <class ExecSpace, class Counts, class Offsets>
std::int64_t exclusive_scan(const ExecSpace& space, const Counts& counts, const Offsets& offsets) {
  static_assert(Kokkos::is_view<Counts>::value && Counts::rank == 1 &&
                    std::is_integral<typename Counts::non_const_value_type>::value,
                "tessera::exclusive_scan: counts must be a rank-1 Kokkos View of integers");
  static_assert(Kokkos::is_view<Offsets>::value && Offsets::rank == 1 &&
                    std::is_integral<typename Offsets::value_type>::value &&
                    !std::is_const<typename Offsets::value_type>::value,
                "tessera::exclusive_scan: offsets must be a writable rank-1 Kokkos View of "
                "integers");
  static_assert(
      Kokkos::SpaceAccessibility<ExecSpace, typename Counts::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecSpace, typename Offsets::memory_space>::accessible,
      "tessera::exclusive_scan: counts and offsets must be accessible from the "
      "execution space");
  using Count         = typename Counts::non_const_value_type;
  using Offset        = typename Offsets::non_const_value_type;
  constexpr auto fn   = "exclusive_scan";
  const std::size_t n = counts.extent(0);
  Impl::require_int_extent(fn, "counts", n);
  Impl::require_equal(fn, "offsets", "extent", offsets.extent(0), n);
  Impl::require(!Impl::views_share_memory(offsets, counts), fn,
                "offsets shares memory with counts (the scan is not in place)");
  if (n == 0) return 0;
  const int ni = static_cast<int>(n);

  const auto bounds = Impl::value_bounds(space, "tessera::interval::count_bounds", counts, ni);
  if (std::is_signed<Count>::value && bounds.min_val < Count(0) + 0) {
    Kokkos::View<Count*, Kokkos::HostSpace> host("tessera::exclusive_scan::counts", n);
    Kokkos::deep_copy(space, host, counts);
    space.fence();
    std::size_t k = 0;
    while (!(host(k) < Count(0) + 0))
      ++k;
    throw std::invalid_argument(Impl::concat("tessera::exclusive_scan: counts[", k,
                                             "] is negative (got ", +host(k),
                                             ", expected a count >= 0)"));
  }
  // A sum of n values below 2^63 / n stays below 2^63.
  const auto max_count = static_cast<std::uint64_t>(bounds.max_val);
  if (max_count > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / n) {
    throw std::length_error(Impl::concat("tessera::exclusive_scan: counts up to ", +bounds.max_val,
                                         " over ", n, " intervals may total 2^63 or more"));
  }
  std::int64_t total = 0;
  Kokkos::parallel_reduce("tessera::interval::count_total",
                          Kokkos::RangePolicy<ExecSpace>(space, 0, ni),
                          Impl::CountsToInt64<Counts>{counts}, total);
  if (static_cast<std::uint64_t>(total) >
      static_cast<std::uint64_t>(std::numeric_limits<Offset>::max())) {
    throw std::length_error(Impl::concat("tessera::exclusive_scan: the total count ", total,
                                         " does not fit the offsets' value type (maximum ",
                                         +std::numeric_limits<Offset>::max(), ")"));
  }
  Kokkos::parallel_scan("tessera::interval::exclusive_scan",
                        Kokkos::RangePolicy<ExecSpace>(space, 0, ni),
                        Impl::ExclusiveScanCounts<Counts, Offsets>{counts, offsets});
  return total;
}

}  // namespace tessera
