// Direct host reference for genred: every F value of a row is computed in double by the
// caller, then reduced by the plainest possible code (std::accumulate-like loops, a stable
// sort for the k smallest).
#pragma once

#include <tessera/genred/reductions.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

namespace tessera_ref {

/// Expected output of one reduction: values[(b * rows + r) * cols + c], same for indices.
struct Expected {
  int cols = 0;
  std::vector<double> values;
  std::vector<long> indices;
  /// For each output row and component, the F values the row was reduced over (for checks
  /// that depend on the data, such as the argmin tolerance).
  std::vector<std::vector<double>> row_values;
};

/// F(b, outer, inner) -> D doubles, written to out.
using RowFormula = std::function<void(int b, int outer, int inner, double* out)>;

/// Whether the pair (outer, inner) takes part in the reduction (block-sparse references); an
/// empty function keeps every pair.
using KeepPair = std::function<bool(int outer, int inner)>;

inline constexpr double inf = std::numeric_limits<double>::infinity();

/// The reduction of F over the kept inner indices of each outer row. row_values holds F for
/// every inner index, NaN where the pair is not kept.
template <class Reduction>
Expected reduce(const Reduction& reduction, int batch, int n_outer, int n_inner, int dim,
                const RowFormula& f, const KeepPair& keep = {}) {
  using namespace tessera;
  Expected e;
  int k = 1;
  if constexpr (std::is_same_v<Reduction, KMin> || std::is_same_v<Reduction, ArgKMin> ||
                std::is_same_v<Reduction, KMinArgKMin>) {
    k = reduction.k;
  }
  const bool weighted =
      std::is_same_v<Reduction, LogSumExpWeighted> || std::is_same_v<Reduction, SumSoftMaxWeight>;
  e.cols = weighted ? dim - 1 : k * dim;
  e.values.assign(static_cast<std::size_t>(batch) * n_outer * e.cols, 0.0);
  e.indices.assign(e.values.size(), -1);
  e.row_values.resize(static_cast<std::size_t>(batch) * n_outer * dim);

  std::vector<double> F(static_cast<std::size_t>(n_inner) * dim);
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < n_outer; ++o) {
      std::vector<int> kept;  // the inner indices reduced over, ascending
      for (int j = 0; j < n_inner; ++j) {
        if (!keep || keep(o, j)) kept.push_back(j);
        f(b, o, j, &F[static_cast<std::size_t>(j) * dim]);
      }
      const std::size_t row = static_cast<std::size_t>(b) * n_outer + o;
      auto col              = [&](int c) {  // component c of F over the kept pairs
        std::vector<double> v(kept.size());
        for (std::size_t t = 0; t < kept.size(); ++t)
          v[t] = F[static_cast<std::size_t>(kept[t]) * dim + c];
        return v;
      };
      for (int c = 0; c < dim; ++c) {
        auto& all = e.row_values[row * dim + c];
        all.assign(n_inner, std::numeric_limits<double>::quiet_NaN());
        for (int j : kept)
          all[j] = F[static_cast<std::size_t>(j) * dim + c];
      }
      const int nk = static_cast<int>(kept.size());
      double* val  = &e.values[row * e.cols];
      long* idx    = &e.indices[row * e.cols];

      if constexpr (std::is_same_v<Reduction, Sum>) {
        for (int c = 0; c < dim; ++c) {
          const auto v = col(c);
          val[c]       = std::accumulate(v.begin(), v.end(), 0.0);
        }
      } else if constexpr (std::is_same_v<Reduction, Min> || std::is_same_v<Reduction, ArgMin> ||
                           std::is_same_v<Reduction, MinArgMin> || std::is_same_v<Reduction, Max> ||
                           std::is_same_v<Reduction, ArgMax> ||
                           std::is_same_v<Reduction, MaxArgMax>) {
        constexpr bool is_min = std::is_same_v<Reduction, Min> ||
                                std::is_same_v<Reduction, ArgMin> ||
                                std::is_same_v<Reduction, MinArgMin>;
        for (int c = 0; c < dim; ++c) {
          const auto v = col(c);
          val[c]       = is_min ? inf : -inf;
          for (int t = 0; t < nk; ++t) {
            if (is_min ? v[t] < val[c] : v[t] > val[c]) {
              val[c] = v[t];
              idx[c] = kept[t];
            }
          }
        }
      } else if constexpr (std::is_same_v<Reduction, KMin> || std::is_same_v<Reduction, ArgKMin> ||
                           std::is_same_v<Reduction, KMinArgKMin>) {
        for (int c = 0; c < dim; ++c) {
          const auto v = col(c);
          std::vector<int> order(nk);
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return v[a] < v[b]; });
          for (int t = 0; t < k; ++t) {
            val[t * dim + c] = t < nk ? v[order[t]] : inf;
            idx[t * dim + c] = t < nk ? kept[order[t]] : -1;
          }
        }
      } else if constexpr (std::is_same_v<Reduction, LogSumExp>) {
        for (int c = 0; c < dim; ++c) {
          const auto v   = col(c);
          const double m = nk ? *std::max_element(v.begin(), v.end()) : -inf;
          double s       = 0;
          for (double x : v)
            s += std::exp(x - m);
          val[c] = nk ? m + std::log(s) : -inf;
        }
      } else {  // weighted: F = [f, g...]
        const auto fv  = col(0);
        const double m = nk ? *std::max_element(fv.begin(), fv.end()) : -inf;
        double z       = 0;
        for (double x : fv)
          z += std::exp(x - m);
        for (int c = 1; c < dim; ++c) {
          const auto g = col(c);
          double s     = 0;
          for (int t = 0; t < nk; ++t)
            s += std::exp(fv[t] - m) * g[t];
          if constexpr (std::is_same_v<Reduction, LogSumExpWeighted>) {
            val[c - 1] = nk ? m + std::log(s) : -inf;
          } else {
            val[c - 1] = nk ? s / z : 0.0;
          }
        }
      }
    }
  }
  return e;
}

}  // namespace tessera_ref
