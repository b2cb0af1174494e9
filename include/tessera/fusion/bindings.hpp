// The Views a fused sequence runs on: symbol K is bound to the K-th View (run.hpp runs a
// sequence on them).
#pragma once

#include <Kokkos_Core.hpp>

#include <tuple>

namespace tessera {
namespace fusion {

/// The Views a sequence runs on: symbol K is the K-th View (Vec: rank 1, Scalar: rank 0, Mat:
/// rank 2).
template <class... Views>
struct Bindings {
  std::tuple<Views...> views;  ///< The bound Views: element K is symbol K's View.
};

/// Binds symbols 0, 1, ... to the given Views.
template <class... Views>
Bindings<Views...> bind(const Views&... views) {
  static_assert((Kokkos::is_view<Views>::value && ...), "tessera::fusion::bind takes Views");
  return {std::tuple<Views...>(views...)};
}

}  // namespace fusion
}  // namespace tessera
