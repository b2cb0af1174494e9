// Device-side access to a group of variables (the parameters, the i- or the j-variables).
//
// Views of any rank, layout and batching are reduced to (pointer, strides) so that one kernel
// serves them all. A group packs one row of each of its variables side by side: the packed
// row is what lives in registers (the outer row) or in a scratch tile (the inner rows). Each
// variable keeps its own storage type (its View's element type: impl/element_types.hpp); the
// packed rows hold the call's compute type T, to which the loads convert.
#pragma once

#include <tessera/core/span.hpp>
#include <tessera/genred/formula.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tessera {
namespace Impl {

/// One variable: its data, of storage type S, and its strides.
template <class S>
struct VarAccessor {
  using storage_type = S;  ///< The View's element type.
  const S* data      = nullptr;
  std::int64_t sb    = 0;  // batch stride (0: unbatched)
  std::int64_t sr    = 0;  // row stride
  std::int64_t sc    = 0;  // component stride
  int dim            = 0;

  /// Element e of the data (an offset in elements), converted to the compute type T.
  template <class T>
  KOKKOS_INLINE_FUNCTION T load(std::int64_t e) const {
    return static_cast<T>(data[e]);
  }

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

/// The storage types of a group's variables, in order.
template <class... S>
struct StorageTypes {};

/// Storage types for `count` variables all stored in T.
template <class T, class Positions>
struct UniformStorageOf;
template <class T, std::size_t>
struct Repeated {
  using type = T;
};
template <class T, std::size_t... V>
struct UniformStorageOf<T, std::index_sequence<V...>> {
  using type = StorageTypes<typename Repeated<T, V>::type...>;
};
template <class T, class DimsT>
using UniformStorage = typename UniformStorageOf<T, std::make_index_sequence<DimsT::count>>::type;

/// Variable V's accessor in a MixedAccessors list.
template <int V, class S>
struct PositionedAccessor {
  VarAccessor<S> accessor;
};

/// The accessors of a group whose variables have different storage types, reached by their
/// compile-time position (get<V>()).
template <class Positions, class... S>
struct MixedAccessors;
template <std::size_t... V, class... S>
struct MixedAccessors<std::index_sequence<V...>, S...>
    : PositionedAccessor<static_cast<int>(V), S>... {
  template <int W>
  KOKKOS_INLINE_FUNCTION const auto& get() const {
    return pick<W>(*this);
  }
  template <int W>
  KOKKOS_INLINE_FUNCTION auto& get() {
    return pick<W>(*this);
  }

 private:
  template <int W, class SW>
  KOKKOS_INLINE_FUNCTION static const VarAccessor<SW>& pick(const PositionedAccessor<W, SW>& a) {
    return a.accessor;
  }
  template <int W, class SW>
  KOKKOS_INLINE_FUNCTION static VarAccessor<SW>& pick(PositionedAccessor<W, SW>& a) {
    return a.accessor;
  }
};

/// The first type of S..., or T when there is none.
template <class T, class... S>
struct FirstOr {
  using type = T;
};
template <class T, class S0, class... S>
struct FirstOr<T, S0, S...> {
  using type = S0;
};

/// The variables of one group, whose formula dimensions are D... and whose storage types are
/// S... (all T by default), read as packed rows of the compute type T.
template <class T, class DimsT, class Storage = UniformStorage<T, DimsT>>
struct VarGroup;

template <class T, int... D, class... S>
struct VarGroup<T, Dims<D...>, StorageTypes<S...>> {
  static_assert(sizeof...(D) == sizeof...(S),
                "tessera::genred: a variable group needs one storage type per variable");
  using compute_type                = T;  ///< The scalar type of the packed rows.
  using dims                        = Dims<D...>;
  static constexpr int count        = sizeof...(D);
  static constexpr int static_width = StaticWidth<dims>::value;
  /// Variable V's storage type (its View's element type).
  template <int V>
  using storage_type = typename std::tuple_element<V, std::tuple<S...>>::type;
  /// Whether every variable is stored in the compute type T (no conversion on load).
  static constexpr bool stores_compute_type = (std::is_same_v<S, T> && ...);
  /// Whether all variables share one storage type: `vars` is then an array, indexable at run
  /// time, else a list reached by compile-time position (accessor<V>() serves both).
  static constexpr bool uniform_storage =
      (std::is_same_v<S, typename FirstOr<T, S...>::type> && ...);

  std::conditional_t<uniform_storage,
                     Kokkos::Array<VarAccessor<typename FirstOr<T, S...>::type>, count>,
                     MixedAccessors<std::make_index_sequence<count>, S...>>
      vars;
  Kokkos::Array<int, count> offsets;
  int runtime_width = 0;

  /// Variable V's accessor: its data pointer (const storage_type<V>*), strides and dimension.
  template <int V>
  KOKKOS_INLINE_FUNCTION const VarAccessor<storage_type<V>>& accessor() const {
    if constexpr (uniform_storage) {
      return vars[V];
    } else {
      return vars.template get<V>();
    }
  }

  /// Group of the given Views; dimensions are taken from the Views (checked by the caller).
  template <class... Views>
  static VarGroup from_views(const std::tuple<Views...>& views) {
    VarGroup g;
    g.set_accessors(views, std::make_index_sequence<count>());
    return g;
  }

  template <int V>
  KOKKOS_INLINE_FUNCTION int dim() const {
    constexpr int s = DimAt<dims, V>::value;
    if constexpr (s >= 0) {
      return s;
    } else {
      return accessor<V>().dim;
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
  template <std::size_t... V, class Views>
  void set_accessors(const Views& views, std::index_sequence<V...>) {
    ((accessor_ref<static_cast<int>(V)>() =
          VarAccessor<storage_type<static_cast<int>(V)>>::from_view(std::get<V>(views))),
     ...);
    const int dims[] = {accessor<static_cast<int>(V)>().dim..., 0};
    int offset       = 0;
    for (int k = 0; k < count; ++k) {
      offsets[k] = offset;
      offset += dims[k];
    }
    runtime_width = offset;
  }
  template <int V>
  VarAccessor<storage_type<V>>& accessor_ref() {
    if constexpr (uniform_storage) {
      return vars[V];
    } else {
      return vars.template get<V>();
    }
  }
  template <std::size_t... V>
  KOKKOS_INLINE_FUNCTION void load_row_impl(int b, int r, T* dst, std::index_sequence<V...>) const {
    (load_var_row<static_cast<int>(V)>(b, r, dst), ...);
  }
  template <int V>
  KOKKOS_INLINE_FUNCTION void load_var_row(int b, int r, T* dst) const {
    const auto& a            = accessor<V>();
    const std::int64_t first = b * a.sb + r * a.sr;
    const int d              = dim<V>();
    T* out                   = dst + offset<V>();
    for (int c = 0; c < d; ++c)
      out[c] = a.template load<T>(first + c * a.sc);
  }
  template <class Member, std::size_t... V>
  KOKKOS_INLINE_FUNCTION void load_tile_impl(const Member& team, int b, int r0, int rows,
                                             int stride, T* dst, std::index_sequence<V...>) const {
    (load_var_tile<static_cast<int>(V)>(team, b, r0, rows, stride, dst), ...);
  }
  template <int V, class Member>
  KOKKOS_INLINE_FUNCTION void load_var_tile(const Member& team, int b, int r0, int rows, int stride,
                                            T* dst) const {
    const auto& a            = accessor<V>();
    const std::int64_t first = b * a.sb + r0 * a.sr;
    const int d              = dim<V>();
    T* out                   = dst + offset<V>();
    const int n              = rows * d;
    if (a.sc == 1 || d == 1) {  // rows contiguous (LayoutRight): walk row by row
      for (int e = team.team_rank(); e < n; e += team.team_size()) {
        const int row         = e / d;
        const int c           = e - row * d;
        out[row * stride + c] = a.template load<T>(first + row * a.sr + c * a.sc);
      }
    } else {  // components contiguous (LayoutLeft): walk component by component
      for (int e = team.team_rank(); e < n; e += team.team_size()) {
        const int c           = e / rows;
        const int row         = e - c * rows;
        out[row * stride + c] = a.template load<T>(first + row * a.sr + c * a.sc);
      }
    }
  }
};

}  // namespace Impl
}  // namespace tessera
