// Device-side access to a group of variables (the parameters, the i- or the j-variables).
//
// Views of any rank, layout and batching are reduced to (pointer, strides) so that one kernel
// serves them all. A group packs one row of each of its variables side by side: the packed
// row is what lives in registers (the outer row) or in a scratch tile (the inner rows).
#pragma once

#include <tessera/core/span.hpp>
#include <tessera/genred/formula.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <utility>

namespace tessera {
namespace Impl {

template <class T>
struct VarAccessor {
  const T* data   = nullptr;
  std::int64_t sb = 0;  // batch stride (0: unbatched)
  std::int64_t sr = 0;  // row stride
  std::int64_t sc = 0;  // component stride
  int dim         = 0;

  template <class View>
  static VarAccessor from_view(const View& v) {
    VarAccessor a;
    a.data = v.data();
    if constexpr (View::rank == 3) {
      a.sb  = v.stride_0();
      a.sr  = v.stride_1();
      a.sc  = v.stride_2();
      a.dim = static_cast<int>(v.extent(2));
    } else {
      a.sr  = v.stride_0();
      a.sc  = v.stride_1();
      a.dim = static_cast<int>(v.extent(1));
    }
    return a;
  }
};

template <class T, class DimsT>
struct VarGroup;

template <class T, int... D>
struct VarGroup<T, Dims<D...>> {
  using dims                        = Dims<D...>;
  static constexpr int count        = sizeof...(D);
  static constexpr int static_width = StaticWidth<dims>::value;

  Kokkos::Array<VarAccessor<T>, count> vars;
  Kokkos::Array<int, count> offsets;
  int runtime_width = 0;

  /// Group of the given Views; dimensions are taken from the Views (checked by the caller).
  template <class... Views>
  static VarGroup from_views(const std::tuple<Views...>& views) {
    VarGroup g;
    std::apply(
        [&](const auto&... v) {
          int k = 0;
          ((g.vars[k++] = VarAccessor<T>::from_view(v)), ...);
        },
        views);
    int offset = 0;
    for (int k = 0; k < count; ++k) {
      g.offsets[k] = offset;
      offset += g.vars[k].dim;
    }
    g.runtime_width = offset;
    return g;
  }

  template <int V>
  KOKKOS_INLINE_FUNCTION int dim() const {
    constexpr int s = DimAt<dims, V>::value;
    if constexpr (s >= 0) {
      return s;
    } else {
      return vars[V].dim;
    }
  }
  template <int V>
  KOKKOS_INLINE_FUNCTION int offset() const {
    constexpr int s = StaticOffset<dims, V>::value;
    if constexpr (s >= 0) {
      return s;
    } else {
      return offsets[V];
    }
  }
  /// Scalars in one packed row.
  KOKKOS_INLINE_FUNCTION int width() const {
    if constexpr (static_width >= 0) {
      return static_width;
    } else {
      return runtime_width;
    }
  }
  /// Variable V's slice of a packed row, as the formula receives it.
  template <int V>
  KOKKOS_INLINE_FUNCTION Span<const T, DimAt<dims, V>::value> span(const T* packed) const {
    return {packed + offset<V>(), dim<V>()};
  }

  /// One thread copies row r of batch b into a packed row.
  KOKKOS_INLINE_FUNCTION void load_row(int b, int r, T* dst) const {
    load_row_impl(b, r, dst, std::make_index_sequence<count>());
  }

  /// The team copies rows [r0, r0 + rows) of batch b into dst[row * stride + ...], reading
  /// along the Views' contiguous direction so that neighbouring threads read neighbouring
  /// addresses. Team: anything with team_rank() and team_size() (a Kokkos team member with
  /// vector length 1, or a CUDA thread block).
  template <class Member>
  KOKKOS_INLINE_FUNCTION void load_tile(const Member& team, int b, int r0, int rows, int stride,
                                        T* dst) const {
    load_tile_impl(team, b, r0, rows, stride, dst, std::make_index_sequence<count>());
  }

 private:
  template <std::size_t... V>
  KOKKOS_INLINE_FUNCTION void load_row_impl(int b, int r, T* dst, std::index_sequence<V...>) const {
    (load_var_row<static_cast<int>(V)>(b, r, dst), ...);
  }
  template <int V>
  KOKKOS_INLINE_FUNCTION void load_var_row(int b, int r, T* dst) const {
    const VarAccessor<T>& a = vars[V];
    const T* src            = a.data + b * a.sb + r * a.sr;
    const int d             = dim<V>();
    T* out                  = dst + offset<V>();
    for (int c = 0; c < d; ++c)
      out[c] = src[c * a.sc];
  }
  template <class Member, std::size_t... V>
  KOKKOS_INLINE_FUNCTION void load_tile_impl(const Member& team, int b, int r0, int rows,
                                             int stride, T* dst, std::index_sequence<V...>) const {
    (load_var_tile<static_cast<int>(V)>(team, b, r0, rows, stride, dst), ...);
  }
  template <int V, class Member>
  KOKKOS_INLINE_FUNCTION void load_var_tile(const Member& team, int b, int r0, int rows, int stride,
                                            T* dst) const {
    const VarAccessor<T>& a = vars[V];
    const T* src            = a.data + b * a.sb + r0 * a.sr;
    const int d             = dim<V>();
    T* out                  = dst + offset<V>();
    const int n             = rows * d;
    if (a.sc == 1 || d == 1) {  // rows contiguous (LayoutRight): walk row by row
      for (int e = team.team_rank(); e < n; e += team.team_size()) {
        const int row         = e / d;
        const int c           = e - row * d;
        out[row * stride + c] = src[row * a.sr + c * a.sc];
      }
    } else {  // components contiguous (LayoutLeft): walk component by component
      for (int e = team.team_rank(); e < n; e += team.team_size()) {
        const int c           = e / rows;
        const int row         = e - c * rows;
        out[row * stride + c] = src[row * a.sr + c * a.sc];
      }
    }
  }
};

}  // namespace Impl
}  // namespace tessera
