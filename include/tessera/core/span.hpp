// A pointer and a length, the way one variable's row reaches a formula.
//
// Span<const float, 3> is what a formula receives for a 3-D point; its size is a compile-time
// constant, so loops over it unroll and the values stay in registers. Span<T, dynamic_extent>
// carries its size at run time (the runtime-dimension fallback).
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {

/// Marks a dimension that is only known at run time (taken from the View's extent).
inline constexpr int dynamic_extent = -1;

/// A list of compile-time variable dimensions, e.g. Dims<3, 1> for a point and a weight.
template <int... D>
struct Dims {
  static constexpr int count = sizeof...(D);  ///< Number of variables (dimensions listed).
};

/// Non-owning view of a small contiguous vector, sized at compile time when Extent >= 0.
template <class T, int Extent>
class Span {
 public:
  using element_type          = T;       ///< Type of the elements (may be const).
  static constexpr int extent = Extent;  ///< Compile-time number of elements.

  /// Views Extent elements starting at data; the run-time size is ignored.
  KOKKOS_INLINE_FUNCTION constexpr Span(T* data, int /*size*/) : data_(data) {}
  /// Element k (0 <= k < Extent, not checked).
  KOKKOS_INLINE_FUNCTION constexpr T& operator[](int k) const { return data_[k]; }
  /// Number of elements, Extent.
  KOKKOS_INLINE_FUNCTION static constexpr int size() { return Extent; }
  /// Pointer to the first element.
  KOKKOS_INLINE_FUNCTION constexpr T* data() const { return data_; }

 private:
  T* data_;
};

/// Non-owning view of a small contiguous vector whose size is known only at run time.
template <class T>
class Span<T, dynamic_extent> {
 public:
  using element_type          = T;               ///< Type of the elements (may be const).
  static constexpr int extent = dynamic_extent;  ///< Marks the size as a run-time value.

  /// Views size elements starting at data.
  KOKKOS_INLINE_FUNCTION constexpr Span(T* data, int size) : data_(data), size_(size) {}
  /// Element k (0 <= k < size(), not checked).
  KOKKOS_INLINE_FUNCTION constexpr T& operator[](int k) const { return data_[k]; }
  /// Number of elements, given at construction.
  KOKKOS_INLINE_FUNCTION constexpr int size() const { return size_; }
  /// Pointer to the first element.
  KOKKOS_INLINE_FUNCTION constexpr T* data() const { return data_; }

 private:
  T* data_;
  int size_;
};

/// Read-only input row of a formula: In<float, 3> is a 3-D point.
template <class T, int Extent>
using In = Span<const T, Extent>;
/// Output row of a formula: Out<float, 1> is a scalar result.
template <class T, int Extent>
using Out = Span<T, Extent>;

}  // namespace tessera
