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
//
// Matrix sequences run in teams that own whole lines of the matrix (rows of a LayoutRight
// matrix, columns of a LayoutLeft one: the owned axis; their threads sweep the other, contiguous
// axis). A nested map-reduce along the swept axis (row_sum when rows are owned) is complete
// inside the team: later steps of the group read its result at the owned index (the team
// sweeps its lines again, the matrix then coming from cache: ATAX reads A once from memory). One
// along the owned axis (col_sum when rows are owned) is partial: each team sums its lines into
// scratch, and a second launch adds the teams' partial sums and evaluates the step's outer
// expression. A matrix group is valid unless
//   - a step reads or writes the target of an earlier partial step of the group (it is written
//     only after the kernel);
//   - a step reads at the swept index a vector that a complete step of the group writes (other
//     teams write it meanwhile);
//   - a partial step's outer expression (evaluated after the kernel) reads a vector that a later
//     step of the group writes.
// A group can also run as tiles (impl/matrix_tile_kernel.hpp): a team owns a tile of lines x a
// band of the swept axis and every nested sum of the group is partial, its result written after
// the kernel by a second launch. Such a group is valid unless
//   - a step reads or writes the target of an earlier nested sum of the group;
//   - a nested sum's outer expression reads a vector that a later step of the group writes.
// Every single step is valid as tiles (y = A y included: y is read during the kernel and written
// after it). A tile group reads each matrix once; the model counts no re-reads for it. Under a
// tile launch shape, a group valid only as lines holds each line in a team's registers where the
// lines fit (impl/matrix_held_kernel.hpp), reading each matrix once too.
#pragma once

#include <tessera/fusion/step.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

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

/// The vectors steps [a, b) of a sequence (or of its step list) read before writing them
/// (bit K: Vec<K>): those a group's kernel loads.
template <class... S>
constexpr std::uint64_t group_vector_loads(const StepList<S...>*, int a, int b) {
  const std::uint64_t reads[]  = {StepTraits<S>::reads_vectors...};  // as below
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
  const std::uint64_t writes[] = {StepTraits<S>::writes_vectors...};  // as below
  std::uint64_t stores         = 0;
  for (int s = a; s < b; ++s)
    stores |= writes[s];
  return stores;
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

/// The bytes the plan `cuts` moves, plus launch_bytes per kernel, over vectors of n elements of
/// scalar_bytes each (a vector sequence) or over an m x n matrix (a matrix sequence whose teams
/// own rows, RowsOwned, or columns; with tiles, the groups valid as tiles run as tiles, the
/// others sweep whole lines, held in registers when `held`; a matrix read again in a later
/// sweep of lines not held counts reread_share of its bytes); nothing when one of its groups is
/// invalid.
template <class Seq, bool RowsOwned = true>
std::optional<double> plan_bytes(std::uint32_t cuts, std::size_t m, std::size_t n,
                                 std::size_t scalar_bytes, double launch_bytes,
                                 double reread_share = 0, bool tiles = false, bool held = false) {
  bool valid      = true;
  double bytes    = 0;
  const double sb = double(scalar_bytes);
  for_each_group(Seq::size, cuts, [&](int a, int b) {
    if constexpr (Seq::matrix) {
      const MatrixGroup g = matrix_group<Seq, RowsOwned>(a, b);
      const bool tiled    = tiles && tile_group<Seq>(a, b);
      valid               = valid && (tiled || g.valid);
      const int rereads   = tiled || (tiles && held) ? 0 : g.rereads;
      const bool second   = tiled ? popcount(g.row_stores | g.col_stores) > 0 : g.partial_steps > 0;
      bytes += sb * (double(m) * double(n) *
                         (popcount(g.matrix_loads | g.matrix_stores) + reread_share * rereads) +
                     double(m) * (popcount(g.row_loads) + popcount(g.row_stores)) +
                     double(n) * (popcount(g.col_loads) + popcount(g.col_stores))) +
               launch_bytes * (second ? 2 : 1);
    } else {
      const Group g = group<Seq>(a, b);
      valid         = valid && g.valid;
      bytes += double(m) * sb * (popcount(g.loads) + popcount(g.stores)) + launch_bytes;
    }
  });
  if (!valid) return std::nullopt;
  return bytes;
}

/// Whether every group of the plan `cuts` is valid (tiles: see plan_bytes).
template <class Seq, bool RowsOwned = true>
bool plan_valid(std::uint32_t cuts, bool tiles = false) {
  return plan_bytes<Seq, RowsOwned>(cuts, 1, 1, 1, 0, 0, tiles).has_value();
}

}  // namespace Impl

/// The fewest lines per team (a matrix launch shape's per_thread) that make a matrix group run as
/// tiles of that many lines by a band of the swept axis, when it is valid as tiles (fewer: its
/// teams sweep whole lines, per_thread at a time).
inline constexpr int tile_lines = 64;

/// The valid plans of a sequence type (their cuts), in increasing order of the cuts (the fully
/// fused plan, if valid, first; the unfused plan, valid unless the sequence has no valid plan,
/// last). Layout: that of a matrix sequence's matrices (which axis the teams own); tiles:
/// whether a matrix sequence's groups may run as tiles (a launch shape of at least
/// fusion::tile_lines lines per team), or all sweep whole lines.
template <class Seq, class Layout = Kokkos::LayoutRight>
std::vector<std::uint32_t> candidate_plans(bool tiles = true) {
  std::vector<std::uint32_t> plans;
  constexpr bool rows_owned = !std::is_same_v<Layout, Kokkos::LayoutLeft>;
  for (std::uint32_t cuts = 0; cuts <= Impl::unfused_cuts<Seq>(); ++cuts) {
    if (Impl::plan_valid<Seq, rows_owned>(cuts, tiles)) plans.push_back(cuts);
  }
  return plans;
}

}  // namespace fusion
}  // namespace tessera
