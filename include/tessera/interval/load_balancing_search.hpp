// Load-balancing search: the owning interval of every output item of a set of intervals.
#pragma once

#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>
#include <tessera/interval/impl/check_offsets.hpp>
#include <tessera/interval/impl/fill_operations.hpp>
#include <tessera/interval/impl/load_balance.hpp>
#include <tessera/interval/interval_options.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

/// owner[i] = k with offsets[k] <= i < offsets[k + 1] (offsets[n] taken as total), for every
/// output item i in [0, total): the interval that generates item i, where offsets is the
/// exclusive scan of the interval counts (exclusive_scan). Empty intervals own no item.
///
/// Each team takes the same number of (items + intervals) on the merge path of the items and
/// the offsets, so any distribution of counts (runs of zeros, one huge interval) balances.
/// owner is a writable rank-1 integer View of extent >= total, sharing no memory with offsets.
/// Throws before any write: total outside [0, 2^31 - 1], owner too short or sharing memory with
/// offsets, and (options.check, the default: one pass over the
/// offsets and a fence) offsets that do not start at 0, decrease, or exceed total.
/// O(total + n) work; 8 bytes of memory per piece of options.tile.items_per_team merge-path
/// entries, allocated for the call or taken from options.workspace (tessera::Workspace; a size
/// query runs nothing).
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
  const Impl::ProfilingRegion region("tessera::interval::", fn);
  Impl::require(total < 0 || owner.extent(0) >= static_cast<std::size_t>(total), fn,
                "owner is too short (got extent ", owner.extent(0),
                ", expected at least total = ", total, ")");
  using OwnerValue = typename Owner::non_const_value_type;
  Impl::require(offsets.extent(0) == 0 ||
                    offsets.extent(0) - 1 <=
                        static_cast<std::uint64_t>(std::numeric_limits<OwnerValue>::max()),
                fn, "owner's value type cannot hold interval ", offsets.extent(0) - 1);
  static_assert(Kokkos::is_view<Offsets>::value,
                "tessera::load_balancing_search: offsets must be a Kokkos View");
  Impl::require(!Impl::views_share_memory(owner, offsets), fn, "owner shares memory with offsets");
  const Impl::StoreOwner<Owner> op{owner};
  const IntervalTile tile = Impl::interval_tile(space, fn, total, offsets, op, options.tile);
  Impl::check_offsets(space, fn, total, offsets, options);
  Impl::for_each_item_with_owner(space, "tessera::interval::load_balancing_search", total, offsets,
                                 op, tile, options.workspace);
}

}  // namespace tessera
