// Load-balancing search: the owning interval of every output item of a set of intervals.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/interval/impl/load_balance.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

/// Options of the interval primitives.
struct IntervalOptions {
  /// Validate the offsets before running (one pass over them and a fence): offsets[0] = 0,
  /// non-decreasing, offsets[n - 1] <= total. Off, the call neither reads them twice nor
  /// synchronises, and offsets that break these rules give unspecified owners (never an access
  /// outside the Views).
  bool check = true;
};

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

/// Host checks shared by the interval primitives: total fits the kernels' indices, and (with
/// options.check) the offsets follow the rules of IntervalOptions::check.
template <class ExecSpace, class Offsets>
void check_offsets(const ExecSpace& space, const char* fn, std::int64_t total,
                   const Offsets& offsets, const IntervalOptions& options) {
  static_assert(Kokkos::is_view<Offsets>::value && Offsets::rank == 1 &&
                    std::is_integral<typename Offsets::non_const_value_type>::value,
                "tessera: offsets must be a rank-1 Kokkos View of integers");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Offsets::memory_space>::accessible,
                "tessera: offsets must be accessible from the execution space");
  const std::size_t n = offsets.extent(0);
  require_int_extent(fn, "offsets", n);
  if (total < 0 || total > std::numeric_limits<int>::max()) {
    throw std::length_error(concat("tessera::", fn, ": total ", total,
                                   " is outside the supported range [0, ",
                                   std::numeric_limits<int>::max(), "]"));
  }
  require(n > 0 || total == 0, fn,
          concat("offsets is empty but total = ", total, ": no interval owns the items"));
  if (!options.check || n == 0) return;
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

template <class Owner>
struct StoreOwner {
  Owner owner;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t k) const {
    owner(i) = static_cast<typename Owner::non_const_value_type>(k);
  }
};

}  // namespace Impl

/// owner[i] = k with offsets[k] <= i < offsets[k + 1] (offsets[n] taken as total), for every
/// output item i in [0, total): the interval that generates item i, where offsets is the
/// exclusive scan of the interval counts (exclusive_scan). Empty intervals own no item.
///
/// Each team takes the same number of (items + intervals) on the merge path of the items and
/// the offsets, so any distribution of counts (runs of zeros, one huge interval) balances.
/// owner is a writable rank-1 integer View of extent >= total. Throws before any write: total
/// outside [0, 2^31 - 1], owner too short, and (options.check, the default: one pass over the
/// offsets and a fence) offsets that do not start at 0, decrease, or exceed total.
/// O(total + n) work; allocates (total + n) / 4096 + 2 integers on host backends, / 1024 on GPUs.
template <class ExecSpace, class Offsets, class Owner>
void load_balancing_search(const ExecSpace& space, std::int64_t total, const Offsets& offsets,
                           const Owner& owner, const IntervalOptions& options = {}) {
  static_assert(Kokkos::is_view<Owner>::value && Owner::rank == 1 &&
                    std::is_integral<typename Owner::value_type>::value &&
                    !std::is_const<typename Owner::value_type>::value,
                "tessera::load_balancing_search: owner must be a writable rank-1 Kokkos View of "
                "integers");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Owner::memory_space>::accessible,
                "tessera::load_balancing_search: owner must be accessible from the execution "
                "space");
  constexpr auto fn = "load_balancing_search";
  Impl::check_offsets(space, fn, total, offsets, options);
  Impl::require(owner.extent(0) >= static_cast<std::size_t>(total), fn,
                Impl::concat("owner is too short (got extent ", owner.extent(0),
                             ", expected at least total = ", total, ")"));
  using OwnerValue = typename Owner::non_const_value_type;
  Impl::require(offsets.extent(0) == 0 ||
                    offsets.extent(0) - 1 <=
                        static_cast<std::uint64_t>(std::numeric_limits<OwnerValue>::max()),
                fn,
                Impl::concat("owner's value type cannot hold interval ", offsets.extent(0) - 1));
  Impl::for_each_item_with_owner(space, "tessera::interval::load_balancing_search", total, offsets,
                                 Impl::StoreOwner<Owner>{owner});
}

}  // namespace tessera
