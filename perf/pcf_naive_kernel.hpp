// The naive PCF block kernels of perf/bench_pairwise: masspcf's CUDA kernel as its documentation
// describes it ("CUDA block execution engine", masspcf's documentation): one thread per pair, both
// functions read from global memory, consecutive threads on consecutive rows (the seed's
// threadIdx.x is the row), the TriangleSkipMode test per thread. Two walks:
//   NaiveWalk::seed     the seed's rectangle iteration: each step reads both current values
//                       and both next times from global memory and advances the function whose
//                       next breakpoint comes first (both on a tie); the functions must start
//                       at the same time (the seed's PCFs all start at t = 0, as the
//                       benchmark's do)
//   NaiveWalk::tessera  Tessera's walk (Impl::pcf_integrate with bounds checks), so that the
//                       staged kernel's ratio to this one isolates the staging and the pair
//                       mapping
#pragma once

#include <tessera/pairwise/impl/pcf_kernel.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace tessera_bench {

enum class NaiveWalk { seed, tessera };

/// The seed's rectangle iteration (see the file comment), finalized.
template <class Acc, class T, class Op>
KOKKOS_INLINE_FUNCTION Acc seed_walk(const tessera::PcfPoint<T>* f, int nf,
                                     const tessera::PcfPoint<T>* g, int ng, Acc end, const Op& op) {
  int fi = 0, gi = 0;
  Acc t   = Acc(f[0].t) > Acc(g[0].t) ? Acc(f[0].t) : Acc(g[0].t);
  Acc sum = 0;
  while (t < end) {
    const Acc t_prev = t, fv = f[fi].v, gv = g[gi].v;
    const bool f_more = fi + 1 < nf, g_more = gi + 1 < ng;
    if (f_more && g_more) {
      const Acc d = Acc(f[fi + 1].t) - Acc(g[gi + 1].t);
      fi += d <= 0;
      gi += d >= 0;
    } else if (f_more) {
      ++fi;
    } else if (g_more) {
      ++gi;
    } else {  // both at their last breakpoint: the last rectangle runs to end
      if (end < tessera::math::infinity<Acc>()) sum += (end - t_prev) * op.integrand(fv, gv);
      break;
    }
    t = Acc(f[fi].t) > Acc(g[gi].t) ? Acc(f[fi].t) : Acc(g[gi].t);
    t = t < end ? t : end;
    sum += (t - t_prev) * op.integrand(fv, gv);
  }
  return op.finalize(sum);
}

template <NaiveWalk Walk, class Acc, class T, class Op>
struct NaivePcfBlockKernel {
  tessera::Impl::PcfBlockData<T> data;
  T* out;
  std::size_t rows, cols, r0, c0;
  tessera::TriangleSkipMode skip;
  Acc end;
  Op op;

  KOKKOS_INLINE_FUNCTION void operator()(std::size_t e) const {
    const std::size_t i = e % rows, j = e / rows;
    if (!tessera::Impl::pair_computed(skip, r0 + i, c0 + j)) return;
    const std::size_t fb = data.row_offsets[i], gb = data.col_offsets[j];
    const int nf = int(data.row_offsets[i + 1] - fb), ng = int(data.col_offsets[j + 1] - gb);
    const auto* f = data.row_points + (fb - data.row_base);
    const auto* g = data.col_points + (gb - data.col_base);
    if constexpr (Walk == NaiveWalk::seed) {
      out[i * cols + j] = static_cast<T>(seed_walk<Acc>(f, nf, g, ng, end, op));
    } else {
      out[i * cols + j] =
          static_cast<T>(tessera::Impl::pcf_integrate<false, Acc>(f, 1, nf, g, 1, ng, end, op));
    }
  }
};

/// Launches a naive kernel over a rows x cols block (asynchronous), as launch_pcf_block.
template <NaiveWalk Walk, class Acc, class ExecSpace, class T, class Op>
void launch_naive_pcf_block(const ExecSpace& space, const tessera::Impl::PcfBlockData<T>& data,
                            T* out, std::size_t rows, std::size_t cols, std::size_t r0,
                            std::size_t c0, tessera::TriangleSkipMode skip, T end, const Op& op) {
  Kokkos::parallel_for(
      "bench::naive_pcf_block", Kokkos::RangePolicy<ExecSpace>(space, 0, rows * cols),
      NaivePcfBlockKernel<Walk, Acc, T, Op>{data, out, rows, cols, r0, c0, skip, Acc(end), op});
}

}  // namespace tessera_bench
