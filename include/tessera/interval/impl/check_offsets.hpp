// The checks of the offsets that every interval primitive runs: total and the number of
// intervals on the host, and under IntervalOptions::check the offsets themselves (one pass).
#pragma once

#include <tessera/core/impl/call_memory.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/interval/interval_options.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace tessera {
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
  if (!options.check || n == 0 || measures_only(options.workspace)) return;
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
