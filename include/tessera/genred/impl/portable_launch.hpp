// The portable launch of a Genred call: the TiledReduce kernel body as a Kokkos TeamPolicy
// kernel, on every backend (the reference implementation, and the only one on backends without
// hand-written kernels).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/combine_partials.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>
#include <tessera/genred/options.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Team size of the portable kernel: options.team_size, or the tuning policy's default capped
/// at what the backend runs the kernel with; block-sparse kernels round it down to a power of
/// two times RowsPerThread. Throws std::invalid_argument when options.team_size is larger than
/// what the backend runs.
template <class ExecSpace, class Kernel>
int portable_team_size(const ExecSpace& space, const GenredOptions& options, const Kernel& k,
                       int default_team) {
  using Policy        = Kokkos::TeamPolicy<ExecSpace>;
  const int team_max  = Policy(space, 1, 1).team_size_max(k, Kokkos::ParallelForTag());
  const int requested = options.team_size;
  require(requested <= team_max, "genred",
          "options.team_size is too large for this backend and kernel (got ", requested,
          ", expected at most ", team_max, ")");
  int team = requested > 0 ? requested : std::min(default_team, team_max);
  if constexpr (Kernel::is_sparse) team = (1 << sparse_team_level(team * Kernel::R)) / Kernel::R;
  return std::max(team, 1);
}

/// Places the staged tile at scratch level 0 (halving tile_j while it does not fit), or at level
/// 1 when one staged row does not fit level 0 (points of thousands of dimensions: level 1 is
/// memory that caches hold on host backends, device memory on GPUs), and the per-thread buffers
/// at level 0 while they fit the tuning policy's budget, else at level 1. Throws
/// std::length_error when one staged row does not fit level 1 either.
template <class ExecSpace, class Kernel>
void place_portable_scratch(Kernel& k) {
  using Policy                  = Kokkos::TeamPolicy<ExecSpace>;
  const std::size_t level0_max  = static_cast<std::size_t>(Policy::scratch_size_max(0));
  const std::size_t per_thread  = k.thread_scratch_bytes();
  const std::size_t team_thread = per_thread * static_cast<std::size_t>(k.team_size);
  k.thread_scratch_level = team_thread <= Tuning<ExecSpace>::genred_thread_scratch0_budget ? 0 : 1;
  const std::size_t thread0 = k.thread_scratch_level == 0 ? team_thread : 0;
  while (k.tile_j > 1 && k.team_scratch_bytes() + thread0 > level0_max)
    k.tile_j /= 2;
  k.team_scratch_level         = k.team_scratch_bytes() + thread0 > level0_max ? 1 : 0;
  const std::size_t level1_max = static_cast<std::size_t>(Policy::scratch_size_max(1));
  if (k.team_scratch_level == 1 &&
      k.team_scratch_bytes() + (k.thread_scratch_level == 1 ? team_thread : 0) > level1_max) {
    throw std::length_error(concat("tessera::genred: one inner row of ", k.inner_width(),
                                   " scalars does not fit the ", level1_max,
                                   " bytes of level-1 team scratch memory"));
  }
}

/// Runs one call through the portable TeamPolicy kernel with reducer `red` (then the 2D combine
/// kernel when the schedule cuts the reduced range in chunks). No fence, except that the 2D
/// partial buffer is released on return.
template <bool OuterIsI, class ExecSpace, class Call, class Red>
void launch_portable(const ExecSpace& space, const Call& call, const Red& red) {
  using T      = typename Call::scalar_type;
  using Index  = typename Call::index_type;
  using Kernel = TiledReduceFor<ExecSpace, T, typename Call::formula_type, Red, OuterIsI, Index,
                                Call::sparse, typename Call::storage_type>;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const GenredOptions& options = call.options;
  const TileShape defaults     = Tuning<ExecSpace>::genred_tile(static_cast<int>(sizeof(T)));

  Kernel k{call.formula, red, call.params, call.ivars, call.jvars, call.formula_dim};
  k.n_outer   = call.template n_outer<OuterIsI>();
  k.n_inner   = call.template n_inner<OuterIsI>();
  k.tile_j    = options.tile_j > 0 ? options.tile_j : defaults.tile_j;
  k.out       = output_access<T, Index>(call.outputs);
  k.chunks    = 1;
  k.team_size = portable_team_size(space, options, k, defaults.team_size);
  place_portable_scratch<ExecSpace>(k);

  const std::size_t resident_teams =
      static_cast<std::size_t>(space.concurrency()) / static_cast<std::size_t>(k.team_size);
  const std::size_t league =
      schedule<ExecSpace>(options, call.shape, call.sparsity, resident_teams, k);
  if (league == 0) return;
  const auto partials = allocate_partials(space, k, call.shape.batch);

  Policy policy(space, static_cast<int>(league), k.team_size);
  const std::size_t per_thread = k.thread_scratch_bytes();
  if (k.thread_scratch_level == k.team_scratch_level) {
    policy.set_scratch_size(k.team_scratch_level, Kokkos::PerTeam(k.team_scratch_bytes()),
                            Kokkos::PerThread(per_thread));
  } else {
    policy.set_scratch_size(k.team_scratch_level, Kokkos::PerTeam(k.team_scratch_bytes()));
    policy.set_scratch_size(k.thread_scratch_level, Kokkos::PerThread(per_thread));
  }
  Kokkos::parallel_for(tiled_reduce_label(Call::sparse, k.chunks > 1, false), policy, k);
  combine_chunks(space, k, call.shape.batch);
}

}  // namespace Impl
}  // namespace tessera
