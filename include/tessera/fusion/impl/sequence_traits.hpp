// What the steps of a sequence read and write, as masks of symbols (bit K: symbol K), for
// plan.hpp's fusion rules and cost model, run.hpp's checks of the bindings and the kernels.
#pragma once

#include <tessera/fusion/step.hpp>

#include <cstdint>

namespace tessera {
namespace fusion {
namespace Impl {

/// What the steps of a sequence read and write (bit K: symbol K), step by step and in all.
template <class Seq>
struct SequenceTraits;
template <class... S>
struct SequenceTraits<Sequence<S...>> {
  static constexpr StepKind kinds[]                  = {StepTraits<S>::kind...};
  static constexpr std::uint64_t reads_row_vectors[] = {StepTraits<S>::reads_row_vectors...};
  static constexpr std::uint64_t reads_col_vectors[] = {StepTraits<S>::reads_col_vectors...};
  static constexpr std::uint64_t outer_vectors[]     = {StepTraits<S>::outer_vectors...};
  static constexpr std::uint64_t reads_matrices[]    = {StepTraits<S>::reads_matrices...};
  static constexpr std::uint64_t writes_matrices[]   = {StepTraits<S>::writes_matrices...};
  static constexpr std::uint64_t row_vectors =
      ((StepTraits<S>::reads_row_vectors | StepTraits<S>::writes_row_vectors) | ...);
  static constexpr std::uint64_t col_vectors =
      ((StepTraits<S>::reads_col_vectors | StepTraits<S>::writes_col_vectors) | ...);
  static constexpr std::uint64_t matrices =
      ((StepTraits<S>::reads_matrices | StepTraits<S>::writes_matrices) | ...);
  static constexpr std::uint64_t reads_vectors[]  = {StepTraits<S>::reads_vectors...};
  static constexpr std::uint64_t reads_scalars[]  = {StepTraits<S>::reads_scalars...};
  static constexpr std::uint64_t writes_vectors[] = {StepTraits<S>::writes_vectors...};
  static constexpr std::uint64_t writes_scalars[] = {StepTraits<S>::writes_scalars...};
  static constexpr std::uint64_t vectors =
      ((StepTraits<S>::reads_vectors | StepTraits<S>::writes_vectors) | ...);
  static constexpr std::uint64_t scalars =
      ((StepTraits<S>::reads_scalars | StepTraits<S>::writes_scalars) | ...);
  static constexpr std::uint64_t written =
      ((StepTraits<S>::writes_vectors | StepTraits<S>::writes_scalars |
        StepTraits<S>::writes_matrices) |
       ...);
};

constexpr int popcount(std::uint64_t m) {
  int c = 0;
  for (; m; m &= m - 1)
    ++c;
  return c;
}

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
