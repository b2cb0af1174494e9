// IntervalExpand: every value repeated as many times as its interval's count.
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
#include <type_traits>

namespace tessera {

/// out[i] = values[k] for every item i in [0, total) of interval k (offsets[k] <= i <
/// offsets[k + 1], offsets[n] taken as total): values[k] repeated counts[k] times, in order,
/// where offsets is the exclusive scan of the counts (exclusive_scan returns total).
///
/// values and out are rank-1 Views of the same trivially copyable type (int, double, structs),
/// values of extent n = offsets.extent(0), out of extent >= total, sharing memory with neither
/// values nor offsets. Throws before any write on mismatched extents, an out sharing memory with
/// values or offsets, and, with options.check (the default; one pass and a fence), on offsets
/// that do not start at 0, decrease or exceed total. Load balanced by load_balancing_search's
/// merge path: any distribution of counts costs O(total + n). options.workspace (optional):
/// memory reused across calls (tessera::Workspace; a size query runs nothing).
template <class ExecSpace, class Offsets, class Values, class Out>
void interval_expand(const ExecSpace& space, std::int64_t total, const Offsets& offsets,
                     const Values& values, const Out& out, const IntervalOptions& options = {}) {
  static_assert(Kokkos::is_view<Values>::value && Values::rank == 1 &&
                    Kokkos::is_view<Out>::value && Out::rank == 1,
                "tessera::interval_expand: values and out must be rank-1 Kokkos Views");
  static_assert(
      std::is_same<typename Values::non_const_value_type, typename Out::value_type>::value,
      "tessera::interval_expand: out must be a writable View of values' type");
  static_assert(std::is_trivially_copyable<typename Out::value_type>::value,
                "tessera::interval_expand: the value type must be trivially copyable");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Values::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Out::memory_space>::accessible,
                "tessera::interval_expand: values and out must be accessible from the execution "
                "space");
  constexpr auto fn = "interval_expand";
  const Impl::ProfilingRegion region("tessera::interval::", fn);
  Impl::require_equal(fn, "values", "extent", values.extent(0), offsets.extent(0));
  Impl::require(total < 0 || out.extent(0) >= static_cast<std::size_t>(total), fn,
                "out is too short (got extent ", out.extent(0),
                ", expected at least total = ", total, ")");
  static_assert(Kokkos::is_view<Offsets>::value,
                "tessera::interval_expand: offsets must be a Kokkos View");
  Impl::require(!Impl::views_share_memory(out, values), fn, "out shares memory with values");
  Impl::require(!Impl::views_share_memory(out, offsets), fn, "out shares memory with offsets");
  const Impl::ExpandValue<Values, Out> op{values, out};
  const IntervalTile tile = Impl::interval_tile(space, fn, total, offsets, op, options.tile);
  Impl::check_offsets(space, fn, total, offsets, options);
  Impl::for_each_item_with_owner(space, "tessera::interval::interval_expand", total, offsets, op,
                                 tile, options.workspace);
}

}  // namespace tessera
