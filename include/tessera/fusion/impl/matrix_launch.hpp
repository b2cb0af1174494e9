// The launch of a matrix group's kernels: its tiles (matrix_tile_kernel.hpp) when the launch
// shape asks for tiles (at least fusion::tile_lines lines per team) and the group is valid as
// tiles; with such a shape otherwise its lines held in registers (matrix_held_kernel.hpp) when
// they fit; else its teams sweeping whole lines (matrix_kernel.hpp).
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/impl/group_dispatch.hpp>
#include <tessera/fusion/impl/matrix_held_kernel.hpp>
#include <tessera/fusion/impl/matrix_kernel.hpp>
#include <tessera/fusion/impl/matrix_sums_kernel.hpp>
#include <tessera/fusion/impl/matrix_tile_kernel.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/core/impl/call_memory.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <limits>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::FusionTileShape;

/// The launch of a matrix group over an no x ns matrix (owned x swept extents).
struct MatrixExtents {
  std::size_t owned, swept;
};

/// The number of teams of a matrix group's launch: one per block of R owned lines, at most
/// a share of the teams the device holds at once when the group has partial sums (each team
/// then adds ns partial sums per partial step).
template <class ExecSpace>
std::size_t matrix_league(const ExecSpace& space, std::size_t owned, int rows, int team_size,
                          bool partial) {
  const std::size_t blocks = (owned + std::size_t(rows) - 1) / std::size_t(rows);
  if (!partial) return blocks;
  const double resident = double(space.concurrency()) / double(team_size);
  const auto cap =
      std::size_t(resident * Tuning<ExecSpace>::fusion_partial_team_share) + std::size_t(1);
  return blocks < cap ? blocks : cap;
}

/// The kernels of the groups of one matrix sequence run, a visitor of visit_group: launches each
/// group visited (asynchronous), or, with only_limit, finds the largest team size they all run
/// with.
template <class ExecSpace, class T, class Seq, std::size_t P, bool RowsOwned>
struct MatrixGroupKernels {
  const ExecSpace& space;
  const Seq& seq;
  const Kokkos::Array<T*, P>& p;
  MatrixExtents extents;
  LaunchShape shape;
  tessera::Workspace* workspace = nullptr;  // for the partial sums; none: allocated per launch
  bool only_limit               = false;
  int team_size_max             = std::numeric_limits<int>::max();       // over the groups visited
  mutable Kokkos::View<T*, typename ExecSpace::memory_space> allocated;  // without a workspace

  template <int A, int B, int R>
  using Kernel = MatrixGroupKernel<ExecSpace, T, Seq, A, B, P, RowsOwned, R>;

  /// A buffer of `values` partial sums: in the workspace, or allocated for this run (freed with
  /// the visitor, once its kernels are done); nullptr for a size query, which records it (the
  /// launches then stop after it: measuring()).
  T* partial_buffer(std::size_t values) const {
    if (values == 0) return nullptr;
    using Memory = typename ExecSpace::memory_space;
    if (workspace) {
      return static_cast<T*>(
          tessera::Impl::WorkspaceAccess::take<Memory>(*workspace, values * sizeof(T)));
    }
    allocated = Kokkos::View<T*, Memory>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::fusion::partials"),
        values);
    return allocated.data();
  }

  /// Whether the run is a size query (Workspace::size_query()): the groups record their partial
  /// buffers and launch nothing.
  bool measuring() const { return tessera::Impl::measures_only(workspace); }

  template <int A, int B, int R>
  void launch() const {
    using K                = Kernel<A, B, R>;
    constexpr int partials = MatrixGroupSteps<Seq, RowsOwned, A, B>::partials;
    const std::size_t league =
        matrix_league(space, extents.owned, R, shape.team_size, partials > 0);
    const std::size_t bytes  = K::scratch_bytes(extents.swept);
    using Policy             = Kokkos::TeamPolicy<ExecSpace>;
    const int level          = bytes <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
    const std::size_t values = partials > 0 ? league * std::size_t(partials) * extents.swept : 0;
    T* buffer                = partial_buffer(values);
    if (measuring()) return;
    const MatrixEval<T, P, RowsOwned> ev{p, extents.swept};
    const bool stream = streams<A, B>();
    if (league > 0) {
      Policy policy(space, int(league), shape.team_size);
      if (bytes > 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
      Kokkos::parallel_for("tessera::fusion::matrix_group", policy,
                           K{seq.steps, ev, extents.owned, buffer, level, stream});
    }
    launch_sums<A, B>(ev, {}, team_parts<A, B>(buffer, league));
  }

  /// Whether the line kernel of group [A, B) writes the matrices it does not read with
  /// streaming stores (streams_outputs): only a one-sweep group (a later sweep would read back
  /// what it stored). Without partial sums it then sweeps one line at a time (visit()), hence
  /// the bound on the owned lines (one team each).
  template <int A, int B>
  bool streams() const {
    constexpr auto* s = static_cast<const Seq*>(nullptr);
    return Kernel<A, B, 1>::one_sweep &&
           extents.owned <= std::size_t(std::numeric_limits<int>::max()) &&
           streams_outputs<ExecSpace, T>(group_matrix_loads(s, A, B), group_matrix_stores(s, A, B),
                                         double(extents.owned) * double(extents.swept));
  }

  /// The parts of group [A, B)'s partial sums written by `teams` teams into `buffer`
  /// ([team][partial step][swept index]: the line and held-lines schedules).
  template <int A, int B>
  SumParts<T> team_parts(const T* buffer, std::size_t teams) const {
    constexpr std::size_t partials = MatrixGroupSteps<Seq, RowsOwned, A, B>::partials;
    if (partials == 0) return {};
    return {buffer, extents.swept, teams, partials * extents.swept, extents.swept};
  }

  /// When group [A, B) has sums to finish: the kernel adding their parts (matrix_sums_kernel.hpp;
  /// along_s: the complete steps', at owned indices; along_o: the partial steps').
  template <int A, int B>
  void launch_sums(const MatrixEval<T, P, RowsOwned>& ev, const SumParts<T>& along_s,
                   const SumParts<T>& along_o) const {
    using Sums = MatrixSumsKernel<ExecSpace, T, Seq, A, B, P, RowsOwned>;
    if constexpr (Sums::sums > 0) {
      const Sums kernel{seq.steps, ev, along_s, along_o};
      const int team = Tuning<ExecSpace>::fusion_partials_team_size;
      if (kernel.league() > 0) {
        Kokkos::TeamPolicy<ExecSpace> policy(space, int(kernel.league()), team,
                                             Tuning<ExecSpace>::fusion_partials_vector_length);
        policy.set_scratch_size(0, Kokkos::PerTeam(Sums::scratch_bytes(team)));
        Kokkos::parallel_for("tessera::fusion::matrix_sums", policy, kernel);
      }
    }
  }

  template <int A, int B, int R>
  void limit() {
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    const MatrixEval<T, P, RowsOwned> ev{p, extents.swept};
    const int limit = Policy(space, 1, 1)
                          .team_size_max(Kernel<A, B, R>{seq.steps, ev, extents.owned, nullptr, 0},
                                         Kokkos::ParallelForTag{});
    team_size_max = limit < team_size_max ? limit : team_size_max;
  }

  /// The shape of the tile group [A, B): the launch's, or with an automatic launch shape the
  /// backend's default for groups with sums along the owned axis, with sums along the swept
  /// axis only, or of maps only (threads any kernel runs with: tiling.hpp).
  template <int A, int B>
  FusionTileShape tile_shape() const {
    using Tn = Tuning<ExecSpace>;
    if (!shape.automatic) return {shape.team_size, shape.per_thread};
    if (tile_kind<Seq, RowsOwned, A, B>() == FusionTileKind::maps)
      return Tn::fusion_tile_shape_maps;
    return MatrixGroupSteps<Seq, RowsOwned, A, B>::partials > 0 ? Tn::fusion_tile_shape_owned_sums
                                                                : Tn::fusion_tile_shape;
  }

  /// The tiles of a tile group's launch with `lines` lines per tile.
  TileGrid tile_grid(std::size_t width, int lines_per_tile) const {
    const std::size_t lines = std::size_t(lines_per_tile);
    return {extents.owned,
            extents.swept,
            lines,
            width,
            (extents.swept + width - 1) / width,
            (extents.owned + lines - 1) / lines};
  }

  /// Launches the tile group [A, B): the tiles, then (when it has nested sums) the kernel adding
  /// their sums.
  template <int A, int B>
  void launch_tiles() const {
    using K                        = MatrixTileKernel<ExecSpace, T, Seq, A, B, P, RowsOwned>;
    using Steps                    = MatrixGroupSteps<Seq, RowsOwned, A, B>;
    using Policy                   = Kokkos::TeamPolicy<ExecSpace>;
    const FusionTileShape tile     = tile_shape<A, B>();
    const TileGrid grid            = tile_grid(K::width, tile.lines);
    const std::size_t swept_values = std::size_t(Steps::completes) * grid.bands * grid.owned;
    const std::size_t owned_values = std::size_t(Steps::partials) * grid.blocks * grid.swept;
    T* buffer                      = partial_buffer(swept_values + owned_values);
    if (measuring()) return;
    const int threads       = tile_threads(tile.threads);
    const std::size_t bytes = K::scratch_bytes(threads);
    const int level         = bytes <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
    const MatrixEval<T, P, RowsOwned> ev{p, extents.swept};
    if (grid.tiles() > 0) {
      Policy policy(space, int(grid.tiles()), threads, K::VL);
      if (bytes > 0) policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
      Kokkos::parallel_for("tessera::fusion::matrix_tiles", policy,
                           K{seq.steps, ev, grid, buffer, buffer + swept_values, level});
    }
    // The sums along s: [step][band][o]; along o: [step][tile line block][s].
    SumParts<T> along_s, along_o;
    if (Steps::completes > 0)
      along_s = {buffer, grid.owned, grid.bands, grid.owned, grid.bands * grid.owned};
    if (Steps::partials > 0)
      along_o = {buffer + swept_values, grid.swept, grid.blocks, grid.swept,
                 grid.blocks * grid.swept};
    launch_sums<A, B>(ev, along_s, along_o);
  }

  /// Team threads of a tile launch of `threads` threads (team threads of VL lanes).
  static int tile_threads(int threads) {
    constexpr int lanes = Tuning<ExecSpace>::fusion_tile_vector_length;
    return threads >= lanes ? threads / lanes : 1;
  }

  /// Lowers team_size_max to what the tile kernel of [A, B) runs with (in threads).
  template <int A, int B>
  void limit_tiles() {
    using K = MatrixTileKernel<ExecSpace, T, Seq, A, B, P, RowsOwned>;
    const MatrixEval<T, P, RowsOwned> ev{p, extents.swept};
    const int limit = Kokkos::TeamPolicy<ExecSpace>(space, 1, 1, K::VL)
                          .team_size_max(K{seq.steps, ev, tile_grid(K::width, shape.per_thread),
                                           nullptr, nullptr, 0},
                                         Kokkos::ParallelForTag{}) *
                      K::VL;
    team_size_max = limit < team_size_max ? limit : team_size_max;
  }

  /// Launches the held-lines group [A, B) (matrix_held_kernel.hpp): a team per
  /// fusion_held_league_threads threads the device holds (at most one per line), then the
  /// kernel adding their partial sums.
  template <int A, int B>
  void launch_held() const {
    using K                    = MatrixHeldKernel<ExecSpace, T, Seq, A, B, P, RowsOwned>;
    using Policy               = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<K::TH, 1>>;
    constexpr int partials     = MatrixGroupSteps<Seq, RowsOwned, A, B>::partials;
    const std::size_t resident = std::size_t(space.concurrency()) /
                                 std::size_t(Tuning<ExecSpace>::fusion_held_league_threads);
    const std::size_t fill   = resident > 0 ? resident : 1;
    const std::size_t league = extents.owned < fill ? extents.owned : fill;
    T* buffer                = partial_buffer(std::size_t(partials) * league * extents.swept);
    if (measuring()) return;
    const MatrixEval<T, P, RowsOwned> ev{p, extents.swept};
    if (league > 0) {
      Policy policy(space, int(league), K::threads, K::VL);
      policy.set_scratch_size(0, Kokkos::PerTeam(K::scratch_bytes()));
      Kokkos::parallel_for("tessera::fusion::matrix_held", policy,
                           K{seq.steps, ev, extents.owned, buffer});
    }
    launch_sums<A, B>(ev, {}, team_parts<A, B>(buffer, league));
  }

  template <int A, int B, int R>
  void visit_rows() {
    if (only_limit) {
      limit<A, B, R>();
    } else {
      launch<A, B, R>();
    }
  }

  template <int A, int B>
  void visit() {
    if (shape.per_thread >= tile_lines && tile_group<Seq>(A, B)) {
      if (only_limit) {
        limit_tiles<A, B>();
      } else {
        launch_tiles<A, B>();
      }
      return;
    }
    if (shape.per_thread >= tile_lines && held_fits<ExecSpace, T>(extents.swept)) {
      if (!only_limit) launch_held<A, B>();  // its own team size, within its launch bounds
      return;
    }
    // A group with streaming stores and no partial sums sweeps one line at a time: several
    // lines' streams of stores at once overflow the core's write-combining buffers (MADD at
    // 4096^2 in float: 7.3 ms with 4 lines, 5.6 with 1); partial sums would be added once per
    // line instead of once per R lines (GEMVER's first group keeps its R lines).
    const int rows =
        shape.per_thread > 32 ? Tuning<ExecSpace>::fusion_matrix_rows : shape.per_thread;
    constexpr bool partials = MatrixGroupSteps<Seq, RowsOwned, A, B>::partials > 0;
    switch (!partials && streams<A, B>() ? 1 : rows) {
      case 1:
        visit_rows<A, B, 1>();
        break;
      case 4:
        visit_rows<A, B, 4>();
        break;
      case 16:
        visit_rows<A, B, 16>();
        break;
      default:
        visit_rows<A, B, 32>();
        break;
    }
  }
};

/// Whether rows is a number of owned lines per team iteration the matrix kernels are compiled
/// for.
constexpr bool matrix_rows_supported(int rows) {
  return rows == 1 || rows == 4 || rows == 16 || rows == 32;
}

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
