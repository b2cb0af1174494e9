// Row permutations of Views: applying the permutation that sorted a point cloud (sort_clusters)
// to the cloud's other per-point data, and bringing results computed on the sorted data back to
// the original order.
//
// A row is view(k) for a rank-1 View and view(k, :) for a rank-2 View; any layout, any trivially
// copyable value type.
#pragma once

#include <tessera/cluster/impl/move_rows.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {

/// In place: row k of `view` becomes the old row perm(k), for k in [0, n):
///   view_new(k, :) = view_old(perm(k), :).
/// This is what sort_clusters does to the Views it is given; use it for any other per-point data
/// of a sorted cloud.
/// Pre-conditions: view is a rank-1 or rank-2 View (any layout, trivially copyable non-const
/// value type) with n = view.extent(0) <= INT_MAX rows; perm is a rank-1 integer View with
/// perm.extent(0) == n and values in [0, n), not sharing memory with view (all checked:
/// std::invalid_argument, before anything is written). perm should be a permutation: repeated
/// values are not detected (they duplicate rows and lose others; the caller's responsibility). Both
/// must be accessible from `space`. Complexity: O(n * width) work, a temporary copy of `view` (n *
/// width values) allocated on `space`. Fences once (the range check of perm is a reduction read on
/// the host).
template <class ExecSpace, class Perm, class View>
void permute_rows(const ExecSpace& space, const Perm& perm, const View& view) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::permute_rows: the first argument must be an execution space");
  Impl::check_row_view<View>("permute_rows");
  static_assert(!std::is_const<typename View::value_type>::value,
                "tessera::permute_rows: the View is permuted in place: it cannot be const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                "tessera::permute_rows: the View must be accessible from the execution space");
  const char* fn = "permute_rows";
  Impl::require_int_extent(fn, "view", view.extent(0));
  Impl::require_int_extent(fn, "view columns", Impl::row_width(view));
  Impl::require(!Impl::views_share_memory(view, perm), fn, "view shares memory with perm");
  Impl::check_permutation(space, fn, perm, view.extent(0));
  Impl::gather_rows_in_place(space, perm, view);
}

/// The inverse of permute_rows: out(perm(k), :) = sorted(k, :) for k in [0, n), to bring results
/// computed on sorted points back to the original order (with perm from sort_clusters).
/// Pre-conditions: sorted and out are rank-1 or rank-2 Views of the same rank (any layouts,
/// trivially copyable value types; out non-const) with equal extents, n <= INT_MAX rows; out
/// shares memory with neither sorted nor perm (checked). perm as for permute_rows: extent n, values
/// in [0, n) (checked: std::invalid_argument, before anything is written); with repeated values
/// some rows of out are written twice (which one wins is unspecified) and others not at all.
/// Complexity: O(n * width) work, no temporary. Fences once (the range check of perm).
template <class ExecSpace, class Perm, class Src, class Dst>
void unpermute_rows(const ExecSpace& space, const Perm& perm, const Src& sorted, const Dst& out) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::unpermute_rows: the first argument must be an execution space");
  Impl::check_row_view<Src>("unpermute_rows");
  Impl::check_row_view<Dst>("unpermute_rows");
  static_assert(static_cast<int>(Src::rank) == static_cast<int>(Dst::rank),
                "tessera::unpermute_rows: sorted and out must have the same rank");
  static_assert(!std::is_const<typename Dst::value_type>::value,
                "tessera::unpermute_rows: out is written: it cannot be const");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Src::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Dst::memory_space>::accessible,
                "tessera::unpermute_rows: sorted and out must be accessible from the execution "
                "space");
  const char* fn = "unpermute_rows";
  Impl::require_int_extent(fn, "sorted", sorted.extent(0));
  Impl::require_int_extent(fn, "sorted columns", Impl::row_width(sorted));
  Impl::require_equal(fn, "out", "rows", out.extent(0), sorted.extent(0));
  Impl::require_equal(fn, "out", "columns", Impl::row_width(out), Impl::row_width(sorted));
  Impl::require(!Impl::views_share_memory(out, sorted), fn, "out shares memory with sorted");
  Impl::require(!Impl::views_share_memory(out, perm), fn, "out shares memory with perm");
  Impl::check_permutation(space, fn, perm, sorted.extent(0));
  Impl::move_rows(space, "tessera::cluster::unpermute_rows", out, sorted,
                  Impl::PermutedRows<Perm>{perm}, Impl::IdentityRows{});
}

}  // namespace tessera
