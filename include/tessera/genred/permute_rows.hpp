// Row permutations of Views: applying the permutation that sorted a point cloud to its other
// per-point data, and bringing results computed on sorted data back to the original order.
#pragma once

#include <tessera/core/errors.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Checks that perm is a rank-1 integer View of `rows` entries, all in [0, rows) (one reduction;
/// fences).
template <class ExecSpace, class Perm>
void check_permutation(const ExecSpace& space, const char* fn, const Perm& perm, std::size_t rows) {
  static_assert(Perm::rank == 1 && std::is_integral_v<typename Perm::non_const_value_type>,
                "tessera: a permutation is a rank-1 View of integers");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Perm::memory_space>::accessible,
                "tessera: the permutation must be accessible from the execution space");
  require_equal(fn, "perm", "extent", perm.extent(0), rows);
  require_int_extent(fn, "perm", rows);
  const int n = static_cast<int>(rows);
  int outside = 0;
  Kokkos::parallel_reduce(
      "tessera::genred::check_permutation", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int k, int& count) { count += perm(k) < 0 || perm(k) >= n; }, outside);
  require(outside == 0, fn, concat("perm holds ", outside, " values outside [0, ", rows, ")"));
}

/// Number of scalars in one row of a rank-1 or rank-2 View.
template <class View>
int row_width(const View& v) {
  static_assert(View::rank == 1 || View::rank == 2,
                "tessera: rows are permuted in rank-1 and rank-2 Views");
  if constexpr (View::rank == 2) {
    return static_cast<int>(v.extent(1));
  } else {
    return 1;
  }
}

template <class View>
KOKKOS_INLINE_FUNCTION auto& element(const View& v, int row, int c) {
  if constexpr (View::rank == 2) {
    return v(row, c);
  } else {
    (void)c;
    return v(row);
  }
}

/// dst(to(k), :) = src(from(k), :) for k in [0, rows); `to` and `from` map row numbers.
template <class ExecSpace, class Dst, class Src, class To, class From>
void move_rows(const ExecSpace& space, const Dst& dst, const Src& src, const To& to,
               const From& from) {
  const int rows  = static_cast<int>(src.extent(0));
  const int width = row_width(src);
  Kokkos::parallel_for(
      "tessera::genred::move_rows", Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
      KOKKOS_LAMBDA(int k) {
        const int d = to(k), s = from(k);
        for (int c = 0; c < width; ++c)
          element(dst, d, c) = element(src, s, c);
      });
}

struct IdentityRow {
  KOKKOS_INLINE_FUNCTION int operator()(int k) const { return k; }
};
template <class Perm>
struct PermutedRow {
  Perm perm;
  KOKKOS_INLINE_FUNCTION int operator()(int k) const { return static_cast<int>(perm(k)); }
};

/// A contiguous copy of a rank-1 or rank-2 View (any layout), allocated on `space`.
template <class ExecSpace, class View>
auto contiguous_copy(const ExecSpace& space, const View& v) {
  using T    = typename View::non_const_value_type;
  using Mem  = typename ExecSpace::memory_space;
  auto alloc = Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::row_copy");
  auto tmp   = [&] {
    if constexpr (View::rank == 2) {
      return Kokkos::View<T**, Kokkos::LayoutRight, Mem>(alloc, v.extent(0), v.extent(1));
    } else {
      return Kokkos::View<T*, Mem>(alloc, v.extent(0));
    }
  }();
  move_rows(space, tmp, v, IdentityRow{}, IdentityRow{});
  return tmp;
}

/// permute_rows without the checks (perm already validated).
template <class ExecSpace, class Perm, class View>
void gather_rows_in_place(const ExecSpace& space, const Perm& perm, const View& view) {
  const auto tmp = contiguous_copy(space, view);
  move_rows(space, view, tmp, IdentityRow{}, PermutedRow<Perm>{perm});
}

}  // namespace Impl

/// In place: row k of `view` becomes the old row perm(k), for k in [0, n) (what sort_clusters
/// does to the Views it is given; use it for any other per-point data of a sorted cloud).
/// view: rank-1 or rank-2 View of any layout and trivially copyable type, n = view.extent(0);
/// perm: rank-1 integer View of n values in [0, n) (checked: std::invalid_argument), a
/// permutation (not checked: repeated values duplicate rows). Work O(n * width), a temporary
/// copy of `view`; fences once (the range check).
template <class ExecSpace, class Perm, class View>
void permute_rows(const ExecSpace& space, const Perm& perm, const View& view) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                "tessera::permute_rows: the View must be accessible from the execution space");
  Impl::row_width(view);
  Impl::check_permutation(space, "permute_rows", perm, view.extent(0));
  Impl::gather_rows_in_place(space, perm, view);
}

/// out(perm(k), :) = sorted(k, :) for k in [0, n): the inverse of permute_rows, to bring results
/// computed on sorted points back to the original order. sorted and out: rank-1 or rank-2 Views
/// of equal extents (they must not overlap); perm as for permute_rows. Work O(n * width); fences
/// once (the range check).
template <class ExecSpace, class Perm, class Sorted, class Out>
void unpermute_rows(const ExecSpace& space, const Perm& perm, const Sorted& sorted,
                    const Out& out) {
  static_assert(Sorted::rank == Out::rank,
                "tessera::unpermute_rows: sorted and out must have the same rank");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Sorted::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Out::memory_space>::accessible,
                "tessera::unpermute_rows: the Views must be accessible from the execution space");
  Impl::require_equal("unpermute_rows", "out", "rows", out.extent(0), sorted.extent(0));
  Impl::require_equal("unpermute_rows", "out", "columns", Impl::row_width(out),
                      Impl::row_width(sorted));
  Impl::check_permutation(space, "unpermute_rows", perm, sorted.extent(0));
  Impl::move_rows(space, out, sorted, Impl::PermutedRow<Perm>{perm}, Impl::IdentityRow{});
}

}  // namespace tessera
