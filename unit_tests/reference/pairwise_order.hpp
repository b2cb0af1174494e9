// Host references for the order of pairwise outputs: where scipy's condensed vector and numpy's
// np.triu_indices put pair (i, j), computed in double apart from the library's integer formulas,
// and a point formula that is not symmetric, so that a test sees which argument was X_i.
#pragma once

#include <tessera/core/span.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace tessera_test {

/// Position of pair i < j in scipy's condensed distance vector of n (what
/// scipy.spatial.distance.squareform reads): n i - i (i + 1) / 2 + j - i - 1.
inline std::size_t scipy_index(std::size_t n, std::size_t i, std::size_t j) {
  const double di = double(i);
  return static_cast<std::size_t>(double(n) * di - di * (di + 1) / 2 + double(j) - di - 1);
}

/// Position of pair i <= j in np.triu_indices(n) order (the upper triangle with the diagonal,
/// row by row): n i - i (i - 1) / 2 + j - i.
inline std::size_t triu_index(std::size_t n, std::size_t i, std::size_t j) {
  const double di = double(i);
  return static_cast<std::size_t>(double(n) * di - di * (di - 1) / 2 + double(j) - di);
}

/// A point formula that is not symmetric, F(x, y) = x_0 - 2 y_0 + x_1 y_1 (points of dimension
/// 2): its value shows which argument was X_i.
struct Asymmetric {
  using param_dims             = tessera::Dims<>;   ///< no parameter variables
  using i_dims                 = tessera::Dims<2>;  ///< x: a 2-D point
  using j_dims                 = tessera::Dims<2>;  ///< y: a 2-D point
  static constexpr int out_dim = 1;                 ///< one value

  /// out = F(x, y).
  template <class T>
  KOKKOS_FUNCTION void operator()(tessera::In<T, 2> x, tessera::In<T, 2> y,
                                  tessera::Out<T, 1> out) const {
    out[0] = x[0] - 2 * y[0] + x[1] * y[1];
  }

  /// F(x, y) in double on the host.
  static double reference(const double* x, const double* y) {
    return x[0] - 2 * y[0] + x[1] * y[1];
  }
};

}  // namespace tessera_test
