// Genred at the dimensions of embeddings on host execution spaces (large_dim_test_support.hpp):
// selections (Min, ArgMin, KMin, ArgKMin) by squared distance at D = 64 and 520 through every
// host kernel, over j and over i, on data whose float distances are exact, so that values and
// indices must equal the reference's, ties (duplicated points) resolving to the smaller index.
#include "genred/large_dim_test_support.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tessera_test::large_dim;

/// Min, ArgMin, KMin{k} and ArgKMin{k} of |x_i - y_j|^2 over j (or over i) through every host
/// implementation. Coordinates are multiples of 1/4 in [-0.5, 0.5): every float distance is
/// exact (multiples of 1/16 below 2^20), so values and indices must equal the reference's. Many
/// distances tie, and some points are copies of others (y_j of an earlier y, x_i of a y_j):
/// ties resolve to the smaller index.
template <int D>
void check_selections(int m, int n, unsigned seed) {
  SCOPED_TRACE("D = " + std::to_string(D) + ", M = " + std::to_string(m) +
               ", N = " + std::to_string(n));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> quarter(-2, 1);
  Mat x = random_rows(m, D, [&] { return 0.25f * quarter(gen); });
  Mat y = random_rows(n, D, [&] { return 0.25f * quarter(gen); });
  for (int j = 3; j < n; j += 5)  // duplicated points
    for (int k = 0; k < D; ++k)
      y(j, k) = y(j / 2, k);
  for (int i = 0; i < m; i += 4)
    for (int k = 0; k < D; ++k)
      x(i, k) = y((i * 7) % n, k);
  const tessera::SquaredDistance<D> formula;

  for (const Axis axis : {Axis::j, Axis::i}) {
    const int rows = axis == Axis::j ? m : n, inner = axis == Axis::j ? n : m;
    // each outer row's (distance, index) pairs, sorted: ties by the smaller index
    std::vector<std::vector<std::pair<double, int>>> sorted(rows);
    for (int o = 0; o < rows; ++o) {
      for (int q = 0; q < inner; ++q)
        sorted[o].emplace_back(
            axis == Axis::j ? squared_distance(x, o, y, q) : squared_distance(x, q, y, o), q);
      std::sort(sorted[o].begin(), sorted[o].end());
    }
    for (const Implementation impl : implementations) {
      SCOPED_TRACE(name_of(impl, axis));
      tessera::GenredOptions options;
      options.axis           = axis;
      options.implementation = impl;
      const auto call        = [&](const auto& reduction, const auto& out) {
        tessera::genred(Space(), reduction, formula, tessera::i_vars(x), tessera::j_vars(y), out,
                               options);
        Space().fence();
      };
      for (const int k : {1, 5}) {
        Mat values("values", rows, k);
        IndexMat indices("indices", rows, k);
        if (k == 1) {
          call(tessera::Min{}, values);
          call(tessera::ArgMin{}, indices);
        } else {
          call(tessera::KMin{k}, values);
          call(tessera::ArgKMin{k}, indices);
        }
        for (int o = 0; o < rows; ++o)
          for (int t = 0; t < k; ++t) {
            ASSERT_EQ(double(values(o, t)), sorted[o][t].first) << "row " << o << ", k = " << k;
            ASSERT_EQ(indices(o, t), sorted[o][t].second) << "row " << o << ", k = " << k;
          }
      }
    }
  }
}

TEST(GenredLargeDim, SquaredDistanceSelections) {
  check_selections<64>(131, 131, 21);
  check_selections<64>(7, 131, 22);
  check_selections<520>(131, 7, 23);
  check_selections<520>(131, 131, 24);
}

}  // namespace
