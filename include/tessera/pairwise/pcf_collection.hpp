// Piecewise constant functions (PCFs): the collection type the pairwise engine integrates, and
// its validator.
//
// A PCF f with breakpoints (t_0, v_0), ..., (t_{K-1}, v_{K-1}), t_0 < t_1 < ... < t_{K-1}, is
//
//   f(t) = 0          for t < t_0,
//   f(t) = v_k        for t_k <= t < t_{k+1},
//   f(t) = v_{K-1}    for t_{K-1} <= t < end,
//
// where `end` is the integration end of the call (PairwiseOptions::end_time, +infinity by
// default). The last value extends to +infinity, as in masspcf, so that a PCF means the same
// whatever else it is compared with; integrals over an infinite domain are then finite only if
// every function ends at zero, which is what the validator demands when end is infinite (Betti
// curves, stable ranks and other PCFs of topological data analysis do end at zero). With a
// finite end, breakpoints at or after it are ignored and the last value may be anything. Before
// its first breakpoint a function is zero, so that functions starting at different times compare
// as the plots show them (masspcf's functions all start at t = 0, where both conventions agree).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/pairwise/function_shape.hpp>
#include <tessera/pairwise/impl/pcf_validation.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera {

/// One breakpoint as the kernels load it: 8 (float) or 16 (double) bytes in one load.
template <class T>
struct alignas(2 * sizeof(T)) PcfPoint {
  T t;  ///< time t_k
  T v;  ///< value v_k
};

template <class T, class MemorySpace = Kokkos::HostSpace>
class PcfCollection;

namespace Impl {
template <class MemorySpace, class T>
PcfCollection<T, MemorySpace> validated_pcfs(const PcfCollection<T, Kokkos::HostSpace>& host,
                                             const char* caller, const char* argument);
template <class T>
PcfCollection<T, Kokkos::HostSpace> host_pcfs(
    const std::vector<std::vector<std::array<T, 2>>>& functions);
template <class T>
PcfCollection<T, Kokkos::HostSpace> host_pcfs(const std::vector<std::vector<T>>& times,
                                              const std::vector<std::vector<T>>& values);
}  // namespace Impl

/// A collection of n PCFs in one memory space: offsets(f) .. offsets(f + 1) - 1 index f's rows of
/// breakpoints(k, 0) = t_k and breakpoints(k, 1) = v_k (masspcf's (K, 2) point arrays, stored
/// back to back). T is float or double (times and values alike); offsets has n + 1 entries,
/// offsets(0) = 0 and offsets(n) = breakpoints.extent(0). The Views are held, not copied.
/// A collection may carry a batch shape (reshaped()), which cdist's dense output takes over.
/// Built from the two Views, or from host lists of functions (the constructors below), or from
/// two .npy files (read_pcf_collection_npy(), pcf_collection_npy.hpp).
template <class T, class MemorySpace>
class PcfCollection {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tessera::PcfCollection: T must be float or double");

 public:
  /// Type of times and values.
  using value_type = T;
  /// Memory space of the Views.
  using memory_space = MemorySpace;
  /// The n + 1 offsets of the functions into the breakpoints.
  using offsets_view = Kokkos::View<const std::size_t*, MemorySpace>;
  /// The breakpoints, one row (t_k, v_k) each.
  using breakpoints_view = Kokkos::View<const T* [2], Kokkos::LayoutRight, MemorySpace>;

  PcfCollection() = default;
  /// Throws std::invalid_argument for an empty offsets View (n + 1 >= 1 entries are needed).
  PcfCollection(offsets_view offsets, breakpoints_view breakpoints)
      : offsets_(offsets), breakpoints_(breakpoints), shape_(checked_size(offsets)) {}

  /// The functions of a host list, one list of (t, v) rows per function, e.g.
  /// PcfCollection<float>({{{0, 1}, {2, 0}}, {{1, 3}, {4, 0}}}): copied into new Views in
  /// MemorySpace. Checked as validate_pcfs() checks (every function non-empty, finite strictly
  /// increasing times, finite values; the tails, which depend on a call's end_time, are checked by
  /// each call), throwing std::invalid_argument "tessera::PcfCollection: functions function f
  /// ...". O(K) work for K breakpoints; the copies take (n + 1) size_t and 2 K values.
  explicit PcfCollection(const std::vector<std::vector<std::array<T, 2>>>& functions)
      : PcfCollection(Impl::validated_pcfs<MemorySpace>(Impl::host_pcfs(functions), "PcfCollection",
                                                        "functions")) {}

  /// The constructor above from a braced list, PcfCollection<float>{{{0, 1}, {2, 0}}, {{1, 3},
  /// {4, 0}}} (which a list of two functions would otherwise make ambiguous with the
  /// constructor below).
  PcfCollection(std::initializer_list<std::vector<std::array<T, 2>>> functions)
      : PcfCollection(std::vector<std::vector<std::array<T, 2>>>(functions)) {}

  /// The functions of host lists of times and values, times[f][k] = t_k and values[f][k] = v_k
  /// of function f (masspcf's two arrays per function); as the constructor above, and
  /// std::invalid_argument when the lists differ in length (times and values of one function
  /// or the number of functions).
  PcfCollection(const std::vector<std::vector<T>>& times, const std::vector<std::vector<T>>& values)
      : PcfCollection(Impl::validated_pcfs<MemorySpace>(Impl::host_pcfs(times, values),
                                                        "PcfCollection", "times and values")) {}

  /// The same functions seen as a batch of the given shape (its size must be size()).
  PcfCollection reshaped(const FunctionShape& shape) const {
    if (shape.size() != size()) {
      throw std::invalid_argument(Impl::concat("tessera::PcfCollection::reshaped: shape ",
                                               shape.str(), " holds ", shape.size(),
                                               " functions (expected ", size(), ")"));
    }
    PcfCollection r = *this;
    r.shape_        = shape;
    return r;
  }

  /// Number of functions.
  std::size_t size() const { return offsets_.extent(0) == 0 ? 0 : offsets_.extent(0) - 1; }
  /// Batch shape: (size()) unless reshaped() gave another.
  const FunctionShape& shape() const { return shape_; }
  /// The offsets View.
  const offsets_view& offsets() const { return offsets_; }
  /// The breakpoints View.
  const breakpoints_view& breakpoints() const { return breakpoints_; }

 private:
  static std::size_t checked_size(const offsets_view& offsets) {
    if (offsets.extent(0) == 0) {
      throw std::invalid_argument(
          "tessera::PcfCollection: offsets has no entries (expected n + 1 >= 1)");
    }
    return offsets.extent(0) - 1;
  }

  offsets_view offsets_;
  breakpoints_view breakpoints_;
  FunctionShape shape_;
};

/// What the validator learns on its way: the engine sizes its buffers and picks its kernel with
/// it.
struct PcfSummary {
  std::size_t functions  = 0;  ///< n
  std::size_t points     = 0;  ///< breakpoints of all functions
  std::size_t max_points = 0;  ///< breakpoints of the longest function
};

/// Checks a collection and summarises it: offsets(0) = 0 and offsets(n) = number of
/// breakpoints; every function non-empty, with finite, strictly increasing times and finite
/// values; with an infinite end_time, every function's last value 0 (see the file comment).
/// Throws std::invalid_argument naming the first bad function, its breakpoint and the defect,
/// as "tessera::<caller>: <argument> function f ...". Runs on the host when it can read the
/// Views, else on their memory space's execution space; returns host values, so it waits.
/// O(points) work, no allocation.
template <class T, class MemorySpace>
PcfSummary validate_pcfs(const PcfCollection<T, MemorySpace>& pcfs,
                         T end_time = math::infinity<T>(), const char* caller = "validate_pcfs",
                         const char* argument = "pcfs") {
  using Space         = Impl::ValidationSpace<MemorySpace>;
  const auto& off     = pcfs.offsets();
  const auto& bp      = pcfs.breakpoints();
  const std::size_t n = pcfs.size();
  Impl::require(!(end_time != end_time) && end_time > -math::infinity<T>(), caller,
                "end_time is NaN or -infinity");
  if (off.extent(0) == 0) {
    throw std::invalid_argument(Impl::concat("tessera::", caller, ": ", argument,
                                             " offsets has no entries (expected n + 1 >= 1)"));
  }

  std::size_t ends[2] = {0, 0};
  {
    auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{},
                                                     Kokkos::subview(off, std::make_pair(0, 1)));
    auto last  = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{},
                                                     Kokkos::subview(off, std::make_pair(n, n + 1)));
    ends[0]    = first(0);
    ends[1]    = last(0);
  }
  if (ends[0] != 0 || ends[1] != bp.extent(0)) {
    throw std::invalid_argument(
        Impl::concat("tessera::", caller, ": ", argument, " offsets run from ", ends[0], " to ",
                     ends[1], " (expected 0 to ", bp.extent(0), ", the number of breakpoints)"));
  }

  PcfSummary summary{n, bp.extent(0), 0};
  if (n == 0) return summary;
  const bool infinite_end = !(end_time < math::infinity<T>());
  std::size_t first_bad   = n;
  Kokkos::parallel_reduce("tessera::pairwise::validate_pcfs",
                          Kokkos::RangePolicy<Space>(Space{}, 0, n),
                          Impl::PcfCheck<std::decay_t<decltype(off)>, std::decay_t<decltype(bp)>>{
                              off, bp, infinite_end},
                          Kokkos::Min<std::size_t>(first_bad));
  if (first_bad < n) {
    // Describe the defect on the host from a copy of the bad function alone.
    auto range = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace{}, Kokkos::subview(off, std::make_pair(first_bad, first_bad + 2)));
    const std::size_t begin = range(0), end = range(1);
    const std::size_t hi = end > begin && end <= bp.extent(0) ? end : begin;
    Kokkos::View<T* [2], Kokkos::LayoutRight, Kokkos::HostSpace> local("tessera::pcf", hi - begin);
    if (hi > begin) {
      Kokkos::deep_copy(local, Kokkos::subview(bp, std::make_pair(begin, hi), Kokkos::ALL));
    }
    std::size_t where = 0;
    const auto defect = end <= begin ? Impl::PcfDefect::empty
                        : end > bp.extent(0)
                            ? Impl::PcfDefect::past_end
                            : Impl::pcf_defect(local, 0, hi - begin, infinite_end, where);
    throw std::invalid_argument(
        Impl::concat("tessera::", caller, ": ", argument, " function ", first_bad, " (breakpoints ",
                     begin, " to ", end, ", at breakpoint ", where, ") ", Impl::describe(defect)));
  }
  Kokkos::parallel_reduce("tessera::pairwise::longest_pcf",
                          Kokkos::RangePolicy<Space>(Space{}, 0, n),
                          Impl::PcfLongest<std::decay_t<decltype(off)>>{off},
                          Kokkos::Max<std::size_t>(summary.max_points));
  return summary;
}

}  // namespace tessera

// The constructors' bodies (Impl::host_pcfs, Impl::validated_pcfs). Last, since they build
// collections and call validate_pcfs(): their header includes this one, so either header may
// come first.
#include <tessera/pairwise/impl/pcf_builders.hpp>
