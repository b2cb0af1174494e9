// Where the Genred kernels write: the output Views reduced to pointers and strides, and the
// partial buffer of the 2D scheme (one accumulator per output row and reduced-range chunk,
// folded by combine_partials.hpp). Shared by the portable and the CUDA kernels. Values are
// computed in the call's compute type T and rounded to the values View's element type V as they
// are written (impl/element_types.hpp).
#pragma once

#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/variables.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

/// Output Views reduced to pointers and strides; writes one row of values (computed in T,
/// stored as V) and/or indices.
template <class T, class Index, class V = T>
struct OutputAccess {
  using value_storage = V;  ///< The values View's element type.
  V* values           = nullptr;
  std::int64_t vsb = 0, vsr = 0, vsc = 0;
  Index* indices   = nullptr;
  std::int64_t isb = 0, isr = 0, isc = 0;

  struct Row {
    V* v;
    std::int64_t vsc;
    Index* ix;
    std::int64_t isc;
    KOKKOS_INLINE_FUNCTION void value(int c, T x) const { v[c * vsc] = static_cast<V>(x); }
    KOKKOS_INLINE_FUNCTION void index(int c, int j) const { ix[c * isc] = static_cast<Index>(j); }
  };
  KOKKOS_INLINE_FUNCTION Row row(int b, int r) const {
    return {values + b * vsb + r * vsr, vsc, indices + b * isb + r * isr, isc};
  }
};

template <class View, class P>
void pointer_and_strides(const View& v, P*& data, std::int64_t& sb, std::int64_t& sr,
                         std::int64_t& sc) {
  data = v.data();
  if constexpr (View::rank == 3) {
    sb = v.stride_0();
    sr = v.stride_1();
    sc = v.stride_2();
  } else {
    sb = 0;
    sr = v.stride_0();
    sc = v.stride_1();
  }
}

/// The outputs of a call computing in T, its values stored as the values View's element type.
template <class T, class Index, class ValuesView, class IndicesView>
OutputAccess<T, Index, typename ValuesView::non_const_value_type> output_access(
    const Outputs<ValuesView, IndicesView>& out) {
  OutputAccess<T, Index, typename ValuesView::non_const_value_type> a;
  pointer_and_strides(out.values, a.values, a.vsb, a.vsr, a.vsc);
  pointer_and_strides(out.indices, a.indices, a.isb, a.isr, a.isc);
  return a;
}

/// Per-row accumulators of the 2D scheme: row p holds `nv` values and `ni` indices; the row
/// of output row o of batch b and reduced-range chunk c is (b * n_outer + o) * chunks + c.
template <class T>
struct PartialBuffer {
  T* values    = nullptr;
  int* indices = nullptr;
  int nv = 0, ni = 0;
  KOKKOS_INLINE_FUNCTION AccRef<T> row(std::int64_t p) const {
    return {values + p * nv, indices + p * ni};
  }
  /// The row of (batch b, output row o, chunk c) for a call of n_outer rows in `chunks` chunks.
  KOKKOS_INLINE_FUNCTION AccRef<T> row(int b, int o, int n_outer, int chunks, int c) const {
    return row((static_cast<std::int64_t>(b) * n_outer + o) * chunks + c);
  }
  /// Writes accumulator `acc` of reducer `red` as that row (the reducer's counts, compile-time
  /// constants where its sizes are static, so that register-held accumulators stay in
  /// registers).
  template <class Red>
  KOKKOS_FORCEINLINE_FUNCTION void store(int b, int o, int n_outer, int chunks, int c,
                                         const Red& red, const AccRef<T>& acc) const {
    const AccRef<T> dst = row(b, o, n_outer, chunks, c);
    for (int v = 0; v < red.acc_values(); ++v)
      dst.val[v] = acc.val[v];
    for (int v = 0; v < red.acc_indices(); ++v)
      dst.idx[v] = acc.idx[v];
  }
};

}  // namespace Impl
}  // namespace tessera
