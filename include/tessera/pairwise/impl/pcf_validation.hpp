// The pieces of validate_pcfs() (pcf_collection.hpp): the defects a function may have, the check
// of one function's breakpoints (on the host or the device), the reductions that find the first
// invalid function and the longest one, the space they run on, and the words of each defect.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Why a function is invalid, as the device check reports it.
enum class PcfDefect : int {
  none = 0,
  empty,             // offsets(f + 1) <= offsets(f)
  past_end,          // offsets(f + 1) > breakpoints.extent(0)
  time_not_finite,   // a time is NaN or infinite
  time_unsorted,     // t_{k+1} <= t_k
  value_not_finite,  // a value is NaN or infinite
  tail_not_zero,     // the last value is not 0 with an infinite integration end
};

template <class T>
KOKKOS_INLINE_FUNCTION bool is_finite(T x) {
  return x - x == T(0);  // false for NaN and +-infinity; needs no math library on any backend
}

/// The first defect of breakpoints [begin, end) of one function, and the breakpoint it is at.
template <class Breakpoints>
KOKKOS_INLINE_FUNCTION PcfDefect pcf_defect(const Breakpoints& bp, std::size_t begin,
                                            std::size_t end, bool infinite_end,
                                            std::size_t& where) {
  using T = std::remove_const_t<typename Breakpoints::value_type>;
  where   = begin;
  if (end <= begin) return PcfDefect::empty;
  if (end > bp.extent(0)) return PcfDefect::past_end;
  for (std::size_t k = begin; k < end; ++k) {
    where     = k;
    const T t = bp(k, 0);
    if (!is_finite(t)) return PcfDefect::time_not_finite;
    if (k > begin && !(t > bp(k - 1, 0))) return PcfDefect::time_unsorted;
    if (!is_finite(bp(k, 1))) return PcfDefect::value_not_finite;
  }
  if (infinite_end && bp(end - 1, 1) != T(0)) return PcfDefect::tail_not_zero;
  return PcfDefect::none;
}

/// Index of the first invalid function (n if none) and the longest function's length.
template <class Offsets, class Breakpoints>
struct PcfCheck {
  Offsets offsets;
  Breakpoints breakpoints;
  bool infinite_end;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t f, std::size_t& first_bad) const {
    std::size_t where;
    if (pcf_defect(breakpoints, offsets(f), offsets(f + 1), infinite_end, where) !=
            PcfDefect::none &&
        f < first_bad) {
      first_bad = f;
    }
  }
};
template <class Offsets>
struct PcfLongest {
  Offsets offsets;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t f, std::size_t& longest) const {
    const std::size_t len = offsets(f + 1) - offsets(f);
    if (len > longest) longest = len;
  }
};

/// An execution space that can read MemorySpace: the host when it can, else the space's own.
template <class MemorySpace>
using ValidationSpace = std::conditional_t<
    Kokkos::SpaceAccessibility<Kokkos::DefaultHostExecutionSpace, MemorySpace>::accessible,
    Kokkos::DefaultHostExecutionSpace, typename MemorySpace::execution_space>;

inline const char* describe(PcfDefect d) {
  switch (d) {
    case PcfDefect::empty:
      return "has no breakpoints (offsets must increase strictly)";
    case PcfDefect::past_end:
      return "ends past the last breakpoint (offsets exceed breakpoints)";
    case PcfDefect::time_not_finite:
      return "has a NaN or infinite time";
    case PcfDefect::time_unsorted:
      return "has times that do not increase strictly";
    case PcfDefect::value_not_finite:
      return "has a NaN or infinite value";
    case PcfDefect::tail_not_zero:
      return "ends at a non-zero value, so its integral to end_time = +infinity diverges "
             "(end the function at 0 or pass a finite end_time)";
    default:
      return "is valid";
  }
}

}  // namespace Impl
}  // namespace tessera
