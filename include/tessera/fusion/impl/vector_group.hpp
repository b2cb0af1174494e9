// A group of steps of a vector sequence as one kernel (plan.hpp's fusion rules): whether it is
// valid, and the vectors it loads and stores.
#pragma once

#include <tessera/fusion/impl/sequence_traits.hpp>
#include <tessera/fusion/step.hpp>

#include <cstdint>

namespace tessera {
namespace fusion {
namespace Impl {

/// The vectors steps [a, b) of a sequence (or of its step list) read before writing them
/// (bit K: Vec<K>): those a group's kernel loads.
template <class... S>
constexpr std::uint64_t group_vector_loads(const StepList<S...>*, int a, int b) {
  const std::uint64_t reads[]  = {StepTraits<S>::reads_vectors...};  // see group_matrix_loads
  const std::uint64_t writes[] = {StepTraits<S>::writes_vectors...};
  std::uint64_t loads = 0, written = 0;
  for (int s = a; s < b; ++s) {
    loads |= reads[s] & ~written;
    written |= writes[s];
  }
  return loads;
}
template <class... S>
constexpr std::uint64_t group_vector_loads(const Sequence<S...>*, int a, int b) {
  return group_vector_loads(static_cast<const StepList<S...>*>(nullptr), a, b);
}

/// The vectors steps [a, b) of a step list write (bit K: Vec<K>).
template <class... S>
constexpr std::uint64_t group_vector_stores(const StepList<S...>*, int a, int b) {
  const std::uint64_t writes[] = {StepTraits<S>::writes_vectors...};  // see group_matrix_loads
  std::uint64_t stores         = 0;
  for (int s = a; s < b; ++s)
    stores |= writes[s];
  return stores;
}

/// Steps [a, b) as one kernel: whether that is valid, the vectors it loads and stores.
struct Group {
  bool valid;
  std::uint64_t loads, stores;
};
template <class Seq>
constexpr Group group(int a, int b) {
  using Tr                    = SequenceTraits<Seq>;
  Group g                     = {true, 0, 0};
  std::uint64_t group_reduces = 0;
  for (int s = a; s < b; ++s) {
    if (Tr::writes_scalars[s] && group_reduces) g.valid = false;  // a second reduction
    group_reduces |= Tr::writes_scalars[s];
  }
  std::uint64_t vec_written = 0;
  for (int s = a; s < b; ++s) {
    // A scalar the group reduces is neither final nor its old value while the kernel runs,
    // whether the step reading it comes before or after the reduction.
    if (Tr::reads_scalars[s] & group_reduces) g.valid = false;
    vec_written |= Tr::writes_vectors[s];
  }
  g.loads  = group_vector_loads(static_cast<const Seq*>(nullptr), a, b);
  g.stores = vec_written;
  return g;
}

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
