// The per-item operation of the interval moves (load_balance.hpp's item operations): where
// each item of an interval is read and written, in the narrowest index type that holds it.
#pragma once

#include <tessera/interval/impl/sequence_traits.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Unsigned type of the item indices computed from starts of integer type T: 32 bits where a
/// start plus a rank cannot reach 2^32 - 1 (T's values at most 2^31 - 1), else 64.
template <class T>
using move_index_t =
    std::conditional_t<(std::numeric_limits<T>::max() <= INT_MAX), std::uint32_t, std::uint64_t>;

/// Per-item operation of the moves: the r-th item of interval k goes from input[gather[k] + r]
/// to output[scatter[k] + r]. Each team stages its intervals' two starts once, less the local
/// index of the interval's first item, in the narrowest index type that holds them (modular
/// arithmetic: local item q is at source + q). Ranges outside the sequences (possible only when
/// IntervalOptions::check is off) are neither read nor written.
template <class Gather, class Scatter, class Input, class Output>
struct MoveItems {
  static constexpr bool fills = false;
  using SourceIndex           = move_index_t<sequence_value_t<Gather>>;
  using DestinationIndex      = move_index_t<sequence_value_t<Scatter>>;
  struct staged_type {
    SourceIndex source;
    DestinationIndex destination;
  };
  using value_type  = typename Output::non_const_value_type;
  using target_type = DestinationIndex;  // the output item
  Gather gather;
  Scatter scatter;
  Input input;
  Output output;
  /// The extents, capped at the index types' largest value (no valid index reaches it).
  SourceIndex input_limit;
  DestinationIndex output_limit;

  MoveItems(const Gather& g, const Scatter& s, const Input& in, const Output& out)
      : gather(g),
        scatter(s),
        input(in),
        output(out),
        input_limit(capped<SourceIndex>(in.extent(0))),
        output_limit(capped<DestinationIndex>(out.extent(0))) {}

  /// extent, or Index's largest value if smaller.
  template <class Index>
  static Index capped(std::uint64_t extent) {
    const auto largest = static_cast<std::uint64_t>(std::numeric_limits<Index>::max());
    return static_cast<Index>(extent < largest ? extent : largest);
  }

  /// Interval k, whose first item is the team's local item `first`.
  KOKKOS_INLINE_FUNCTION staged_type stage(std::int64_t k, int first) const {
    return {static_cast<SourceIndex>(static_cast<SourceIndex>(gather(k)) -
                                     static_cast<SourceIndex>(first)),
            static_cast<DestinationIndex>(static_cast<DestinationIndex>(scatter(k)) -
                                          static_cast<DestinationIndex>(first))};
  }
  KOKKOS_INLINE_FUNCTION value_type load(int q, const staged_type& s) const {
    const auto j = static_cast<SourceIndex>(s.source + static_cast<SourceIndex>(q));
    return j < input_limit ? value_type(input(j)) : value_type{};
  }
  KOKKOS_INLINE_FUNCTION target_type target(int q, const staged_type& s) const {
    return static_cast<DestinationIndex>(s.destination + static_cast<DestinationIndex>(q));
  }
  KOKKOS_INLINE_FUNCTION void store(target_type j, const value_type& v) const {
    if (j < output_limit) output(j) = v;
  }
};

}  // namespace Impl
}  // namespace tessera
