// The PCF block kernel: integrates Op over every computed pair (row function i, column function
// j) of one block, op(X_i, X_j) in that argument order, writing each where the block's
// BlockStorage says.
//
// Each team takes a G x G tile of pairs (G = TuningBase::pairwise_pcf_tile_bytes divided by
// the size of a breakpoint: 16 in float, 8 in double). When the longest function fits, the
// team first copies its G row and G column functions to scratch, transposed: breakpoint k of
// tile function l sits at k * G + l. Its threads then walk pairs in "diagonal" order, thread
// p taking pair (i, j) = (p mod G, (p mod G + p / G) mod G): G consecutive threads read G
// different row functions and G different column functions, each at its own position, and
// still hit G different 8- or 16-byte bank groups, so that the merge walks run free of bank
// conflicts however far apart their positions drift. Otherwise (a function longer than the
// scratch holds) the same walk reads global memory.
//
// The walk visits the breakpoints of both functions in time order once (|f| + |g| steps, see
// pcf_integrate): with f and g the current values (0 before a function's first breakpoint),
// every step adds (t_next - t) * integrand(f, g), up to the call's end time.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/pcf_collection.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace tessera {
namespace Impl {

/// Tile side G of the PCF kernel for breakpoints of type T.
template <class T>
constexpr int pcf_tile() {
  return TuningBase::pairwise_pcf_tile_bytes / static_cast<int>(sizeof(PcfPoint<T>));
}

/// finalize(integral of Op over [.., end)) for two PCFs: nf >= 1 breakpoints at f[0],
/// f[stride_f], ... and ng >= 1 at g[0], g[stride_g], ...; accumulated in Acc. Sentinel:
/// f[nf * stride_f] and g[ng * stride_g] exist and have time +infinity (the staged tiles end
/// every function so), which spares the walk its bounds checks.
///
/// The walk takes exactly nf + ng steps, one per breakpoint, whichever function's comes first
/// (f's on a tie: the tied g breakpoint follows as a step of zero width). A step adds
/// (t_next - t) * integrand(f value, g value) with t_next clamped to end, then moves the taken
/// function to its next breakpoint: a select of one of two pointers and one load, no branch,
/// so the threads of a warp stay converged whatever their functions' times. Steps past end add
/// nothing (zero width); integrand(0, 0) = 0 makes the steps before both functions' first
/// breakpoints vanish too.
template <bool Sentinel, class Acc, class T, class Op>
KOKKOS_INLINE_FUNCTION Acc pcf_integrate(const PcfPoint<T>* f, int stride_f, int nf,
                                         const PcfPoint<T>* g, int stride_g, int ng, Acc end,
                                         const Op& op) {
  const PcfPoint<T> exhausted = {math::infinity<T>(), T(0)};
  // The next breakpoint of each function, where the one after it lies, how many remain after
  // it, and the current values (0 before the first breakpoint).
  PcfPoint<T> fn = f[0], gn = g[0];
  const PcfPoint<T>* fp = f + stride_f;
  const PcfPoint<T>* gp = g + stride_g;
  int f_left = nf - 1, g_left = ng - 1;
  Acc fv = 0, gv = 0;
  Acc t   = Acc(fn.t) < Acc(gn.t) ? Acc(fn.t) : Acc(gn.t);
  Acc sum = 0;
  for (int step = nf + ng; step > 0; --step) {
    const bool take_f = fn.t <= gn.t;
    Acc tn            = take_f ? Acc(fn.t) : Acc(gn.t);
    tn                = tn < end ? tn : end;
    sum += (tn - t) * op.integrand(fv, gv);
    t                       = tn;
    const PcfPoint<T>* from = take_f ? fp : gp;
    const bool has_next     = Sentinel || (take_f ? f_left : g_left) > 0;
    const PcfPoint<T> next  = has_next ? *from : exhausted;
    fv                      = take_f ? Acc(fn.v) : fv;
    gv                      = take_f ? gv : Acc(gn.v);
    fn                      = take_f ? next : fn;
    gn                      = take_f ? gn : next;
    fp                      = take_f ? fp + stride_f : fp;
    gp                      = take_f ? gp : gp + stride_g;
    f_left -= take_f;
    g_left -= !take_f;
  }
  if (end < math::infinity<Acc>()) sum += (end - t) * op.integrand(fv, gv);
  return op.finalize(sum);
}

/// One block's PCF data as the kernel reads it: offsets(k) - base is where function k of the
/// block starts in points (rows: k in [0, rows], columns likewise).
template <class T>
struct PcfBlockData {
  const std::size_t* row_offsets;
  const std::size_t* col_offsets;
  std::size_t row_base, col_base;
  const PcfPoint<T>* row_points;
  const PcfPoint<T>* col_points;
};

/// The team kernel (see the file comment). Staged: functions in scratch, else global memory.
template <class ExecSpace, class Acc, class T, class Op, bool Staged>
struct PcfBlockKernel {
  using Member                           = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int G                 = pcf_tile<T>();
  static constexpr std::size_t alignment = alignof(PcfPoint<T>) > 16 ? alignof(PcfPoint<T>) : 16;

  PcfBlockData<T> data;
  T* out;  // pair (r, c) of the block at storage.index(r, c)
  BlockStorage storage;
  std::size_t rows, cols;  // of the block
  std::size_t r0, c0;      // global index of its first row and column
  int tiles_j;             // tiles per block row
  int capacity;            // breakpoints per function that scratch holds (Staged)
  TriangleSkipMode skip;
  Acc end;
  Op op;

  /// Scratch per team: 2G functions of `capacity` breakpoints and a sentinel each, their lengths
  /// and first breakpoints, aligned.
  static std::size_t scratch_bytes(int capacity) {
    return sizeof(PcfPoint<T>) * 2 * G * (static_cast<std::size_t>(capacity) + 1) +
           (sizeof(int) + sizeof(std::size_t)) * 2 * G + 3 * alignment;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const int ti = m.league_rank() / tiles_j, tj = m.league_rank() % tiles_j;
    const std::size_t i0 = std::size_t(ti) * G, j0 = std::size_t(tj) * G;
    const int nr = rows - i0 < std::size_t(G) ? int(rows - i0) : G;
    const int nc = cols - j0 < std::size_t(G) ? int(cols - j0) : G;
    // A tile with no computed pair leaves at once (the same decision for the whole team): its
    // first row and last column, the pair nearest the upper triangle, is skipped.
    if (!pair_computed(skip, r0 + i0, c0 + j0 + nc - 1)) return;

    const PcfPoint<T>*f_base = data.row_points, *g_base = data.col_points;
    int stride = 1;
    int* len   = nullptr;  // breakpoints of tile function l (row l < G, column l - G)
    if constexpr (Staged) {
      const auto& scratch = m.team_scratch(0);
      auto* pts           = static_cast<PcfPoint<T>*>(scratch.get_shmem_aligned(
                    sizeof(PcfPoint<T>) * 2 * G * (std::size_t(capacity) + 1), alignment));
      len         = static_cast<int*>(scratch.get_shmem_aligned(sizeof(int) * 2 * G, alignment));
      auto* first = static_cast<std::size_t*>(
          scratch.get_shmem_aligned(sizeof(std::size_t) * 2 * G, alignment));
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 2 * G), [&](int l) {
        const bool row         = l < G;
        const int k            = row ? l : l - G;
        const bool valid       = k < (row ? nr : nc);
        const std::size_t* off = row ? data.row_offsets + i0 : data.col_offsets + j0;
        len[l]                 = valid ? int(off[k + 1] - off[k]) : 0;
        first[l]               = valid ? off[k] - (row ? data.row_base : data.col_base) : 0;
      });
      m.team_barrier();
      int longest = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(m, 2 * G),
          [&](int l, int& mx) { mx = len[l] > mx ? len[l] : mx; }, Kokkos::Max<int>(longest));
      // Breakpoint k of all 2G functions, then k + 1, ...; position len[l] gets the sentinel.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 2 * G * (longest + 1)), [&](int e) {
        const int l = e % (2 * G), k = e / (2 * G);
        if (k < len[l]) {
          pts[std::size_t(k) * 2 * G + l] =
              (l < G ? data.row_points : data.col_points)[first[l] + k];
        } else if (k == len[l]) {
          pts[std::size_t(k) * 2 * G + l] = PcfPoint<T>{math::infinity<T>(), T(0)};
        }
      });
      m.team_barrier();
      f_base = pts;
      g_base = pts + G;
      stride = 2 * G;
    }

    for (int p = m.team_rank(); p < G * G; p += m.team_size()) {
      const int i = p % G, j = (i + p / G) % G;
      if (i >= nr || j >= nc) continue;
      const std::size_t gi = r0 + i0 + i, gj = c0 + j0 + j;
      if (!pair_computed(skip, gi, gj)) continue;
      const PcfPoint<T>*f, *g;
      int nf, ng;
      if constexpr (Staged) {
        f  = f_base + i;
        g  = g_base + j;
        nf = len[i];
        ng = len[G + j];
      } else {
        const std::size_t fb = data.row_offsets[i0 + i], gb = data.col_offsets[j0 + j];
        f  = f_base + (fb - data.row_base);
        g  = g_base + (gb - data.col_base);
        nf = int(data.row_offsets[i0 + i + 1] - fb);
        ng = int(data.col_offsets[j0 + j + 1] - gb);
      }
      out[storage.index(i0 + i, j0 + j)] =
          static_cast<T>(pcf_integrate<Staged, Acc>(f, stride, nf, g, stride, ng, end, op));
    }
  }
};

/// Launches the PCF block kernel on `space` (asynchronous): out (in the space's memory, laid out
/// as `storage`) receives op's value of every computed pair of the rows x cols block whose first
/// row and column are r0 and c0; max_points bounds every function's breakpoints.
template <class Acc, class ExecSpace, class T, class Op>
void launch_pcf_block(const ExecSpace& space, const PcfBlockData<T>& data, T* out,
                      const BlockStorage& storage, std::size_t rows, std::size_t cols,
                      std::size_t r0, std::size_t c0, TriangleSkipMode skip, T end, const Op& op,
                      std::size_t max_points) {
  if (rows == 0 || cols == 0) return;
  constexpr int G         = pcf_tile<T>();
  using Policy            = Kokkos::TeamPolicy<ExecSpace>;
  const int tiles_j       = int((cols + G - 1) / G);
  const std::size_t tiles = ((rows + G - 1) / G) * std::size_t(tiles_j);
  const int team =
      Tuning<ExecSpace>::pairwise_team_size < G * G ? Tuning<ExecSpace>::pairwise_team_size : G * G;
  using Staged           = PcfBlockKernel<ExecSpace, Acc, T, Op, true>;
  const std::size_t need = Staged::scratch_bytes(int(max_points));
  if (max_points <= std::size_t(1) << 20 &&
      need <= static_cast<std::size_t>(Policy::scratch_size_max(0))) {
    Staged k{data, out, storage, rows, cols, r0, c0, tiles_j, int(max_points), skip, Acc(end), op};
    Kokkos::parallel_for("tessera::pairwise::pcf_block_staged",
                         Policy(space, int(tiles), team).set_scratch_size(0, Kokkos::PerTeam(need)),
                         k);
  } else {
    PcfBlockKernel<ExecSpace, Acc, T, Op, false> k{data, out,     storage, rows, cols,     r0,
                                                   c0,   tiles_j, 0,       skip, Acc(end), op};
    Kokkos::parallel_for("tessera::pairwise::pcf_block_global", Policy(space, int(tiles), team), k);
  }
}

}  // namespace Impl
}  // namespace tessera
