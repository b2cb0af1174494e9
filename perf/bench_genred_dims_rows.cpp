// The rows of bench_genred_dims for one dimension, TESSERA_BENCH_DIM: perf/CMakeLists.txt
// compiles this file once per dimension (each instantiates genred for its own D only), so that
// the dimensions compile in parallel.
#include "bench_genred_dims.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#ifndef TESSERA_BENCH_DIM
#error "perf/CMakeLists.txt compiles bench_genred_dims_rows.cpp with TESSERA_BENCH_DIM=<D>"
#endif

namespace tessera_bench_dims {
namespace {

tessera::GenredOptions with(MatrixPrecision precision) {
  tessera::GenredOptions options;
  options.matrix_precision = precision;
  return options;
}

/// A Gaussian Sum row: inputs of type T, W weights, distance Dist; rel_err against the host
/// reference on the sampled rows.
template <int D, int W, Distance Dist, class T>
void sum_row(benchmark::State& state, const std::string& key, MatrixPrecision precision) {
  const Problem* p = problem(D, state);
  if (!p) return;
  const Inputs<T>& in = p->inputs<T>();
  const Rows<T> b     = W == 1 ? in.b1 : in.b64;
  const Rows<float> out("out", p->m, W);
  const auto kernel = tessera::GaussianKernel<D, W, Dist>(sigma_of(D));
  const auto call   = [&] {
    tessera::genred(Space(), tessera::Sum{}, kernel, tessera::i_vars(in.x),
                      tessera::j_vars(in.y, b), out, with(precision));
  };
  if (!run_timed(state, key, double(p->m) * p->n, call)) return;
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  double diff = 0, scale = 0;
  for (std::size_t s = 0; s < p->rows.size(); ++s)
    for (int w = 0; w < W; ++w) {
      const double r = in.ref.sums[s * max_w + w];
      diff           = std::max(diff, std::abs(double(a(p->rows[s], w)) - r));
      scale          = std::max(scale, std::abs(r));
    }
  state.counters["rel_err"] = scale > 0 ? diff / scale : diff;
}

/// An ArgKMin row: inputs of type T; idx_match against the host reference.
template <int D, class T>
void argkmin_row(benchmark::State& state, const std::string& key, MatrixPrecision precision) {
  const Problem* p = problem(D, state);
  if (!p) return;
  const Inputs<T>& in = p->inputs<T>();
  const Rows<int> out("indices", p->m, K);
  const auto call = [&] {
    tessera::genred(Space(), tessera::ArgKMin{K}, tessera::SquaredDistance<D>{},
                    tessera::i_vars(in.x), tessera::j_vars(in.y), out, with(precision));
  };
  if (!run_timed(state, key, double(p->m) * p->n, call)) return;
  const auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int equal      = 0;
  for (std::size_t s = 0; s < p->rows.size(); ++s) {
    bool same = true;
    for (int k = 0; k < K; ++k)
      same = same && idx(p->rows[s], k) == in.ref.nearest[s * K + k];
    equal += same;
  }
  state.counters["idx_match"] = double(equal) / double(p->rows.size());
}

/// The Sum rows of W weights at dimension D, after their baselines.
template <int D, int W>
void add_sum() {
  const std::string key = "d" + std::to_string(D) + "/sum_w" + std::to_string(W);
  add_baselines(key, "sum", D, W);
  const auto row = [&](const char* path, auto tag, Distance dist, MatrixPrecision precision) {
    using T = typename decltype(tag)::type;
    add(key + "/" + path, [key, dist, precision](benchmark::State& s) {
      if (dist == Distance::matrix) {
        sum_row<D, W, Distance::matrix, T>(s, key, precision);
      } else {
        sum_row<D, W, Distance::direct, T>(s, key, precision);
      }
    });
  };
  using F = std::common_type<float>;
  row("tessera_matrix_split", F{}, Distance::matrix, MatrixPrecision::split);
  row("tessera_matrix_fast", F{}, Distance::matrix, MatrixPrecision::fast);
  row("tessera_direct", F{}, Distance::direct, MatrixPrecision::split);
  if constexpr (has_bhalf) {
    using H = std::common_type<BHalf>;
    row("tessera_bhalf_matrix", H{}, Distance::matrix, MatrixPrecision::split);
    if constexpr (W > 1)
      row("tessera_bhalf_matrix_fast", H{}, Distance::matrix, MatrixPrecision::fast);
    row("tessera_bhalf_direct", H{}, Distance::direct, MatrixPrecision::split);
  }
}

/// The ArgKMin rows at dimension D, after their baselines.
template <int D>
void add_argkmin() {
  const std::string key = "d" + std::to_string(D) + "/argkmin_k" + std::to_string(K);
  add_baselines(key, "argkmin", D, K);
  add(key + "/tessera_split",
      [key](benchmark::State& s) { argkmin_row<D, float>(s, key, MatrixPrecision::split); });
  add(key + "/tessera_fast",
      [key](benchmark::State& s) { argkmin_row<D, float>(s, key, MatrixPrecision::fast); });
  if constexpr (has_bhalf) {
    add(key + "/tessera_bhalf",
        [key](benchmark::State& s) { argkmin_row<D, BHalf>(s, key, MatrixPrecision::split); });
  }
}

}  // namespace

template <int D>
void add_dimension() {
  add_sum<D, 1>();
  add_sum<D, max_w>();
  add_argkmin<D>();
}

template void add_dimension<TESSERA_BENCH_DIM>();

}  // namespace tessera_bench_dims
