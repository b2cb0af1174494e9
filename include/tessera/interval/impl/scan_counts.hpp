// The kernels of exclusive_scan: the total of the counts in 64 bits, and their scan into the
// offsets.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

template <class Counts>
struct CountsToInt64 {
  Counts counts;
  KOKKOS_INLINE_FUNCTION void operator()(int k, std::int64_t& sum) const {
    sum += static_cast<std::int64_t>(counts(k));
  }
};

template <class Counts, class Offsets>
struct ExclusiveScanCounts {
  Counts counts;
  Offsets offsets;
  using Offset = typename Offsets::non_const_value_type;
  KOKKOS_INLINE_FUNCTION void operator()(int k, std::int64_t& partial, bool final) const {
    if (final) offsets(k) = static_cast<Offset>(partial);
    partial += static_cast<std::int64_t>(counts(k));
  }
};

}  // namespace Impl
}  // namespace tessera
