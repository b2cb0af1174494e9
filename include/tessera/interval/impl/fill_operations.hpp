// The fill operations (load_balance.hpp's item operations that write one value per interval)
// of interval_expand and load_balancing_search.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

/// Fill operation of interval_expand: each team stages its intervals' values once.
template <class Values, class Out>
struct ExpandValue {
  static constexpr bool fills = true;
  using staged_type           = typename Out::non_const_value_type;
  Values values;
  Out out;
  KOKKOS_INLINE_FUNCTION staged_type stage(std::int64_t k) const { return values(k); }
};

/// Fill operation of load_balancing_search: out[i] = k.
template <class Owner>
struct StoreOwner {
  static constexpr bool fills = true;
  using staged_type           = typename Owner::non_const_value_type;
  Owner out;
  KOKKOS_INLINE_FUNCTION staged_type stage(std::int64_t k) const {
    return static_cast<staged_type>(k);
  }
};

}  // namespace Impl
}  // namespace tessera
