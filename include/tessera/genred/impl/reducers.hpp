// Device-side implementation of the reductions of genred/reductions.hpp.
//
// A reducer folds formula values F (D components) into an accumulator that lives in registers
// when its size is known at compile time and in per-thread scratch memory otherwise. Every
// reducer offers the same five steps, used by all schemes:
//   init(acc)            neutral element
//   add(acc, f, j)       fold F_j (D values) for reduced index j
//   end_tile(acc)        after each staged tile (the block-sum flush)
//   combine(acc, other)  acc = acc (+) other, for partial results of disjoint j ranges
//   finalize(acc, out)   write the output row through out.value(col, x) / out.index(col, j)
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/span.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/genred/reductions.hpp>

namespace tessera {
namespace Impl {

/// Accumulator storage: value slots and index slots (either may be unused).
template <class T>
struct AccRef {
  T* val;
  int* idx;
};

/// Strict order used by every min/max reduction: smaller value first, then smaller index.
/// An empty slot (index < 0) loses to any non-NaN value; NaN never wins.
template <class T>
KOKKOS_INLINE_FUNCTION bool precedes_min(T v, int i, T w, int j) {
  return v < w || (v == w && (j < 0 || (i >= 0 && i < j)));
}
template <class T>
KOKKOS_INLINE_FUNCTION bool precedes_max(T v, int i, T w, int j) {
  return v > w || (v == w && (j < 0 || (i >= 0 && i < j)));
}

/// exp(x - m) for a term x against the running maximum m >= x of the log-sum-exp reductions,
/// with exp(+inf - +inf) taken as 1: a row whose maximum is +inf sums the +inf terms as equals
/// (LogSumExp gives +inf, the softmax weights the +inf terms evenly) rather than NaN.
template <class T>
KOKKOS_INLINE_FUNCTION T shifted_exp(T x, T m) {
  return x == m ? T(1) : math::exp(x - m);
}

/// Running sums of n components stored at s[0..n) with an auxiliary block at s[n..2n)
/// (block_sum: the current tile's sum; kahan: the running compensation).
template <Summation S>
struct SumSlots {
  static constexpr int slots = S == Summation::direct ? 1 : 2;

  template <class T>
  KOKKOS_INLINE_FUNCTION static void zero(T* s, int n, int c) {
    s[c] = T(0);
    if constexpr (slots == 2) s[n + c] = T(0);
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void add(T* s, int n, int c, T x) {
    if constexpr (S == Summation::direct) {
      s[c] += x;
    } else if constexpr (S == Summation::block_sum) {
      s[n + c] += x;
    } else {
      const T y = x - s[n + c];
      const T t = s[c] + y;
      s[n + c]  = (t - s[c]) - y;
      s[c]      = t;
    }
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void flush(T* s, int n, int c) {
    if constexpr (S == Summation::block_sum) {
      s[c] += s[n + c];
      s[n + c] = T(0);
    }
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static T total(const T* s, int n, int c) {
    if constexpr (S == Summation::block_sum) {
      return s[c] + s[n + c];
    } else {
      return s[c];
    }
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION static void scale(T* s, int n, int c, T factor) {
    s[c] *= factor;
    if constexpr (slots == 2) s[n + c] *= factor;
  }
  /// s += other (both hold n components), keeping s's mode invariants.
  template <class T>
  KOKKOS_INLINE_FUNCTION static void merge(T* s, const T* other, int n, int c, T factor = T(1)) {
    add(s, n, c, factor * total(other, n, c));
    if constexpr (S == Summation::kahan) add(s, n, c, -factor * other[n + c]);
    flush(s, n, c);
  }
};

/// Formula output dimension, static when FD >= 0.
template <int FD>
struct FormulaDim {
  /// Reducers with an admission filter (KMinReducer) override these two.
  static constexpr bool has_filter = false;
  struct Filter {};
  /// Lowers the admission filter of output row o of batch entry b to a bound the reducer knows
  /// for the row (AccumulatorRows in the steps of a distributed ring: the k-th values of the
  /// reduced rows so far); kernels call it after load_filter(). None here.
  template <class F>
  KOKKOS_INLINE_FUNCTION void lower_filter(F&, int, int) const {}
  int runtime_dim;
  KOKKOS_INLINE_FUNCTION int dim() const {
    if constexpr (FD >= 0) {
      return FD;
    } else {
      return runtime_dim;
    }
  }
};

template <class Reduction, class T, int FD, Summation S>
struct Reducer;

// ---------------------------------------------------------------- Sum
template <class T, int FD, Summation S>
struct Reducer<Sum, T, FD, S> : FormulaDim<FD> {
  using Slots                             = SumSlots<S>;
  static constexpr bool writes_values     = true;
  static constexpr bool writes_indices    = false;
  static constexpr int static_acc_values  = FD >= 0 ? Slots::slots * FD : dynamic_extent;
  static constexpr int static_acc_indices = 0;

  KOKKOS_INLINE_FUNCTION int acc_values() const { return Slots::slots * this->dim(); }
  KOKKOS_INLINE_FUNCTION int acc_indices() const { return 0; }
  KOKKOS_INLINE_FUNCTION int out_columns() const { return this->dim(); }

  KOKKOS_INLINE_FUNCTION void init(AccRef<T> a) const {
    for (int c = 0; c < this->dim(); ++c)
      Slots::zero(a.val, this->dim(), c);
  }
  KOKKOS_INLINE_FUNCTION void add(AccRef<T> a, const T* f, int) const {
    for (int c = 0; c < this->dim(); ++c)
      Slots::add(a.val, this->dim(), c, f[c]);
  }
  KOKKOS_INLINE_FUNCTION void end_tile(AccRef<T> a) const {
    for (int c = 0; c < this->dim(); ++c)
      Slots::flush(a.val, this->dim(), c);
  }
  KOKKOS_INLINE_FUNCTION void combine(AccRef<T> a, AccRef<T> b) const {
    for (int c = 0; c < this->dim(); ++c)
      Slots::merge(a.val, b.val, this->dim(), c);
  }
  template <class Out>
  KOKKOS_INLINE_FUNCTION void finalize(AccRef<T> a, const Out& out) const {
    for (int c = 0; c < this->dim(); ++c)
      out.value(c, Slots::total(a.val, this->dim(), c));
  }
};

// ---------------------------------------------------------------- Min / Max and their args
template <class T, bool IsMin, bool Values, bool Indices, int FD>
struct ExtremumReducer : FormulaDim<FD> {
  static constexpr bool writes_values     = Values;
  static constexpr bool writes_indices    = Indices;
  static constexpr int static_acc_values  = FD;
  static constexpr int static_acc_indices = FD;

  KOKKOS_INLINE_FUNCTION int acc_values() const { return this->dim(); }
  KOKKOS_INLINE_FUNCTION int acc_indices() const { return this->dim(); }
  KOKKOS_INLINE_FUNCTION int out_columns() const { return this->dim(); }

  KOKKOS_INLINE_FUNCTION static bool precedes(T v, int i, T w, int j) {
    if constexpr (IsMin) {
      return precedes_min(v, i, w, j);
    } else {
      return precedes_max(v, i, w, j);
    }
  }
  KOKKOS_INLINE_FUNCTION void init(AccRef<T> a) const {
    for (int c = 0; c < this->dim(); ++c) {
      a.val[c] = IsMin ? math::infinity<T>() : -math::infinity<T>();
      a.idx[c] = -1;
    }
  }
  KOKKOS_INLINE_FUNCTION void add(AccRef<T> a, const T* f, int j) const {
    for (int c = 0; c < this->dim(); ++c) {
      if (precedes(f[c], j, a.val[c], a.idx[c])) {
        a.val[c] = f[c];
        a.idx[c] = j;
      }
    }
  }
  KOKKOS_INLINE_FUNCTION void end_tile(AccRef<T>) const {}
  KOKKOS_INLINE_FUNCTION void combine(AccRef<T> a, AccRef<T> b) const {
    for (int c = 0; c < this->dim(); ++c) {
      if (b.idx[c] >= 0 && precedes(b.val[c], b.idx[c], a.val[c], a.idx[c])) {
        a.val[c] = b.val[c];
        a.idx[c] = b.idx[c];
      }
    }
  }
  template <class Out>
  KOKKOS_INLINE_FUNCTION void finalize(AccRef<T> a, const Out& out) const {
    for (int c = 0; c < this->dim(); ++c) {
      if constexpr (Values) out.value(c, a.val[c]);
      if constexpr (Indices) out.index(c, a.idx[c]);
    }
  }
};

template <class T, int FD, Summation S>
struct Reducer<Min, T, FD, S> : ExtremumReducer<T, true, true, false, FD> {};
template <class T, int FD, Summation S>
struct Reducer<Max, T, FD, S> : ExtremumReducer<T, false, true, false, FD> {};
template <class T, int FD, Summation S>
struct Reducer<ArgMin, T, FD, S> : ExtremumReducer<T, true, false, true, FD> {};
template <class T, int FD, Summation S>
struct Reducer<ArgMax, T, FD, S> : ExtremumReducer<T, false, false, true, FD> {};
template <class T, int FD, Summation S>
struct Reducer<MinArgMin, T, FD, S> : ExtremumReducer<T, true, true, true, FD> {};
template <class T, int FD, Summation S>
struct Reducer<MaxArgMax, T, FD, S> : ExtremumReducer<T, false, true, true, FD> {};

// ---------------------------------------------------------------- k smallest
// Component c keeps an ascending list of (value, index) pairs at slots [c*k, c*k + k) (scratch
// memory: k is a run-time value). With a static formula dimension the reducer also offers an
// admission filter: a copy of each list's k-th entry that the kernel keeps in registers, so that
// the common case (a pair that does not enter the list, all but about k ln(N / k) pairs per row
// on random data) costs one comparison and no memory access.
template <class T, bool Values, bool Indices, int FD>
struct KMinReducer : FormulaDim<FD> {
  static constexpr bool writes_values     = Values;
  static constexpr bool writes_indices    = Indices;
  static constexpr int static_acc_values  = dynamic_extent;  // k is a run-time value
  static constexpr int static_acc_indices = dynamic_extent;
  static constexpr bool has_filter        = FD >= 0;

  /// The k-th value of each component's list (+infinity while the list has an empty slot).
  struct Filter {
    T v[FD > 0 ? FD : 1];
  };

  int k;
  KOKKOS_INLINE_FUNCTION int acc_values() const { return k * this->dim(); }
  KOKKOS_INLINE_FUNCTION int acc_indices() const { return k * this->dim(); }
  KOKKOS_INLINE_FUNCTION int out_columns() const { return k * this->dim(); }

  KOKKOS_INLINE_FUNCTION void insert(T* v, int* ix, T x, int j) const {
    if (!precedes_min(x, j, v[k - 1], ix[k - 1])) return;
    int p = k - 1;
    while (p > 0 && precedes_min(x, j, v[p - 1], ix[p - 1])) {
      v[p]  = v[p - 1];
      ix[p] = ix[p - 1];
      --p;
    }
    v[p]  = x;
    ix[p] = j;
  }
  KOKKOS_INLINE_FUNCTION void init(AccRef<T> a) const {
    for (int s = 0; s < k * this->dim(); ++s) {
      a.val[s] = math::infinity<T>();
      a.idx[s] = -1;
    }
  }
  KOKKOS_INLINE_FUNCTION void add(AccRef<T> a, const T* f, int j) const {
    for (int c = 0; c < this->dim(); ++c)
      insert(a.val + c * k, a.idx + c * k, f[c], j);
  }
  KOKKOS_INLINE_FUNCTION void load_filter(AccRef<T> a, Filter& filter) const {
    TESSERA_UNROLL_FULL
    for (int c = 0; c < (FD > 0 ? FD : 1); ++c)
      filter.v[c] = a.val[c * k + k - 1];
  }
  /// add(), skipping the lists for values above their k-th value. The test is conservative (a
  /// value equal to the k-th one goes on to insert()'s full comparison), so it is one
  /// comparison whatever the order in which indices arrive; NaN never passes it.
  KOKKOS_INLINE_FUNCTION void add_filtered(AccRef<T> a, Filter& filter, const T* f, int j) const {
    TESSERA_UNROLL_FULL
    for (int c = 0; c < (FD > 0 ? FD : 1); ++c) {
      if (f[c] <= filter.v[c]) {
        insert(a.val + c * k, a.idx + c * k, f[c], j);
        // the list's k-th value, or a lower bound from lower_filter()
        const T kth = a.val[c * k + k - 1];
        filter.v[c] = kth < filter.v[c] ? kth : filter.v[c];
      }
    }
  }
  /// filter = min(filter, the k-th values of the lists of `bound`): values above them cannot
  /// enter a list merged with `bound` (equal ones can, by a smaller index: they still pass).
  KOKKOS_INLINE_FUNCTION void lower_filter_to(Filter& filter, AccRef<T> bound) const {
    TESSERA_UNROLL_FULL
    for (int c = 0; c < (FD > 0 ? FD : 1); ++c) {
      const T kth = bound.val[c * k + k - 1];
      filter.v[c] = kth < filter.v[c] ? kth : filter.v[c];
    }
  }
  KOKKOS_INLINE_FUNCTION void end_tile(AccRef<T>) const {}
  KOKKOS_INLINE_FUNCTION void combine(AccRef<T> a, AccRef<T> b) const {
    for (int c = 0; c < this->dim(); ++c) {
      for (int t = 0; t < k; ++t) {
        const int s = c * k + t;
        // b's list is ascending: once an entry cannot enter a's list, none after it can.
        if (b.idx[s] < 0 ||
            !precedes_min(b.val[s], b.idx[s], a.val[c * k + k - 1], a.idx[c * k + k - 1])) {
          break;
        }
        insert(a.val + c * k, a.idx + c * k, b.val[s], b.idx[s]);
      }
    }
  }
  template <class Out>
  KOKKOS_INLINE_FUNCTION void finalize(AccRef<T> a, const Out& out) const {
    const int D = this->dim();
    for (int c = 0; c < D; ++c) {
      for (int t = 0; t < k; ++t) {
        if constexpr (Values) out.value(t * D + c, a.val[c * k + t]);
        if constexpr (Indices) out.index(t * D + c, a.idx[c * k + t]);
      }
    }
  }
};

template <class T, int FD, Summation S>
struct Reducer<KMin, T, FD, S> : KMinReducer<T, true, false, FD> {};
template <class T, int FD, Summation S>
struct Reducer<ArgKMin, T, FD, S> : KMinReducer<T, false, true, FD> {};
template <class T, int FD, Summation S>
struct Reducer<KMinArgKMin, T, FD, S> : KMinReducer<T, true, true, FD> {};

// ---------------------------------------------------------------- log-sum-exp, elementwise
// Slots: the running maxima m[0..D), then the sums of exp(F - m) (SumSlots layout).
template <class T, int FD, Summation S>
struct Reducer<LogSumExp, T, FD, S> : FormulaDim<FD> {
  using Slots                             = SumSlots<S>;
  static constexpr bool writes_values     = true;
  static constexpr bool writes_indices    = false;
  static constexpr int static_acc_values  = FD >= 0 ? (1 + Slots::slots) * FD : dynamic_extent;
  static constexpr int static_acc_indices = 0;

  KOKKOS_INLINE_FUNCTION int acc_values() const { return (1 + Slots::slots) * this->dim(); }
  KOKKOS_INLINE_FUNCTION int acc_indices() const { return 0; }
  KOKKOS_INLINE_FUNCTION int out_columns() const { return this->dim(); }

  KOKKOS_INLINE_FUNCTION void init(AccRef<T> a) const {
    const int D = this->dim();
    for (int c = 0; c < D; ++c) {
      a.val[c] = -math::infinity<T>();
      Slots::zero(a.val + D, D, c);
    }
  }
  KOKKOS_INLINE_FUNCTION void add(AccRef<T> a, const T* f, int) const {
    const int D = this->dim();
    for (int c = 0; c < D; ++c) {
      const T x = f[c];
      if (x == -math::infinity<T>()) continue;  // exp(-inf) = 0 adds nothing
      if (x > a.val[c]) {
        Slots::scale(a.val + D, D, c, math::exp(a.val[c] - x));
        a.val[c] = x;
      }
      Slots::add(a.val + D, D, c, shifted_exp(x, a.val[c]));
    }
  }
  KOKKOS_INLINE_FUNCTION void end_tile(AccRef<T> a) const {
    for (int c = 0; c < this->dim(); ++c)
      Slots::flush(a.val + this->dim(), this->dim(), c);
  }
  KOKKOS_INLINE_FUNCTION void combine(AccRef<T> a, AccRef<T> b) const {
    const int D = this->dim();
    for (int c = 0; c < D; ++c) {
      if (b.val[c] == -math::infinity<T>()) continue;
      if (b.val[c] > a.val[c]) {
        Slots::scale(a.val + D, D, c, math::exp(a.val[c] - b.val[c]));
        a.val[c] = b.val[c];
      }
      Slots::merge(a.val + D, b.val + D, D, c, shifted_exp(b.val[c], a.val[c]));
    }
  }
  template <class Out>
  KOKKOS_INLINE_FUNCTION void finalize(AccRef<T> a, const Out& out) const {
    const int D = this->dim();
    for (int c = 0; c < D; ++c) {
      out.value(c, a.val[c] + math::log(Slots::total(a.val + D, D, c)));
    }
  }
};

// ---------------------------------------------------------------- softmax-weighted sums
// F = [f, g_1 .. g_G]. Slots: the running maximum m of f, then the sums of exp(f - m) g_c
// (and, when normalising, first the sum of exp(f - m) itself).
template <class T, bool Normalize, int FD, Summation S>
struct ShiftedExpReducer : FormulaDim<FD> {
  using Slots                          = SumSlots<S>;
  static constexpr int lead            = Normalize ? 1 : 0;  // the extra sum of exp(f - m)
  static constexpr bool writes_values  = true;
  static constexpr bool writes_indices = false;
  static constexpr int static_acc_values =
      FD >= 0 ? 1 + Slots::slots * (FD - 1 + lead) : dynamic_extent;
  static constexpr int static_acc_indices = 0;

  KOKKOS_INLINE_FUNCTION int sums() const { return this->dim() - 1 + lead; }
  KOKKOS_INLINE_FUNCTION int acc_values() const { return 1 + Slots::slots * sums(); }
  KOKKOS_INLINE_FUNCTION int acc_indices() const { return 0; }
  KOKKOS_INLINE_FUNCTION int out_columns() const { return this->dim() - 1; }

  KOKKOS_INLINE_FUNCTION void init(AccRef<T> a) const {
    a.val[0] = -math::infinity<T>();
    for (int c = 0; c < sums(); ++c)
      Slots::zero(a.val + 1, sums(), c);
  }
  KOKKOS_INLINE_FUNCTION void rescale(AccRef<T> a, T new_max) const {
    const T factor = math::exp(a.val[0] - new_max);
    for (int c = 0; c < sums(); ++c)
      Slots::scale(a.val + 1, sums(), c, factor);
    a.val[0] = new_max;
  }
  KOKKOS_INLINE_FUNCTION void add(AccRef<T> a, const T* f, int) const {
    if (f[0] == -math::infinity<T>()) return;
    if (f[0] > a.val[0]) rescale(a, f[0]);
    const T w = shifted_exp(f[0], a.val[0]);
    if constexpr (Normalize) Slots::add(a.val + 1, sums(), 0, w);
    for (int c = 1; c < this->dim(); ++c)
      Slots::add(a.val + 1, sums(), c - 1 + lead, w * f[c]);
  }
  KOKKOS_INLINE_FUNCTION void end_tile(AccRef<T> a) const {
    for (int c = 0; c < sums(); ++c)
      Slots::flush(a.val + 1, sums(), c);
  }
  KOKKOS_INLINE_FUNCTION void combine(AccRef<T> a, AccRef<T> b) const {
    if (b.val[0] == -math::infinity<T>()) return;
    if (b.val[0] > a.val[0]) rescale(a, b.val[0]);
    const T factor = shifted_exp(b.val[0], a.val[0]);
    for (int c = 0; c < sums(); ++c)
      Slots::merge(a.val + 1, b.val + 1, sums(), c, factor);
  }
  template <class Out>
  KOKKOS_INLINE_FUNCTION void finalize(AccRef<T> a, const Out& out) const {
    const T* s = a.val + 1;
    if constexpr (Normalize) {
      const T z = Slots::total(s, sums(), 0);
      for (int c = 0; c + 1 < this->dim(); ++c) {
        out.value(c, z > T(0) ? Slots::total(s, sums(), c + 1) / z : T(0));
      }
    } else {
      for (int c = 0; c + 1 < this->dim(); ++c) {
        out.value(c, a.val[0] + math::log(Slots::total(s, sums(), c)));
      }
    }
  }
};

template <class T, int FD, Summation S>
struct Reducer<LogSumExpWeighted, T, FD, S> : ShiftedExpReducer<T, false, FD, S> {};
template <class T, int FD, Summation S>
struct Reducer<SumSoftMaxWeight, T, FD, S> : ShiftedExpReducer<T, true, FD, S> {};

// ---------------------------------------------------------------- host-side facts
/// Whether the reduction keeps the k smallest values.
template <class Reduction>
inline constexpr bool is_k_reduction =
    std::is_same_v<Reduction, KMin> || std::is_same_v<Reduction, ArgKMin> ||
    std::is_same_v<Reduction, KMinArgKMin>;

/// Run-time k of a reduction (1 for the others).
template <class Reduction>
int reduction_k(const Reduction& r) {
  if constexpr (is_k_reduction<Reduction>) {
    return r.k;
  } else {
    return 1;
  }
}

/// Whether the reduction reads F = [f, g] (so needs D >= 2).
template <class Reduction>
inline constexpr bool is_weighted_reduction =
    std::is_same_v<Reduction, LogSumExpWeighted> || std::is_same_v<Reduction, SumSoftMaxWeight>;

/// Whether the summation option changes the reduction's arithmetic.
template <class Reduction>
inline constexpr bool uses_summation =
    std::is_same_v<Reduction, Sum> || std::is_same_v<Reduction, LogSumExp> ||
    is_weighted_reduction<Reduction>;

/// The device reducer for a reduction with formula output dimension `dim` (runtime value).
template <class Reduction, class T, int FD, Summation S>
Reducer<Reduction, T, FD, S> make_reducer(const Reduction& r, int dim) {
  Reducer<Reduction, T, FD, S> red{};
  red.runtime_dim = dim;
  if constexpr (is_k_reduction<Reduction>) red.k = r.k;
  return red;
}

}  // namespace Impl
}  // namespace tessera
