// Genred's accumulators as data: a call that writes each output row's accumulator (the
// reducer's running state: sums with their block or compensation slots, running maxima, (value,
// index) pairs, k-lists) instead of the finished row, and the kernel that merges the
// accumulators of disjoint reduced ranges with the reducer's own combine() and finishes them.
// The distributed call (mpi/) reduces each rank's rows against one slice of the reduced rows at a
// time and merges the slices' accumulators so: the merge is each reduction's own, with the
// reduced indices made global, so selections and ties come out as in one call over all rows.
//
// Layout: one accumulator row per output row (batch-major, b * rows + r), acc_values() values
// and acc_indices() int indices, in two LayoutRight Views (AccumulatorBuffer).
#pragma once

#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

namespace tessera {
namespace Impl {

/// Reducer `Red` whose finalize() writes its accumulator: values slot v as values column v,
/// index slot v as indices column v plus `index_offset` (the reduced slice's first row in the
/// whole reduced range; an empty slot's -1 stays -1). Every kernel runs it as it runs `Red`.
/// With `bound` set (the accumulator rows of the reduced rows so far, `bound_rows` per batch
/// entry), reducers with an admission filter (the KMin family) skip the values that cannot enter
/// the lists merged with them: each slice's lists then see about k ln(N / N_so_far) insertions
/// instead of k ln(N_slice / k), as in one call over every slice.
template <class Red, class T>
struct AccumulatorRows : Red {
  int index_offset = 0;
  PartialBuffer<T> bound;  ///< values == nullptr: no bound
  int bound_rows = 0;

  template <class Out>
  KOKKOS_INLINE_FUNCTION void finalize(AccRef<T> a, const Out& out) const {
    for (int v = 0; v < this->acc_values(); ++v)
      out.value(v, a.val[v]);
    for (int v = 0; v < this->acc_indices(); ++v)
      out.index(v, a.idx[v] < 0 ? -1 : a.idx[v] + index_offset);
  }
  /// Kernels call it for reducers with a filter only (Red::has_filter).
  template <class Filter>
  KOKKOS_INLINE_FUNCTION void lower_filter(Filter& filter, int b, int o) const {
    if (bound.values != nullptr)
      this->lower_filter_to(filter, bound.row(static_cast<std::int64_t>(b) * bound_rows + o));
  }
};

/// `red` writing accumulator rows whose reduced indices start at `index_offset`, its admission
/// filters lowered by `bound` (accumulator rows of `bound_rows` rows per batch entry; a bound
/// with null values lowers nothing).
template <class Red, class T>
AccumulatorRows<Red, T> accumulator_rows(const Red& red, int index_offset,
                                         const PartialBuffer<T>& bound, int bound_rows) {
  AccumulatorRows<Red, T> rows{red};
  rows.index_offset = index_offset;
  rows.bound        = bound;
  rows.bound_rows   = bound_rows;
  return rows;
}

/// Accumulator rows in two LayoutRight Views of extents (batch, rows, acc_values) and (batch,
/// rows, acc_indices), at least one column each so that the Views are never null.
template <class T, class MemorySpace>
struct AccumulatorBuffer {
  Kokkos::View<T***, Kokkos::LayoutRight, MemorySpace> values;
  Kokkos::View<int***, Kokkos::LayoutRight, MemorySpace> indices;

  AccumulatorBuffer() = default;
  AccumulatorBuffer(const std::string& label, std::size_t batch, std::size_t rows, int acc_values,
                    int acc_indices)
      : values(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), batch, rows,
               std::max(acc_values, 1)),
        indices(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), batch, rows,
                std::max(acc_indices, 1)) {}

  /// Row p = b * rows + r is the accumulator of batch entry b, output row r.
  PartialBuffer<T> rows() const {
    return {values.data(), indices.data(), static_cast<int>(values.extent(2)),
            static_cast<int>(indices.extent(2))};
  }
};

/// Row p: running(p) = running(p) (+) slice(p) for a slice given, then, when finishing, the
/// finished row written to `out` (batch p / rows, row p % rows).
template <class T, class Red, class Index>
struct MergeAccumulators {
  Red red;
  PartialBuffer<T> running;
  PartialBuffer<T> slice;  ///< values == nullptr: nothing to merge
  OutputAccess<T, Index> out;
  int rows;
  bool finish;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    const AccRef<T> acc = running.row(p);
    if (slice.values != nullptr) red.combine(acc, slice.row(p));
    if (finish) {
      const int b = static_cast<int>(p / rows);
      red.finalize(acc, out.row(b, static_cast<int>(p - static_cast<std::int64_t>(b) * rows)));
    }
  }
};

}  // namespace Impl
}  // namespace tessera
