// The cost model of plans (plan.hpp): the groups of the plan given by its cuts, the bytes it
// moves, and whether it is valid.
#pragma once

#include <tessera/fusion/impl/matrix_group.hpp>
#include <tessera/fusion/impl/sequence_traits.hpp>
#include <tessera/fusion/impl/vector_group.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace tessera {
namespace fusion {
namespace Impl {

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
}  // namespace fusion
}  // namespace tessera
