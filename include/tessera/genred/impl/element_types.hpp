// The element types of genred's Views: which ones a call takes, and the type it computes in.
//
// Variables and values outputs may be float, double, Kokkos::Experimental::half_t or (where
// Kokkos has it) bhalf_t, mixed freely. A call computes in the widest of them, with float as the
// narrowest compute type: double if any View is double, else float. Variables are widened to it
// as the kernels load their rows (impl/var_group.hpp), and values outputs are rounded from it as
// the kernels write them (impl/output_access.hpp), so formulas and reducers only ever see the
// compute type.
#pragma once

#include <tessera/core/kokkos_compat.hpp>

#include <string>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Whether genred takes Views of element type S (const or not).
template <class S>
inline constexpr bool is_genred_element =
    std::is_same_v<std::remove_const_t<S>, float> ||
    std::is_same_v<std::remove_const_t<S>, double> || is_half_precision<std::remove_const_t<S>>;

/// Whether any of the element types S... is double.
template <class... S>
inline constexpr bool any_double = (std::is_same_v<std::remove_const_t<S>, double> || ...);

/// The type a call with Views of element types S... computes in: double if any is double, else
/// float.
template <class... S>
using ComputeType = std::conditional_t<any_double<S...>, double, float>;

/// The element types genred takes, as error messages list them.
inline constexpr const char* genred_element_types =
#if defined(TESSERA_HAS_BHALF_T)
    "float, double, Kokkos::Experimental::half_t or Kokkos::Experimental::bhalf_t";
#else
    "float, double or Kokkos::Experimental::half_t";
#endif

/// What an element type is, as error messages name a type genred does not take.
template <class S>
std::string element_type_description() {
  const std::string bytes = std::to_string(sizeof(S)) + " bytes";
  if constexpr (std::is_same_v<std::remove_cv_t<S>, bool>) {
    return "bool";
  } else if constexpr (std::is_integral_v<S>) {
    return std::string(std::is_signed_v<S> ? "a signed" : "an unsigned") + " integer type of " +
           bytes;
  } else if constexpr (std::is_floating_point_v<S>) {
    return "a floating-point type of " + bytes;
  } else {
    return "a non-arithmetic type of " + bytes;
  }
}

}  // namespace Impl
}  // namespace tessera
