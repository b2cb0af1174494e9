// The run of a sequence over its bound Views: its plans' validity and bytes, its launch shapes
// and its kernels (VectorRun over vectors, MatrixRun over matrices), for run.hpp and the tuner.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/bindings.hpp>
#include <tessera/fusion/impl/check_bindings.hpp>
#include <tessera/fusion/impl/group_dispatch.hpp>
#include <tessera/fusion/impl/matrix_launch.hpp>
#include <tessera/fusion/impl/plan_model.hpp>
#include <tessera/fusion/impl/vector_kernel.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/core/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::concat;

/// The bound Views' data pointers (symbol K at K), for the kernels; const removed (only the
/// symbols a sequence writes, bound to non-const Views, are written through them).
template <class T, class... Views>
Kokkos::Array<T*, sizeof...(Views)> bound_pointers(const Views&... views) {
  return {const_cast<T*>(views.data())...};
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
  tessera::Workspace* workspace;

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
              const SequenceExtents& ext, tessera::Workspace* workspace = nullptr) {
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

}  // namespace Impl

}  // namespace fusion
}  // namespace tessera
