// The checks of a sequence's bindings before any kernel (run.hpp's contract): symbols, ranks,
// layouts, extents, contiguity and memory shared between symbols; and the extents they give.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>
#include <tessera/fusion/bindings.hpp>
#include <tessera/fusion/impl/sequence_traits.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>
#include <utility>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::memory_range;
using tessera::Impl::MemoryRange;
using tessera::Impl::require;

/// A bound View's name in messages: its argument name when the caller has names (a ready
/// function's, one per bound View), else "<kind> K" (vector 2, matrix 0, symbol 4).
struct SymbolName {
  const char* const* names;  ///< one name per bound View, or nullptr
  const char* kind;          ///< the kind written before K without names
  int k;                     ///< the symbol
};
inline std::ostream& operator<<(std::ostream& os, const SymbolName& s) {
  if (s.names) return os << s.names[s.k];
  return os << s.kind << ' ' << s.k;
}

/// Calls f(integral_constant<int, K>, get<K>(t)) for every element K of a tuple.
template <class F, class Tuple, std::size_t... K>
void for_each_indexed(F&& f, const Tuple& t, std::index_sequence<K...>) {
  (f(std::integral_constant<int, int(K)>{}, std::get<K>(t)), ...);
}

/// The extents a sequence runs over: its matrices' rows and columns (a vector sequence: its
/// length in both).
struct SequenceExtents {
  std::size_t rows = 0, cols = 0;
};

/// The layout of the first View among Views (the K-th and later) whose symbol is in Mats
/// (LayoutRight if none is).
template <std::uint64_t Mats, int K, class... Views>
struct FirstMatrixLayout {
  using type = Kokkos::LayoutRight;
};
template <std::uint64_t Mats, int K, class V, class... Views>
struct FirstMatrixLayout<Mats, K, V, Views...> {
  using type = std::conditional_t<((Mats >> K) & 1u) != 0, typename V::array_layout,
                                  typename FirstMatrixLayout<Mats, K + 1, Views...>::type>;
};

/// The layout of a matrix sequence's matrices (that of the first one bound).
template <class Seq, class... Views>
struct MatrixLayoutOf {
  using type = typename FirstMatrixLayout<SequenceTraits<Seq>::matrices, 0, Views...>::type;
  static_assert(std::is_same_v<type, Kokkos::LayoutRight> ||
                    std::is_same_v<type, Kokkos::LayoutLeft>,
                "tessera::fusion: matrices are LayoutRight or LayoutLeft Views");
};

/// Checks a sequence's bindings (before any kernel) and returns its extents; messages name the
/// bound Views by `names` (one per View) when given, else by their kind and symbol.
template <class ExecSpace, class Seq, class... Views>
SequenceExtents check_bindings(const char* caller, const char* const* names,
                               const Bindings<Views...>& bound) {
  using Tr                        = SequenceTraits<Seq>;
  constexpr int n_bound           = int(sizeof...(Views));
  constexpr std::uint64_t symbols = Tr::vectors | Tr::scalars | Tr::matrices;
  static_assert((symbols >> n_bound) == 0,
                "tessera::fusion: a symbol's number is not below the number of bound Views");
  static_assert(!Seq::matrix || Tr::matrices != 0,
                "tessera::fusion: a matrix sequence (row_sum, col_sum, by_row, by_col) reads "
                "or writes at least one Mat symbol, whose extents give the vectors' lengths");
  static_assert(
      popcount(Tr::vectors) + popcount(Tr::scalars) + popcount(Tr::matrices) == popcount(symbols),
      "tessera::fusion: a symbol is used as two of Vec, Scalar and Mat");
  SequenceExtents ext;
  int length_of = -1, shape_of = -1;  // the vector that set a vector sequence's length, the
                                      // matrix that set a matrix sequence's shape
  MemoryRange ranges[sizeof...(Views)];
  // First the matrices (their extents fix the vectors' lengths), then the rest.
  auto check = [&](auto index, const auto& view, auto matrices_pass) {
    constexpr int K  = decltype(index)::value;
    using View       = std::decay_t<decltype(view)>;
    constexpr auto b = std::uint64_t(1) << K;
    static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                  "tessera::fusion: a bound View is not accessible from the execution space");
    static_assert((Tr::vectors & b) == 0 || View::rank == 1,
                  "tessera::fusion: a Vec symbol is bound to a rank-1 View");
    static_assert((Tr::scalars & b) == 0 || View::rank == 0,
                  "tessera::fusion: a Scalar symbol is bound to a rank-0 View");
    static_assert((Tr::matrices & b) == 0 || View::rank == 2,
                  "tessera::fusion: a Mat symbol is bound to a rank-2 View");
    static_assert((Tr::written & b) == 0 || !std::is_const_v<typename View::value_type>,
                  "tessera::fusion: a symbol the sequence writes is bound to a const View");
    if constexpr (decltype(matrices_pass)::value) {
      if constexpr ((Tr::matrices & b) != 0) {
        static_assert(std::is_same_v<typename View::array_layout,
                                     typename MatrixLayoutOf<Seq, Views...>::type>,
                      "tessera::fusion: every matrix of a sequence is LayoutRight, or every one "
                      "LayoutLeft");
        const SymbolName name{names, "matrix", K};
        if (shape_of < 0) {
          ext      = {view.extent(0), view.extent(1)};
          shape_of = K;
        }
        require(view.extent(0) == ext.rows && view.extent(1) == ext.cols, caller, name, " is ",
                view.extent(0), " x ", view.extent(1), ", expected ", ext.rows, " x ", ext.cols,
                " (the shape of ", SymbolName{names, "matrix", shape_of}, ")");
        require(view.size() == 0 || view.span_is_contiguous(), caller, name, " is not contiguous");
      }
    } else {
      if constexpr ((Tr::vectors & b) != 0) {
        const SymbolName name{names, "vector", K};
        const std::size_t n = view.extent(0);
        if constexpr (Seq::matrix) {
          const SymbolName matrix{names, "matrix", shape_of};
          if ((Tr::row_vectors & b) != 0)
            require(n == ext.rows, caller, name, " has ", n, " elements, expected ", ext.rows,
                    " (the rows of ", matrix, ")");
          if ((Tr::col_vectors & b) != 0)
            require(n == ext.cols, caller, name, " has ", n, " elements, expected ", ext.cols,
                    " (the columns of ", matrix, ")");
        } else {
          if (length_of < 0) {
            ext       = {n, n};
            length_of = K;
          }
          require(n == ext.rows, caller, name, " has ", n, " elements, expected ", ext.rows,
                  " (the length of ", SymbolName{names, "vector", length_of}, ")");
        }
        require(view.extent(0) == 0 || view.span_is_contiguous(), caller, name,
                " is not contiguous");
      }
      if constexpr ((symbols & b) != 0) {
        require(view.data() != nullptr || view.size() == 0, caller, SymbolName{names, "symbol", K},
                " is an unallocated View");
        ranges[K] = memory_range(view);
      }
    }
  };
  for_each_indexed([&](auto k, const auto& v) { check(k, v, std::true_type{}); }, bound.views,
                   std::index_sequence_for<Views...>{});
  for_each_indexed([&](auto k, const auto& v) { check(k, v, std::false_type{}); }, bound.views,
                   std::index_sequence_for<Views...>{});
  // A written symbol shares memory with another only as the very same vector of a vector
  // sequence, read only, and by no step after the first that writes the other (an in-place
  // update, as z = w - alpha v with z and w one View): a partial overlap would read elements
  // that another element's step already wrote, a later read would see the new values, and two
  // written symbols on one View would leave the value one of them keeps in registers stale.
  // Matrix sequences read vectors at other indices than they write them: no sharing at all.
  if constexpr (n_bound > 1) {
    int first_write[n_bound], last_read[n_bound];
    for (int k = 0; k < n_bound; ++k) {
      first_write[k] = Seq::size;
      last_read[k]   = -1;
    }
    for (int s = Seq::size - 1; s >= 0; --s) {
      const std::uint64_t w =
          Tr::writes_vectors[s] | Tr::writes_scalars[s] | Tr::writes_matrices[s];
      const std::uint64_t r = Tr::reads_vectors[s] | Tr::reads_scalars[s] | Tr::reads_matrices[s];
      for (int k = 0; k < n_bound; ++k) {
        if ((w >> k) & 1u) first_write[k] = s;
        if (((r >> k) & 1u) && last_read[k] < s) last_read[k] = s;
      }
    }
    for (int k = 0; k < n_bound; ++k) {
      if (!((Tr::written >> k) & 1u)) continue;
      for (int j = 0; j < n_bound; ++j) {
        if (j == k || !ranges[k].overlaps(ranges[j])) continue;
        const bool same_range =
            ranges[k].begin == ranges[j].begin && ranges[k].end == ranges[j].end;
        const bool vectors = !Seq::matrix && ((Tr::vectors >> k) & 1u) && ((Tr::vectors >> j) & 1u);
        const bool read_only = !((Tr::written >> j) & 1u);
        require(same_range && vectors && read_only && last_read[j] <= first_write[k], caller,
                SymbolName{names, "symbol", k}, " (written) shares memory with ",
                SymbolName{names, "symbol", j},
                Seq::matrix ? " (a matrix sequence's symbols may not share memory)"
                            : ", which is not the same vector, only read up to the first step "
                              "writing it");
      }
    }
  }
  return ext;
}

}  // namespace Impl

}  // namespace fusion
}  // namespace tessera
