// A group of steps of a matrix sequence as one kernel (plan.hpp's fusion rules): which of its
// nested sums are complete in a team and which partial, whether it is valid with teams sweeping
// whole lines or as tiles, and the matrices and vectors it loads and stores.
#pragma once

#include <tessera/fusion/impl/sequence_traits.hpp>
#include <tessera/fusion/step.hpp>

#include <cstdint>

namespace tessera {
namespace fusion {
namespace Impl {

/// Whether step s of a matrix sequence is complete in a team (a nested sum along the swept
/// axis) or partial (along the owned axis), when the teams own rows (RowsOwned) or columns.
template <class Seq, bool RowsOwned>
constexpr bool complete_step(int s) {
  return SequenceTraits<Seq>::kinds[s] == (RowsOwned ? StepKind::row_sum : StepKind::col_sum);
}
template <class Seq, bool RowsOwned>
constexpr bool partial_step(int s) {
  return SequenceTraits<Seq>::kinds[s] == (RowsOwned ? StepKind::col_sum : StepKind::row_sum);
}

/// The vectors step s of a matrix sequence reads at the owned and at the swept index.
template <class Seq, bool RowsOwned>
constexpr std::uint64_t owned_reads(int s) {
  using Tr = SequenceTraits<Seq>;
  return RowsOwned ? Tr::reads_row_vectors[s] : Tr::reads_col_vectors[s];
}
template <class Seq, bool RowsOwned>
constexpr std::uint64_t swept_reads(int s) {
  using Tr = SequenceTraits<Seq>;
  return RowsOwned ? Tr::reads_col_vectors[s] : Tr::reads_row_vectors[s];
}

/// The vectors the complete steps among steps [a, b) of a matrix sequence write (bit K: Vec<K>),
/// with rows (RowsOwned) or columns owned.
template <class Seq, bool RowsOwned, class... S>
constexpr std::uint64_t complete_stores(const Sequence<S...>*, int a, int b) {
  // Local copies of the steps' traits: nvcc's front end misreads SequenceTraits' arrays in
  // static constexpr initializers.
  const StepKind kinds[]       = {StepTraits<S>::kind...};
  const std::uint64_t writes[] = {StepTraits<S>::writes_vectors...};
  constexpr StepKind complete  = RowsOwned ? StepKind::row_sum : StepKind::col_sum;
  std::uint64_t stores         = 0;
  for (int s = a; s < b; ++s)
    if (kinds[s] == complete) stores |= writes[s];
  return stores;
}
template <class Seq, bool RowsOwned>
constexpr std::uint64_t group_complete_stores(int a, int b) {
  return complete_stores<Seq, RowsOwned>(static_cast<const Seq*>(nullptr), a, b);
}

/// The matrices steps [a, b) of a sequence write (bit K: Mat<K>).
template <class... S>
constexpr std::uint64_t group_matrix_stores(const Sequence<S...>*, int a, int b) {
  const std::uint64_t writes[] = {StepTraits<S>::writes_matrices...};  // as below
  std::uint64_t stores         = 0;
  for (int s = a; s < b; ++s)
    stores |= writes[s];
  return stores;
}

/// The matrices steps [a, b) of a sequence read before writing them (bit K: Mat<K>).
template <class... S>
constexpr std::uint64_t group_matrix_loads(const Sequence<S...>*, int a, int b) {
  // Local copies of the steps' traits: nvcc's front end misreads SequenceTraits' arrays here.
  const std::uint64_t reads[]  = {StepTraits<S>::reads_matrices...};
  const std::uint64_t writes[] = {StepTraits<S>::writes_matrices...};
  std::uint64_t loads = 0, stores = 0;
  for (int s = a; s < b; ++s) {
    loads |= reads[s] & ~stores;
    stores |= writes[s];
  }
  return loads;
}

/// Steps [a, b) of a matrix sequence as one kernel: whether that is valid (see the file
/// comment), the matrices it loads and stores, the vectors it loads and stores at rows and at
/// columns, and its partial steps.
struct MatrixGroup {
  bool valid;
  std::uint64_t matrix_loads, matrix_stores, row_loads, col_loads, row_stores, col_stores;
  int partial_steps;
  int rereads;  // matrix reads in sweeps after the first (a team sweeps its lines again)
};
template <class Seq, bool RowsOwned>
constexpr MatrixGroup matrix_group(int a, int b) {
  using Tr            = SequenceTraits<Seq>;
  MatrixGroup g       = {true, 0, 0, 0, 0, 0, 0, 0, 0};
  std::uint64_t whole = 0;  // targets of the group's complete steps
  for (int s = a; s < b; ++s)
    if (complete_step<Seq, RowsOwned>(s)) whole |= Tr::writes_vectors[s];
  std::uint64_t partial = 0, vec_written = 0, pending = 0;
  bool later_sweep = false;
  for (int s = a; s < b; ++s) {
    // A new sweep starts at a step that reads a complete step's result of the current sweep.
    if (owned_reads<Seq, RowsOwned>(s) & pending) {
      later_sweep = true;
      pending     = 0;
    }
    if (complete_step<Seq, RowsOwned>(s)) pending |= Tr::writes_vectors[s];
    if (later_sweep) g.rereads += popcount(Tr::reads_matrices[s]);
    const std::uint64_t touched = Tr::reads_vectors[s] | Tr::writes_vectors[s];
    if (touched & partial) g.valid = false;
    if (swept_reads<Seq, RowsOwned>(s) & whole) g.valid = false;
    if (partial_step<Seq, RowsOwned>(s)) {
      std::uint64_t later = 0;
      for (int t = s + 1; t < b; ++t)
        later |= Tr::writes_vectors[t];
      if (Tr::outer_vectors[s] & later) g.valid = false;
      partial |= Tr::writes_vectors[s];
      ++g.partial_steps;
    }
    g.matrix_stores |= Tr::writes_matrices[s];
    g.row_loads |= Tr::reads_row_vectors[s] & ~vec_written;
    g.col_loads |= Tr::reads_col_vectors[s] & ~vec_written;
    vec_written |= Tr::writes_vectors[s];
    (Tr::kinds[s] == StepKind::row_sum ? g.row_stores : g.col_stores) |= Tr::writes_vectors[s];
  }
  g.matrix_loads = group_matrix_loads(static_cast<const Seq*>(nullptr), a, b);
  return g;
}

/// Whether steps [a, b) of a matrix sequence are valid as tiles (see the file comment).
template <class Seq>
constexpr bool tile_group(int a, int b) {
  using Tr           = SequenceTraits<Seq>;
  std::uint64_t sums = 0;  // targets of the group's nested sums so far
  for (int s = a; s < b; ++s) {
    if ((Tr::reads_vectors[s] | Tr::writes_vectors[s]) & sums) return false;
    if (Tr::kinds[s] == StepKind::row_sum || Tr::kinds[s] == StepKind::col_sum) {
      std::uint64_t later = 0;
      for (int t = s + 1; t < b; ++t)
        later |= Tr::writes_vectors[t];
      if (Tr::outer_vectors[s] & later) return false;
      sums |= Tr::writes_vectors[s];
    }
  }
  return true;
}

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
