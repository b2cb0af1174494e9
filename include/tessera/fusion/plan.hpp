// Plans: how a sequence is cut into kernels (the paper's fusion rules and cost model).
//
// A plan cuts the sequence into groups of consecutive steps, one kernel each, given by its cuts
// (bit s set: a kernel boundary after step s). A group is valid unless
//   - a step reads a scalar that a step of the same group reduces: the reduction's result
//     exists only once every team has finished, which needs a kernel boundary (the paper's
//     global barrier), and while the kernel runs the target holds neither the old value nor
//     the result (a reduction step reading its own target is rejected at compile time);
//   - it holds two reductions (a kernel reduces one value into its target without a temporary
//     buffer; the model then pays a second read of what they share).
// Inside a group, a vector that an earlier step of the group wrote is read from registers; every
// other vector the group reads is loaded once, every vector it writes stored once. The model
// counts those bytes plus Tuning::fusion_launch_bytes per kernel.
#pragma once

#include <tessera/fusion/step.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tessera {
namespace fusion {
namespace Impl {

/// What the steps of a sequence read and write (bit K: symbol K), step by step and in all.
template <class Seq>
struct SequenceTraits;
template <class... S>
struct SequenceTraits<Sequence<S...>> {
  static constexpr std::uint64_t reads_vectors[]  = {StepTraits<S>::reads_vectors...};
  static constexpr std::uint64_t reads_scalars[]  = {StepTraits<S>::reads_scalars...};
  static constexpr std::uint64_t writes_vectors[] = {StepTraits<S>::writes_vectors...};
  static constexpr std::uint64_t writes_scalars[] = {StepTraits<S>::writes_scalars...};
  static constexpr std::uint64_t vectors =
      ((StepTraits<S>::reads_vectors | StepTraits<S>::writes_vectors) | ...);
  static constexpr std::uint64_t scalars =
      ((StepTraits<S>::reads_scalars | StepTraits<S>::writes_scalars) | ...);
  static constexpr std::uint64_t written =
      ((StepTraits<S>::writes_vectors | StepTraits<S>::writes_scalars) | ...);
};

constexpr int popcount(std::uint64_t m) {
  int c = 0;
  for (; m; m &= m - 1)
    ++c;
  return c;
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
    g.loads |= Tr::reads_vectors[s] & ~vec_written;
    vec_written |= Tr::writes_vectors[s];
  }
  g.stores = vec_written;
  return g;
}

/// Calls f(a, b) for each group [a, b) of the plan `cuts` of a sequence of n_steps.
template <class F>
void for_each_group(int n_steps, std::uint32_t cuts, F&& f) {
  int a = 0;
  for (int s = 0; s < n_steps; ++s) {
    if (s + 1 == n_steps || ((cuts >> s) & 1u)) {
      f(a, s + 1);
      a = s + 1;
    }
  }
}

/// The cuts of the plan with every step its own kernel.
template <class Seq>
constexpr std::uint32_t unfused_cuts() {
  return Seq::size > 1 ? (std::uint32_t(1) << (Seq::size - 1)) - 1 : std::uint32_t(0);
}

/// The bytes the plan `cuts` moves over n elements of scalar_bytes each, plus launch_bytes per
/// kernel; nothing when one of its groups is invalid.
template <class Seq>
std::optional<double> plan_bytes(std::uint32_t cuts, std::size_t n, std::size_t scalar_bytes,
                                 double launch_bytes) {
  bool valid   = true;
  double bytes = 0;
  for_each_group(Seq::size, cuts, [&](int a, int b) {
    const Group g = group<Seq>(a, b);
    valid         = valid && g.valid;
    bytes +=
        double(n) * double(scalar_bytes) * (popcount(g.loads) + popcount(g.stores)) + launch_bytes;
  });
  if (!valid) return std::nullopt;
  return bytes;
}

}  // namespace Impl

/// The valid plans of a sequence type (their cuts), in increasing order of the cuts (the fully
/// fused plan, if valid, first; the unfused plan, always valid, last).
template <class Seq>
std::vector<std::uint32_t> candidate_plans() {
  std::vector<std::uint32_t> plans;
  for (std::uint32_t cuts = 0; cuts <= Impl::unfused_cuts<Seq>(); ++cuts) {
    if (Impl::plan_bytes<Seq>(cuts, 1, 1, 0)) plans.push_back(cuts);
  }
  return plans;
}

}  // namespace fusion
}  // namespace tessera
