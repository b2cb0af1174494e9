// The shape of a collection of functions: a pairwise call flattens it, its dense output restores
// it.
#pragma once

#include <tessera/core/impl/errors.hpp>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

namespace tessera {

/// Row-major batch shape of a collection of functions (rank 1 to 4): cdist(X, Y) of collections
/// shaped (a, b) and (c) writes a dense tensor of extents (a, b, c), the seed's (*X.shape,
/// *Y.shape); the engine itself sees size() = a * b rows.
class FunctionShape {
 public:
  /// Largest rank a shape may have.
  static constexpr int max_rank = 4;

  /// One dimension of n functions.
  explicit FunctionShape(std::size_t n = 0) : rank_(1) { extents_[0] = n; }
  /// Extents in row-major order, e.g. FunctionShape{10, 20}; throws for a rank outside [1, 4]
  /// or a product that overflows std::size_t.
  FunctionShape(std::initializer_list<std::size_t> extents) {
    if (extents.size() < 1 || extents.size() > max_rank) {
      throw std::invalid_argument(Impl::concat("tessera::FunctionShape: rank ", extents.size(),
                                               " outside [1, ", max_rank, "]"));
    }
    for (std::size_t e : extents)
      extents_[rank_++] = e;
    (void)size_checked();
  }

  /// Number of dimensions, 1 to max_rank.
  int rank() const { return rank_; }
  /// Extent of dimension d, 0 <= d < rank(); throws std::out_of_range for d < 0 or
  /// d >= max_rank.
  std::size_t extent(int d) const { return extents_.at(static_cast<std::size_t>(d)); }
  /// Number of functions: the product of the extents.
  std::size_t size() const { return size_checked(); }

  /// The extents as text for messages, e.g. "(10, 20)".
  std::string str() const {
    std::string s = "(";
    for (int d = 0; d < rank_; ++d)
      s += (d ? ", " : "") + std::to_string(extents_[d]);
    return s + ")";
  }

 private:
  std::size_t size_checked() const {
    std::size_t n = 1;
    for (int d = 0; d < rank_; ++d) {
      if (extents_[d] != 0 && n > std::numeric_limits<std::size_t>::max() / extents_[d]) {
        throw std::length_error("tessera::FunctionShape: the product of the extents overflows");
      }
      n *= extents_[d];
    }
    return n;
  }

  std::array<std::size_t, max_rank> extents_{};
  int rank_ = 0;
};

}  // namespace tessera
