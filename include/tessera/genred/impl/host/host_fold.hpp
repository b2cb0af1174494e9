// How the host kernel folds a tile of formula values into one output row's accumulator, for
// every reduction, in vector lanes.
//
// The host kernel (host_tiled_reduce.hpp) first evaluates F for one outer row against a whole
// staged tile of inner rows, into f[c * stride + jj] (component c, tile row jj). fold_tile()
// then reduces the tile with L independent lanes (lane l takes rows l, l + L, ...), which the
// compiler keeps in vector registers, and merges the lanes into the accumulator once per tile:
//  - Sum: each component's tile total goes into the running sum with the call's summation (the
//    tile is the block of Summation::block_sum; kahan compensates across tiles).
//  - Min, Max and their arg forms: a (value, index) pair per lane, merged with the reducer's
//    combine(), so ties resolve to the smallest index as in every other kernel.
//  - KMin family: one vectorised comparison of L values with the lists' k-th entries; the rare
//    groups with a candidate go through the reducer's add_filtered() in index order.
//  - LogSumExp and the softmax-weighted sums: the tile's maximum first, one rescaling of the
//    running sums when it exceeds the running maximum, then lane sums of exp(f - m) (one exp
//    per value, vectorised: core/impl/host_exp.hpp).
// Every branch on a lane's value is a select, so that the loops stay vectorisable; values past
// `rows` (padding of the last tile) are never read.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/reductions.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// Sum of term(jj) for jj in [0, n) in L lanes (lane l takes l, l + L, ...), then the lanes
/// pairwise.
template <int L, class T, class Term>
TESSERA_HOST_INLINE T lane_sum(int n, const Term& term) {
  T lane[L]      = {};
  const int full = n / L * L;
  for (int jj = 0; jj < full; jj += L) {
    for (int l = 0; l < L; ++l)
      lane[l] += term(jj + l);
  }
  for (int jj = full; jj < n; ++jj)
    lane[jj - full] += term(jj);
  for (int w = L / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l)
      lane[l] += lane[l + w];
  }
  return lane[0];
}

/// Largest of p[0..n) (-infinity when empty; NaN is skipped, as the comparisons it fails).
template <int L, class T>
TESSERA_HOST_INLINE T lane_max(const T* p, int n) {
  T lane[L];
  for (int l = 0; l < L; ++l)
    lane[l] = -math::infinity<T>();
  const int full = n / L * L;
  for (int jj = 0; jj < full; jj += L) {
    for (int l = 0; l < L; ++l)
      lane[l] = p[jj + l] > lane[l] ? p[jj + l] : lane[l];
  }
  for (int jj = full; jj < n; ++jj)
    lane[jj - full] = p[jj] > lane[jj - full] ? p[jj] : lane[jj - full];
  T m = lane[0];
  for (int l = 1; l < L; ++l)
    m = lane[l] > m ? lane[l] : m;
  return m;
}

/// exp(x - m) against a running maximum m > -infinity that x does not exceed, as the reducers'
/// shifted_exp(): 1 for x = m (exp(+inf - +inf) taken as 1), 0 for x = -infinity, NaN for NaN.
/// Only ordered comparisons and bit selects (see select()): gcc does not if-convert an equality
/// test of floats under floating-point traps, and the loop would stay scalar.
template <class T>
TESSERA_HOST_INLINE T lane_shifted_exp(T x, T m) {
  return math::exp(select(x >= m, T(0), x - m));
}

template <class Reduction>
inline constexpr bool is_extremum_reduction =
    std::is_same_v<Reduction, Min> || std::is_same_v<Reduction, Max> ||
    std::is_same_v<Reduction, ArgMin> || std::is_same_v<Reduction, ArgMax> ||
    std::is_same_v<Reduction, MinArgMin> || std::is_same_v<Reduction, MaxArgMax>;
template <class Reduction>
inline constexpr bool is_min_reduction =
    std::is_same_v<Reduction, Min> || std::is_same_v<Reduction, ArgMin> ||
    std::is_same_v<Reduction, MinArgMin>;

/// Min/Max family: the best (value, index) of each lane, merged into the accumulator. Within a
/// lane indices rise, so a tie keeps the lane's earlier index unless its slot is still empty
/// (index -1, value +-infinity); NaN never enters. These are precedes_min/precedes_max for
/// rising indices, with ordered comparisons only (see lane_shifted_exp).
template <int L, int FD, bool IsMin, class Red, class T>
TESSERA_HOST_INLINE void fold_extremum(AccRef<T> a, const T* f, int stride, int rows, int j0) {
  for (int c = 0; c < FD; ++c) {
    const T* p = f + c * stride;
    T value[L];
    int index[L];
    for (int l = 0; l < L; ++l) {
      value[l] = IsMin ? math::infinity<T>() : -math::infinity<T>();
      index[l] = -1;
    }
    const auto step = [&](int l, int jj) {
      const T x       = p[jj];
      const T v       = value[l];
      const bool take = index[l] < 0 ? (IsMin ? x <= v : x >= v) : (IsMin ? x < v : x > v);
      value[l]        = take ? x : value[l];
      index[l]        = take ? j0 + jj : index[l];
    };
    const int full = rows / L * L;
    for (int jj = 0; jj < full; jj += L) {
      for (int l = 0; l < L; ++l)
        step(l, jj + l);
    }
    for (int jj = full; jj < rows; ++jj)
      step(jj - full, jj);
    for (int l = 0; l < L; ++l) {  // lanes into the accumulator, in the reducers' order
      if (index[l] >= 0 && Red::precedes(value[l], index[l], a.val[c], a.idx[c])) {
        a.val[c] = value[l];
        a.idx[c] = index[l];
      }
    }
  }
}

/// The reducer's add() for every row, in index order (tiles that the lanes do not cover).
template <int FD, class Red, class T>
TESSERA_HOST_INLINE void fold_one_by_one(const Red& red, AccRef<T> a, const T* f, int stride,
                                         int rows, int j0) {
  for (int jj = 0; jj < rows; ++jj) {
    T row[FD];
    for (int c = 0; c < FD; ++c)
      row[c] = f[c * stride + jj];
    red.add(a, row, j0 + jj);
  }
}

/// KMin family: groups of L rows whose values all exceed the lists' k-th entries (one vector
/// comparison per component) are skipped; the others go through add_filtered() in index order.
template <int L, int FD, class Red, class T>
TESSERA_HOST_INLINE void fold_k_smallest(const Red& red, AccRef<T> a, typename Red::Filter& filter,
                                         const T* f, int stride, int rows, int j0) {
  const auto add_row = [&](int jj) {
    T row[FD];
    for (int c = 0; c < FD; ++c)
      row[c] = f[c * stride + jj];
    red.add_filtered(a, filter, row, j0 + jj);
  };
  const int full = rows / L * L;
  for (int jj = 0; jj < full; jj += L) {
    int candidates = 0;
    for (int c = 0; c < FD; ++c) {
      const T bound = filter.v[c];
      const T* p    = f + c * stride + jj;
      for (int l = 0; l < L; ++l)
        candidates |= static_cast<int>(p[l] <= bound);
    }
    if (candidates) {
      for (int l = 0; l < L; ++l)
        add_row(jj + l);
    }
  }
  for (int jj = full; jj < rows; ++jj)
    add_row(jj);
}

/// Folds rows [0, rows) of the tile f (component c at f + c * stride, reduced index j0 + row)
/// into accumulator a (see the file comment), then ends the tile.
template <int L, class Reduction, class T, int FD, Summation S>
TESSERA_HOST_INLINE void fold_tile(const Reducer<Reduction, T, FD, S>& red, AccRef<T> a,
                                   typename Reducer<Reduction, T, FD, S>::Filter& filter,
                                   const T* f, int stride, int rows, int j0) {
  using Red = Reducer<Reduction, T, FD, S>;
  static_assert(FD > 0, "tessera::genred: the host kernel needs a static formula dimension");
  if constexpr (std::is_same_v<Reduction, Sum>) {
    for (int c = 0; c < FD; ++c) {
      const T* p = f + c * stride;
      Red::Slots::add(a.val, FD, c, lane_sum<L, T>(rows, [&](int jj) { return p[jj]; }));
    }
  } else if constexpr (is_extremum_reduction<Reduction>) {
    fold_extremum<L, FD, is_min_reduction<Reduction>, Red>(a, f, stride, rows, j0);
  } else if constexpr (is_k_reduction<Reduction>) {
    fold_k_smallest<L, FD>(red, a, filter, f, stride, rows, j0);
  } else if constexpr (std::is_same_v<Reduction, LogSumExp>) {
    T tile_max[FD];
    bool finite_max = true;
    for (int c = 0; c < FD; ++c) {
      tile_max[c] = lane_max<L>(f + c * stride, rows);
      finite_max  = finite_max && tile_max[c] > -math::infinity<T>();
    }
    if (!finite_max) {  // a component of only -infinity and NaN: the reducer's add()
      fold_one_by_one<FD>(red, a, f, stride, rows, j0);
    } else {
      for (int c = 0; c < FD; ++c) {
        if (tile_max[c] > a.val[c]) {
          Red::Slots::scale(a.val + FD, FD, c, math::exp(a.val[c] - tile_max[c]));
          a.val[c] = tile_max[c];
        }
        const T* p = f + c * stride;
        const T m  = a.val[c];
        Red::Slots::add(a.val + FD, FD, c,
                        lane_sum<L, T>(rows, [&](int jj) { return lane_shifted_exp(p[jj], m); }));
      }
    }
  } else {
    static_assert(is_weighted_reduction<Reduction>,
                  "tessera::genred: a reduction without a host fold");
    const T tile_max = lane_max<L>(f, rows);
    if (!(tile_max > -math::infinity<T>())) {  // as for LogSumExp
      fold_one_by_one<FD>(red, a, f, stride, rows, j0);
      red.end_tile(a);
      return;
    }
    if (tile_max > a.val[0]) red.rescale(a, tile_max);
    const T m = a.val[0];
    if constexpr (Red::lead == 1) {
      Red::Slots::add(a.val + 1, red.sums(), 0,
                      lane_sum<L, T>(rows, [&](int jj) { return lane_shifted_exp(f[jj], m); }));
    }
    for (int c = 1; c < FD; ++c) {
      const T* g = f + c * stride;
      Red::Slots::add(a.val + 1, red.sums(), c - 1 + Red::lead, lane_sum<L, T>(rows, [&](int jj) {
                        return lane_shifted_exp(f[jj], m) * g[jj];
                      }));
    }
  }
  red.end_tile(a);
}

}  // namespace Impl
}  // namespace tessera
