// The row moves behind permute_rows.hpp and sort_clusters (clustering.hpp): checks of the Views
// whose rows move and of a permutation, and the kernel dst(to(k), :) = src(from(k), :) over the
// rows of rank-1 and rank-2 Views of any layout.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/value_bounds.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>
#include <type_traits>

namespace tessera {
namespace Impl {

template <class View>
constexpr void check_row_view(const char* /*fn*/) {
  static_assert(Kokkos::is_view<View>::value && (View::rank == 1 || View::rank == 2),
                "tessera: rows are permuted in rank-1 and rank-2 Kokkos Views");
  static_assert(std::is_trivially_copyable<typename View::value_type>::value,
                "tessera: permuted Views hold a trivially copyable type");
}

/// Number of scalars in one row of a rank-1 or rank-2 View.
template <class View>
std::size_t row_width(const View& v) {
  if constexpr (View::rank == 2) {
    return v.extent(1);
  } else {
    (void)v;
    return 1;
  }
}

/// Element c of row `row` of a rank-1 (c = 0) or rank-2 View.
template <class View>
KOKKOS_FORCEINLINE_FUNCTION typename View::reference_type row_element(const View& v, int row,
                                                                      int c) {
  if constexpr (View::rank == 2) {
    return v(row, c);
  } else {
    (void)c;
    return v(row);
  }
}

/// Row numbers: the identity, or the values of a permutation View.
struct IdentityRows {
  KOKKOS_FORCEINLINE_FUNCTION int operator()(int k) const { return k; }
};
template <class Perm>
struct PermutedRows {
  Perm perm;
  KOKKOS_FORCEINLINE_FUNCTION int operator()(int k) const { return static_cast<int>(perm(k)); }
};

/// dst(to(k), :) = src(from(k), :) for every k in [0, rows).
template <class Dst, class Src, class To, class From>
struct MoveRows {
  Dst dst;
  Src src;
  To to;
  From from;
  int width;
  KOKKOS_FUNCTION void operator()(int k) const {
    const int d = to(k), s = from(k);
    for (int c = 0; c < width; ++c)
      row_element(dst, d, c) = row_element(src, s, c);
  }
};

template <class ExecSpace, class Dst, class Src, class To, class From>
void move_rows(const ExecSpace& space, const char* label, const Dst& dst, const Src& src,
               const To& to, const From& from) {
  const int rows  = static_cast<int>(src.extent(0));
  const int width = static_cast<int>(row_width(src));
  if (rows == 0 || width == 0) return;
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace>(space, 0, rows),
                       MoveRows<Dst, Src, To, From>{dst, src, to, from, width});
}

/// Checks that perm is a rank-1 integer View of `rows` values in [0, rows) (one reduction;
/// fences). Duplicates are not detected.
template <class ExecSpace, class Perm>
void check_permutation(const ExecSpace& space, const char* fn, const Perm& perm, std::size_t rows) {
  static_assert(Kokkos::is_view<Perm>::value && Perm::rank == 1 &&
                    std::is_integral<typename Perm::non_const_value_type>::value,
                "tessera: a permutation is a rank-1 Kokkos View of integers");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Perm::memory_space>::accessible,
                "tessera: the permutation must be accessible from the execution space");
  require_int_extent(fn, "perm", perm.extent(0));
  require_equal(fn, "perm", "extent", perm.extent(0), rows);
  if (rows == 0) return;
  const auto bounds =
      value_bounds(space, "tessera::cluster::check_permutation", perm, static_cast<int>(rows));
  const bool inside = bounds.min_val >= 0 && static_cast<std::size_t>(bounds.max_val) < rows;
  require(inside, fn, "perm values must lie in [0, ", rows, ") (got min ", +bounds.min_val,
          ", max ", +bounds.max_val, ", expected values in [0, ", rows, "))");
}

/// A contiguous copy of a rank-1 or rank-2 View (any layout), allocated and filled on `space`.
template <class ExecSpace, class View>
auto contiguous_copy(const ExecSpace& space, const View& v) {
  using T   = typename View::non_const_value_type;
  using Mem = typename ExecSpace::memory_space;
  const auto alloc =
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("tessera::cluster::rows"));
  if constexpr (View::rank == 2) {
    Kokkos::View<T**, Kokkos::LayoutRight, Mem> copy(alloc, v.extent(0), v.extent(1));
    move_rows(space, "tessera::cluster::copy_rows", copy, v, IdentityRows{}, IdentityRows{});
    return copy;
  } else {
    Kokkos::View<T*, Mem> copy(alloc, v.extent(0));
    move_rows(space, "tessera::cluster::copy_rows", copy, v, IdentityRows{}, IdentityRows{});
    return copy;
  }
}

/// permute_rows without the checks (perm already validated). Does not fence.
template <class ExecSpace, class Perm, class View>
void gather_rows_in_place(const ExecSpace& space, const Perm& perm, const View& view) {
  if (view.extent(0) == 0 || row_width(view) == 0) return;
  const auto copy = contiguous_copy(space, view);
  move_rows(space, "tessera::cluster::permute_rows", view, copy, IdentityRows{},
            PermutedRows<Perm>{perm});
}

}  // namespace Impl
}  // namespace tessera
