// Running a fused sequence: bind its symbols to Views, choose a plan, launch its kernels.
//
//   constexpr fusion::Vec<0> w;  constexpr fusion::Vec<1> v;  constexpr fusion::Vec<2> u;
//   constexpr fusion::Vec<3> z;  constexpr fusion::Scalar<4> r;
//   auto seq = fusion::sequence(fusion::assign(z, w - alpha * v),   // map:    z_i = w_i - a v_i
//                               fusion::assign(r, dot(z, u)));       // reduce: r = sum z_i u_i
//   fusion::run(space, seq, fusion::bind(w_view, v_view, u_view, z_view, r_view));
//
// The plan (plan.hpp) is the one the model prefers, the unfused one, one given by its cuts, or
// the tuner's pick. Vector sequences run in impl/vector_kernel.hpp's kernels, matrix sequences
// in impl/matrix_kernel.hpp's (teams sweeping whole lines), impl/matrix_tile_kernel.hpp's
// (tiles) or impl/matrix_held_kernel.hpp's (lines held in registers), as impl/matrix_launch.hpp
// chooses, their sums finished by impl/matrix_sums_kernel.hpp's.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/memory_overlap.hpp>
#include <tessera/core/tiling.hpp>
#include <tessera/fusion/impl/matrix_launch.hpp>
#include <tessera/fusion/impl/vector_kernel.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/step.hpp>
#include <tessera/fusion/tuner.hpp>
#include <tessera/fusion/workspace.hpp>
#include <tessera/core/version.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

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

/// How run() chooses its plan (plan.hpp).
enum class PlanChoice {
  model,   ///< the valid plan that moves the fewest bytes, launches counted
  unfused  ///< every step its own kernel (the sequence of library calls)
};

/// Options of run().
struct FusionOptions {
  /// How the plan is chosen when neither cuts nor tuner is given.
  PlanChoice choice = PlanChoice::model;
  /// A plan given by its cuts (bit s: a kernel boundary after step s); overrides choice.
  std::optional<std::uint32_t> cuts;
  /// Threads per team; 0: Tuning<ExecSpace>'s.
  int team_size = 0;
  /// Elements per thread (vector sequences) or matrix lines per team (matrix sequences: 1, 4,
  /// 16 or 32 lines a team sweeps at a time, or tiles of at least fusion::tile_lines lines for
  /// the groups valid as tiles, the others then holding each line in a team's registers where
  /// it fits (Tuning<ExecSpace>::fusion_held_*), else sweeping
  /// Tuning<ExecSpace>::fusion_matrix_rows lines at a time); 0: Tuning<ExecSpace>'s.
  int per_thread = 0;
  /// When set (and no cuts are given): the plan and launch shape the tuner found fastest for
  /// this sequence, value type, extents and device, timing the candidates on the first call
  /// (tuner.hpp; that call waits on the host). The options' own shape is then ignored.
  Tuner* tuner = nullptr;
  /// When set: the buffer matrix groups keep their partial sums in (workspace.hpp), so that the
  /// call does not allocate and free one (freeing waits for the device).
  Workspace* workspace = nullptr;
};

/// What run() did.
struct FusionReport {
  std::uint32_t cuts = 0;  ///< the plan (bit s: a kernel boundary after step s)
  int kernels        = 0;  ///< kernels launched
  double model_bytes = 0;  ///< the bytes the model counts for the plan, launches included
  /// Threads per team of the launch shape run (the default one: matrix tile groups then take
  /// the backend's tiles for their kind, Tuning::fusion_tile_shape and
  /// fusion_tile_shape_owned_sums, and vector groups with a reduction
  /// Tuning::fusion_vector_reduction_shape).
  int team_size = 0;
  /// Elements per thread (vector sequences) or matrix lines per team (matrix sequences) of the
  /// launch shape run.
  int per_thread = 0;
};

namespace Impl {

using tessera::Impl::concat;
using tessera::Impl::memory_range;
using tessera::Impl::MemoryRange;
using tessera::Impl::require;
using tessera::Impl::require_int_extent;

/// A bound View's name in messages: its argument name when the caller has names (a ready
/// function's, one per bound View), else "<kind> K" (vector 2, matrix 0, symbol 4).
struct SymbolName {
  const char* const* names;  ///< one name per bound View, or nullptr
  const char* kind;          ///< the kind written before K without names
  int k;                     ///< the symbol
};
inline std::ostream& operator<<(std::ostream& os, const SymbolName& s) {
  if (s.names) return os << s.names[s.k];
  return os << s.kind << ' ' << s.k;
}

/// Calls f(integral_constant<int, K>, get<K>(t)) for every element K of a tuple.
template <class F, class Tuple, std::size_t... K>
void for_each_indexed(F&& f, const Tuple& t, std::index_sequence<K...>) {
  (f(std::integral_constant<int, int(K)>{}, std::get<K>(t)), ...);
}

/// The bound Views' data pointers (symbol K at K), for the kernels; const removed (only the
/// symbols a sequence writes, bound to non-const Views, are written through them).
template <class T, class... Views>
Kokkos::Array<T*, sizeof...(Views)> bound_pointers(const Views&... views) {
  return {const_cast<T*>(views.data())...};
}

/// The extents a sequence runs over: its matrices' rows and columns (a vector sequence: its
/// length in both).
struct SequenceExtents {
  std::size_t rows = 0, cols = 0;
};

/// The layout of the first View among Views (the K-th and later) whose symbol is in Mats
/// (LayoutRight if none is).
template <std::uint64_t Mats, int K, class... Views>
struct FirstMatrixLayout {
  using type = Kokkos::LayoutRight;
};
template <std::uint64_t Mats, int K, class V, class... Views>
struct FirstMatrixLayout<Mats, K, V, Views...> {
  using type = std::conditional_t<((Mats >> K) & 1u) != 0, typename V::array_layout,
                                  typename FirstMatrixLayout<Mats, K + 1, Views...>::type>;
};

/// The layout of a matrix sequence's matrices (that of the first one bound).
template <class Seq, class... Views>
struct MatrixLayoutOf {
  using type = typename FirstMatrixLayout<SequenceTraits<Seq>::matrices, 0, Views...>::type;
  static_assert(std::is_same_v<type, Kokkos::LayoutRight> ||
                    std::is_same_v<type, Kokkos::LayoutLeft>,
                "tessera::fusion: matrices are LayoutRight or LayoutLeft Views");
};

/// Checks a sequence's bindings (before any kernel) and returns its extents; messages name the
/// bound Views by `names` (one per View) when given, else by their kind and symbol.
template <class ExecSpace, class Seq, class... Views>
SequenceExtents check_bindings(const char* caller, const char* const* names,
                               const Bindings<Views...>& bound) {
  using Tr                        = SequenceTraits<Seq>;
  constexpr int n_bound           = int(sizeof...(Views));
  constexpr std::uint64_t symbols = Tr::vectors | Tr::scalars | Tr::matrices;
  static_assert((symbols >> n_bound) == 0,
                "tessera::fusion: a symbol's number is not below the number of bound Views");
  static_assert(!Seq::matrix || Tr::matrices != 0,
                "tessera::fusion: a matrix sequence (row_sum, col_sum, by_row, by_col) reads "
                "or writes at least one Mat symbol, whose extents give the vectors' lengths");
  static_assert(
      popcount(Tr::vectors) + popcount(Tr::scalars) + popcount(Tr::matrices) == popcount(symbols),
      "tessera::fusion: a symbol is used as two of Vec, Scalar and Mat");
  SequenceExtents ext;
  int length_of = -1, shape_of = -1;  // the vector that set a vector sequence's length, the
                                      // matrix that set a matrix sequence's shape
  MemoryRange ranges[sizeof...(Views)];
  // First the matrices (their extents fix the vectors' lengths), then the rest.
  auto check = [&](auto index, const auto& view, auto matrices_pass) {
    constexpr int K  = decltype(index)::value;
    using View       = std::decay_t<decltype(view)>;
    constexpr auto b = std::uint64_t(1) << K;
    static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                  "tessera::fusion: a bound View is not accessible from the execution space");
    static_assert((Tr::vectors & b) == 0 || View::rank == 1,
                  "tessera::fusion: a Vec symbol is bound to a rank-1 View");
    static_assert((Tr::scalars & b) == 0 || View::rank == 0,
                  "tessera::fusion: a Scalar symbol is bound to a rank-0 View");
    static_assert((Tr::matrices & b) == 0 || View::rank == 2,
                  "tessera::fusion: a Mat symbol is bound to a rank-2 View");
    static_assert((Tr::written & b) == 0 || !std::is_const_v<typename View::value_type>,
                  "tessera::fusion: a symbol the sequence writes is bound to a const View");
    if constexpr (decltype(matrices_pass)::value) {
      if constexpr ((Tr::matrices & b) != 0) {
        static_assert(std::is_same_v<typename View::array_layout,
                                     typename MatrixLayoutOf<Seq, Views...>::type>,
                      "tessera::fusion: every matrix of a sequence is LayoutRight, or every one "
                      "LayoutLeft");
        const SymbolName name{names, "matrix", K};
        if (shape_of < 0) {
          ext      = {view.extent(0), view.extent(1)};
          shape_of = K;
        }
        require(view.extent(0) == ext.rows && view.extent(1) == ext.cols, caller, name, " is ",
                view.extent(0), " x ", view.extent(1), ", expected ", ext.rows, " x ", ext.cols,
                " (the shape of ", SymbolName{names, "matrix", shape_of}, ")");
        require(view.size() == 0 || view.span_is_contiguous(), caller, name, " is not contiguous");
      }
    } else {
      if constexpr ((Tr::vectors & b) != 0) {
        const SymbolName name{names, "vector", K};
        const std::size_t n = view.extent(0);
        if constexpr (Seq::matrix) {
          const SymbolName matrix{names, "matrix", shape_of};
          if ((Tr::row_vectors & b) != 0)
            require(n == ext.rows, caller, name, " has ", n, " elements, expected ", ext.rows,
                    " (the rows of ", matrix, ")");
          if ((Tr::col_vectors & b) != 0)
            require(n == ext.cols, caller, name, " has ", n, " elements, expected ", ext.cols,
                    " (the columns of ", matrix, ")");
        } else {
          if (length_of < 0) {
            ext       = {n, n};
            length_of = K;
          }
          require(n == ext.rows, caller, name, " has ", n, " elements, expected ", ext.rows,
                  " (the length of ", SymbolName{names, "vector", length_of}, ")");
        }
        require(view.extent(0) == 0 || view.span_is_contiguous(), caller, name,
                " is not contiguous");
      }
      if constexpr ((symbols & b) != 0) {
        require(view.data() != nullptr || view.size() == 0, caller, SymbolName{names, "symbol", K},
                " is an unallocated View");
        ranges[K] = memory_range(view);
      }
    }
  };
  for_each_indexed([&](auto k, const auto& v) { check(k, v, std::true_type{}); }, bound.views,
                   std::index_sequence_for<Views...>{});
  for_each_indexed([&](auto k, const auto& v) { check(k, v, std::false_type{}); }, bound.views,
                   std::index_sequence_for<Views...>{});
  // A written symbol shares memory with another only as the very same vector of a vector
  // sequence, read only, and by no step after the first that writes the other (an in-place
  // update, as z = w - alpha v with z and w one View): a partial overlap would read elements
  // that another element's step already wrote, a later read would see the new values, and two
  // written symbols on one View would leave the value one of them keeps in registers stale.
  // Matrix sequences read vectors at other indices than they write them: no sharing at all.
  if constexpr (n_bound > 1) {
    int first_write[n_bound], last_read[n_bound];
    for (int k = 0; k < n_bound; ++k) {
      first_write[k] = Seq::size;
      last_read[k]   = -1;
    }
    for (int s = Seq::size - 1; s >= 0; --s) {
      const std::uint64_t w =
          Tr::writes_vectors[s] | Tr::writes_scalars[s] | Tr::writes_matrices[s];
      const std::uint64_t r = Tr::reads_vectors[s] | Tr::reads_scalars[s] | Tr::reads_matrices[s];
      for (int k = 0; k < n_bound; ++k) {
        if ((w >> k) & 1u) first_write[k] = s;
        if (((r >> k) & 1u) && last_read[k] < s) last_read[k] = s;
      }
    }
    for (int k = 0; k < n_bound; ++k) {
      if (!((Tr::written >> k) & 1u)) continue;
      for (int j = 0; j < n_bound; ++j) {
        if (j == k || !ranges[k].overlaps(ranges[j])) continue;
        const bool same_range =
            ranges[k].begin == ranges[j].begin && ranges[k].end == ranges[j].end;
        const bool vectors = !Seq::matrix && ((Tr::vectors >> k) & 1u) && ((Tr::vectors >> j) & 1u);
        const bool read_only = !((Tr::written >> j) & 1u);
        require(same_range && vectors && read_only && last_read[j] <= first_write[k], caller,
                SymbolName{names, "symbol", k}, " (written) shares memory with ",
                SymbolName{names, "symbol", j},
                Seq::matrix ? " (a matrix sequence's symbols may not share memory)"
                            : ", which is not the same vector, only read up to the first step "
                              "writing it");
      }
    }
  }
  return ext;
}

/// What the vector and matrix runs share: the team-size limit of a plan and its launch, through
/// the run's kernels (Run::kernels, a visitor of visit_group) and Run::launches.
template <class Run, class Seq>
struct PlanLauncher {
  /// The largest team size the kernels of plan `cuts` run with (per: the shape's second
  /// parameter, which the kernels' registers depend on).
  int team_size_max(std::uint32_t cuts, int per) const {
    const Run& run = static_cast<const Run&>(*this);
    auto k         = run.kernels(run.shape(1, per), true);
    for_each_group(Seq::size, cuts, [&](int a, int b) { visit_group<Seq::size>(a, b, k); });
    return k.team_size_max;
  }
  /// Launches the groups of plan `cuts` with shape s; returns the number of kernels.
  int launch(std::uint32_t cuts, const LaunchShape& s) const {
    const Run& run = static_cast<const Run&>(*this);
    auto k         = run.kernels(s, false);
    int count      = 0;
    for_each_group(Seq::size, cuts, [&](int a, int b) {
      visit_group<Seq::size>(a, b, k);
      count += Run::launches(a, b, s.per_thread);
    });
    return count;
  }
};

/// A vector sequence run over the bound Views: its plans, launch shapes and kernels.
template <class ExecSpace, class T, class Seq, class Bound>
struct VectorRun : PlanLauncher<VectorRun<ExecSpace, T, Seq, Bound>, Seq> {
  static constexpr std::size_t N = std::tuple_size_v<decltype(Bound::views)>;
  const ExecSpace& space;
  const Seq& seq;
  const Bound& bound;
  Kokkos::Array<T*, N> p;
  std::size_t n;

  bool valid(std::uint32_t cuts, int) const { return plan_valid<Seq>(cuts); }
  double bytes(std::uint32_t cuts, int, double launch) const {
    return *plan_bytes<Seq>(cuts, n, n, sizeof(T), launch);
  }
  static const char* shape_rule() { return "elements per thread >= 0"; }
  static bool per_thread_ok(int per) { return per >= 0; }
  LaunchShape shape(int team, int per) const {
    return vector_launch_shape<ExecSpace, T>(n, team, per);
  }
  std::string key() const { return concat("n=", n); }
  static const auto& tune_team_sizes() { return Tuning<ExecSpace>::fusion_tune_team_sizes; }
  static const auto& tune_per_thread() { return Tuning<ExecSpace>::fusion_tune_per_thread; }

  auto kernels(const LaunchShape& shape, bool only_limit) const {
    using L = std::decay_t<decltype(seq.steps)>;
    return GroupKernels<ExecSpace, T, L, N, Bound>{space, seq.steps, p,         bound,
                                                   n,     shape,     only_limit};
  }
  /// Kernels launched for group [a, b).
  static int launches(int, int, int) { return 1; }
};

/// A matrix sequence run over the bound Views, its teams owning rows (RowsOwned) or columns.
template <class ExecSpace, class T, class Seq, class Bound, bool RowsOwned>
struct MatrixRun : PlanLauncher<MatrixRun<ExecSpace, T, Seq, Bound, RowsOwned>, Seq> {
  static constexpr std::size_t N = std::tuple_size_v<decltype(Bound::views)>;
  const ExecSpace& space;
  const Seq& seq;
  const Bound& bound;
  Kokkos::Array<T*, N> p;
  SequenceExtents ext;
  Workspace* workspace;

  /// Whether a launch shape of `per` lines per team (0: the default) runs tile groups as tiles.
  static bool tiles(int per) {
    return (per > 0 ? per : Tuning<ExecSpace>::fusion_matrix_lines) >= tile_lines;
  }
  bool valid(std::uint32_t cuts, int per) const {
    return plan_valid<Seq, RowsOwned>(cuts, tiles(per));
  }
  double bytes(std::uint32_t cuts, int per, double launch) const {
    return *plan_bytes<Seq, RowsOwned>(cuts, ext.rows, ext.cols, sizeof(T), launch,
                                       Tuning<ExecSpace>::fusion_reread_share, tiles(per),
                                       held_fits<ExecSpace, T>(extents().swept));
  }
  static const char* shape_rule() {
    return "matrix lines per team 0, 1, 4, 16, 32, or at least fusion::tile_lines (tiles)";
  }
  static bool per_thread_ok(int per) {
    return per == 0 || matrix_rows_supported(per) || per >= tile_lines;
  }
  MatrixExtents extents() const {
    return RowsOwned ? MatrixExtents{ext.rows, ext.cols} : MatrixExtents{ext.cols, ext.rows};
  }
  LaunchShape shape(int team, int per) const {
    LaunchShape s;
    s.team_size  = team > 0 ? team : Tuning<ExecSpace>::fusion_matrix_team_size;
    s.per_thread = per > 0 ? per : Tuning<ExecSpace>::fusion_matrix_lines;
    s.automatic  = team == 0 && per == 0 && tiles(s.per_thread);
    s.league     = (extents().owned + std::size_t(s.per_thread) - 1) / std::size_t(s.per_thread);
    if (tiles(s.per_thread)) {
      // The most teams a kernel may launch: one per tile (of the fewest lines the shape may
      // give a tile group), or one per fusion_matrix_rows lines for the groups sweeping lines.
      using Tn                    = Tuning<ExecSpace>;
      constexpr std::size_t width = narrowest_tile_width<ExecSpace, T>();
      const int fewest = std::min({Tn::fusion_tile_shape.lines, Tn::fusion_tile_shape_maps.lines,
                                   Tn::fusion_tile_shape_owned_sums.lines});
      const std::size_t lines = std::size_t(s.automatic ? fewest : s.per_thread);
      const std::size_t tiles =
          (extents().owned + lines - 1) / lines * ((extents().swept + width - 1) / width);
      const std::size_t rows        = std::size_t(Tn::fusion_matrix_rows);
      const std::size_t swept_teams = (extents().owned + rows - 1) / rows;
      s.league                      = tiles > swept_teams ? tiles : swept_teams;
    }
    return s;
  }
  std::string key() const {
    return concat("m=", ext.rows, ",n=", ext.cols, RowsOwned ? ",right" : ",left");
  }
  static const auto& tune_team_sizes() { return Tuning<ExecSpace>::fusion_tune_matrix_team_sizes; }
  static const auto& tune_per_thread() { return Tuning<ExecSpace>::fusion_tune_matrix_rows; }

  auto kernels(const LaunchShape& shape, bool only_limit) const {
    return MatrixGroupKernels<ExecSpace, T, Seq, N, RowsOwned>{
        space, seq, p, extents(), shape, workspace, only_limit};
  }
  /// Kernels launched for group [a, b) with `per` lines per team: the sums completed after the
  /// main kernel take a second one.
  static int launches(int a, int b, int per) {
    const MatrixGroup g = matrix_group<Seq, RowsOwned>(a, b);
    if (tiles(per) && tile_group<Seq>(a, b)) return (g.row_stores | g.col_stores) != 0 ? 2 : 1;
    return g.partial_steps > 0 ? 2 : 1;
  }
};

/// The run of `seq` over the bound Views with extents ext.
template <class T, class ExecSpace, class Seq, class... Views>
auto make_run(const ExecSpace& space, const Seq& seq, const Bindings<Views...>& bound,
              const SequenceExtents& ext, Workspace* workspace = nullptr) {
  const auto p = std::apply([](const auto&... v) { return bound_pointers<T>(v...); }, bound.views);
  if constexpr (Seq::matrix) {
    constexpr bool rows_owned =
        !std::is_same_v<typename MatrixLayoutOf<Seq, Views...>::type, Kokkos::LayoutLeft>;
    return MatrixRun<ExecSpace, T, Seq, Bindings<Views...>, rows_owned>{{}, space, seq,      bound,
                                                                        p,  ext,   workspace};
  } else {
    return VectorRun<ExecSpace, T, Seq, Bindings<Views...>>{{}, space, seq, bound, p, ext.rows};
  }
}

/// Whether a candidate is one the run allows: a valid plan, a team size within the backend's
/// limit and a launch shape whose teams fit in an int.
template <class ExecSpace, class Seq, class Run>
bool allowed(const Run& run, const Candidate& c) {
  return (c.cuts & ~unfused_cuts<Seq>()) == 0 && run.valid(c.cuts, c.per_thread) &&
         c.team_size >= 1 && c.team_size <= Tuning<ExecSpace>::fusion_max_team_size &&
         c.per_thread >= 1 && run.per_thread_ok(c.per_thread) &&
         run.shape(c.team_size, c.per_thread).league <=
             std::size_t(std::numeric_limits<int>::max());
}

/// The tuner's key of a sequence run: the sequence's type, value type, extents, device and
/// Tessera version.
template <class T, class ExecSpace, class Seq, class Run>
std::string tuning_key(const ExecSpace& space, const Run& run) {
  return concat(typeid(Seq).name(), "|", typeid(T).name(), "|", run.key(), "|", ExecSpace::name(),
                ":", space.concurrency(), "|tessera ", tessera::version());
}

/// The candidates the tuner times for a run: every valid plan with every launch shape of the
/// backend's tuning lists that the plan's kernels run with and whose teams fit in an int.
template <class ExecSpace, class Seq, class Run>
std::vector<Candidate> candidates(const Run& run) {
  std::vector<Candidate> list;
  for (std::uint32_t cuts = 0; cuts <= unfused_cuts<Seq>(); ++cuts) {
    for (int per : run.tune_per_thread()) {
      if (!run.valid(cuts, per)) continue;
      const int team_max = run.team_size_max(cuts, per);
      for (int team : run.tune_team_sizes()) {
        if (team <= team_max &&
            run.shape(team, per).league <= std::size_t(std::numeric_limits<int>::max())) {
          list.push_back(Candidate{cuts, team, per});
        }
      }
    }
  }
  return list;
}

/// Times every candidate (valid plan x the backend's launch shapes) on scratch copies of the
/// bound Views and returns the fastest with its time (median of 3 runs after a warm-up).
template <class T, class ExecSpace, class Seq, class... Views>
std::pair<Candidate, double> time_candidates(const ExecSpace& space, const Seq& seq,
                                             const Bindings<Views...>& bound,
                                             const SequenceExtents& ext, Workspace* workspace) {
  const auto scratch = std::apply(
      [&](const auto&... v) {
        return bind(
            Kokkos::create_mirror(typename std::decay_t<decltype(v)>::memory_space{}, v)...);
      },
      bound.views);
  std::apply(
      [&](const auto&... copy) {
        std::apply([&](const auto&... v) { (Kokkos::deep_copy(space, copy, v), ...); },
                   bound.views);
      },
      scratch.views);
  const auto run = make_run<T>(space, seq, scratch, ext, workspace);
  std::pair<Candidate, double> best{{}, std::numeric_limits<double>::infinity()};
  for (const Candidate& c : candidates<ExecSpace, Seq>(run)) {
    const LaunchShape shape = run.shape(c.team_size, c.per_thread);
    double times[3];
    run.launch(c.cuts, shape);  // warm-up
    for (double& t : times) {
      space.fence();
      const auto start = std::chrono::steady_clock::now();
      run.launch(c.cuts, shape);
      space.fence();
      t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::sort(times, times + 3);
    if (times[1] < best.second) best = {c, times[1]};
  }
  return best;
}

}  // namespace Impl

namespace Impl {

/// run() with the caller's name and argument names (one per bound View, or nullptr) in its
/// messages: the ready functions' way to name their own arguments.
template <class ExecSpace, class... S, class... Views>
FusionReport run_named(const char* caller, const char* const* names, const ExecSpace& space,
                       const Sequence<S...>& seq, const Bindings<Views...>& bound,
                       const FusionOptions& options) {
  using Seq = Sequence<S...>;
  using T = std::remove_const_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  static_assert((std::is_same_v<std::remove_const_t<typename Views::value_type>, T> && ...),
                "tessera::fusion: every bound View holds the same value type");
  const Impl::SequenceExtents ext = Impl::check_bindings<ExecSpace, Seq>(caller, names, bound);
  const auto run                  = Impl::make_run<T>(space, seq, bound, ext, options.workspace);
  const int max_team              = Impl::Tuning<ExecSpace>::fusion_max_team_size;
  Impl::require(options.team_size >= 0 && options.team_size <= max_team, caller,
                "options.team_size is ", options.team_size, " (expected 0 to ", max_team, ")");
  Impl::require(run.per_thread_ok(options.per_thread), caller, "options.per_thread is ",
                options.per_thread, " (expected ", run.shape_rule(), ")");
  Impl::LaunchShape shape = run.shape(options.team_size, options.per_thread);
  Impl::require_int_extent(caller, "the number of teams", shape.league);
  // A step alone is invalid only when its teams sweep whole lines and it sums along them into a
  // vector it reads at the swept index (y = A y with rows owned): other teams write that vector
  // while it is read. As tiles, every step is valid (and a tuner times tile shapes too).
  Impl::require(
      (options.tuner && !options.cuts) || run.valid(Impl::unfused_cuts<Seq>(), shape.per_thread),
      caller, "the sequence has no valid plan with ", shape.per_thread,
      " lines per team: a row_sum or col_sum step sums within a team's lines into a vector that "
      "a step reads at the swept index (by_col with LayoutRight matrices, by_row with "
      "LayoutLeft), which other teams write meanwhile; run it as tiles (options.per_thread at "
      "least fusion::tile_lines)");
  const double launch = Impl::Tuning<ExecSpace>::fusion_launch_bytes;

  FusionReport report;
  if (options.cuts) {
    Impl::require((*options.cuts & ~Impl::unfused_cuts<Seq>()) == 0, caller, "options.cuts ",
                  *options.cuts, " cuts after the last step");
    Impl::require(run.valid(*options.cuts, shape.per_thread), caller, "options.cuts ",
                  *options.cuts, " groups steps the fusion rules keep apart (plan.hpp)");
    report.cuts = *options.cuts;
  } else if (options.tuner) {
    const std::string key = Impl::tuning_key<T, ExecSpace, Seq>(space, run);
    auto found            = options.tuner->find(key);
    if (found && (!Impl::allowed<ExecSpace, Seq>(run, *found) ||
                  found->team_size > run.team_size_max(found->cuts, found->per_thread))) {
      options.tuner->reject(key, "is not a plan and launch shape this sequence allows");
      found.reset();
    }
    if (!found) {
      const auto [best, seconds] =
          Impl::time_candidates<T>(space, seq, bound, ext, options.workspace);
      if (!(seconds < std::numeric_limits<double>::infinity())) {
        throw std::length_error(Impl::concat("tessera::", caller, ": no launch shape the tuner ",
                                             "times keeps ", run.key(), " within 2^31 - 1 teams"));
      }
      options.tuner->remember(key, best, seconds);
      found = best;
    }
    report.cuts = found->cuts;
    shape       = run.shape(found->team_size, found->per_thread);
  } else if (options.choice == PlanChoice::unfused) {
    report.cuts = Impl::unfused_cuts<Seq>();
  } else {
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t cuts = 0; cuts <= Impl::unfused_cuts<Seq>(); ++cuts) {
      if (!run.valid(cuts, shape.per_thread)) continue;
      const double bytes = run.bytes(cuts, shape.per_thread, launch);
      if (bytes < best) {
        best        = bytes;
        report.cuts = cuts;
      }
    }
  }
  const int team_max = run.team_size_max(report.cuts, shape.per_thread);
  if (options.team_size == 0 && !options.tuner && shape.team_size > team_max) {
    const bool automatic = shape.automatic;
    shape = run.shape(team_max, shape.per_thread);  // the backend's default, where it fits
    shape.automatic = automatic;
  }
  Impl::require(shape.team_size <= team_max, caller, "team size ", shape.team_size, " exceeds the ",
                team_max, " threads the plan's kernels can run with on this device");
  report.model_bytes = run.bytes(report.cuts, shape.per_thread, launch);
  report.team_size   = shape.team_size;
  report.per_thread  = shape.per_thread;
  report.kernels     = run.launch(report.cuts, shape);
  return report;
}

}  // namespace Impl

/// Runs `seq` on the bound Views: every step in order over the elements of its vectors (a
/// vector sequence) or of its matrices (a matrix sequence), in the kernels of the chosen plan.
/// Vectors: contiguous rank-1 Views, of one length n in a vector sequence, of the matrices'
/// rows (read by_row, or written by a row_sum step) or columns (by_col, col_sum) in a matrix
/// sequence; matrices: contiguous rank-2 Views of one shape, all LayoutRight or all LayoutLeft;
/// scalars: rank-0 Views; one value type; all in memory `space` can access. Throws
/// std::invalid_argument (before any kernel) for mismatched extents, non-contiguous Views,
/// written symbols overlapping others, invalid cuts or options. Asynchronous (nothing waits on
/// the host) unless a tuner times candidates, or a matrix group has partial sums and
/// options.workspace is not set or too small (their buffer, teams x columns values, is then
/// allocated, and freed before the call returns, which waits for the device). O(elements x
/// steps) work.
template <class ExecSpace, class... S, class... Views>
FusionReport run(const ExecSpace& space, const Sequence<S...>& seq, const Bindings<Views...>& bound,
                 const FusionOptions& options = {}) {
  return Impl::run_named("fusion::run", nullptr, space, seq, bound, options);
}

/// The implementations a Tuner times for `seq` over the bound Views on `space` (and so may
/// pick): every valid plan with every launch shape of Tuning<ExecSpace>'s lists that the plan's
/// kernels run with. Checks the bindings as run() does.
template <class ExecSpace, class... S, class... Views>
std::vector<Candidate> tuner_candidates(const ExecSpace& space, const Sequence<S...>& seq,
                                        const Bindings<Views...>& bound) {
  using Seq = Sequence<S...>;
  using T = std::remove_const_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  const auto ext = Impl::check_bindings<ExecSpace, Seq>("fusion::tuner_candidates", nullptr, bound);
  return Impl::candidates<ExecSpace, Seq>(Impl::make_run<T>(space, seq, bound, ext));
}

/// run() on the default execution space.
template <class... S, class... Views>
FusionReport run(const Sequence<S...>& seq, const Bindings<Views...>& bound,
                 const FusionOptions& options = {}) {
  return run(Kokkos::DefaultExecutionSpace{}, seq, bound, options);
}

}  // namespace fusion
}  // namespace tessera
