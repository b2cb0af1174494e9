// The paper's vector sequences (BLAS-1) as ready functions, each one fused sequence (run.hpp):
//
//   axpydot  z = w - alpha v,  r = z . u        one kernel: reads w, v, u once, writes z, r
//   waxpby   w = alpha x + beta y
//   vadd     x = w + y + z
//   sscal    x = alpha x                        in place
//
// Vectors are contiguous rank-1 Views of one length and value type (float or double) in memory
// the execution space can access; r is a rank-0 View. The functions validate their arguments
// before any kernel (std::invalid_argument naming the function and the argument, e.g.
// "tessera::fusion::axpydot: v has 7 elements, expected 8 (the length of w)"), are asynchronous,
// and return the FusionReport of the plan they ran (options: the plan choice, team size,
// elements per thread). Each sequence binds its Views in the ready function's argument order;
// the overloads without `space` run on Kokkos::DefaultExecutionSpace.
#pragma once

#include <tessera/fusion/expression.hpp>
#include <tessera/fusion/run.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {
namespace fusion {

/// The sequences of the ready functions below, over the bindings named in their comments
/// (symbol K: the K-th), which are the ready functions' Views in their argument order; the ready
/// functions run them, the tests and benchmarks time them.
/// AXPYDOT over bind(w, v, u, z, r).
inline auto axpydot_sequence(double alpha) {
  constexpr Vec<0> w;
  constexpr Vec<1> v;
  constexpr Vec<2> u;
  constexpr Vec<3> z;
  constexpr Scalar<4> r;
  return sequence(assign(z, w - alpha * v), assign(r, dot(z, u)));
}

/// WAXPBY over bind(x, y, w).
inline auto waxpby_sequence(double alpha, double beta) {
  constexpr Vec<0> x;
  constexpr Vec<1> y;
  constexpr Vec<2> w;
  return sequence(assign(w, alpha * x + beta * y));
}

/// VADD over bind(w, y, z, x).
inline auto vadd_sequence() {
  constexpr Vec<0> w;
  constexpr Vec<1> y;
  constexpr Vec<2> z;
  constexpr Vec<3> x;
  return sequence(assign(x, w + y + z));
}

/// SSCAL over bind(x).
inline auto sscal_sequence(double alpha) {
  constexpr Vec<0> x;
  return sequence(assign(x, alpha * x));
}

/// AXPYDOT: z_i = w_i - alpha v_i, then r = sum_i z_i u_i.
template <class ExecSpace, class W, class V, class U, class Z, class R>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> axpydot(
    const ExecSpace& space, double alpha, const W& w, const V& v, const U& u, const Z& z,
    const R& r, const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"w", "v", "u", "z", "r"};
  return Impl::run_named("fusion::axpydot", names, space, axpydot_sequence(alpha),
                         bind(w, v, u, z, r), options);
}

/// WAXPBY: w_i = alpha x_i + beta y_i.
template <class ExecSpace, class X, class Y, class W>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> waxpby(
    const ExecSpace& space, double alpha, const X& x, double beta, const Y& y, const W& w,
    const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"x", "y", "w"};
  return Impl::run_named("fusion::waxpby", names, space, waxpby_sequence(alpha, beta),
                         bind(x, y, w), options);
}

/// VADD: x_i = w_i + y_i + z_i.
template <class ExecSpace, class W, class Y, class Z, class X>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> vadd(
    const ExecSpace& space, const W& w, const Y& y, const Z& z, const X& x,
    const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"w", "y", "z", "x"};
  return Impl::run_named("fusion::vadd", names, space, vadd_sequence(), bind(w, y, z, x), options);
}

/// SSCAL: x_i = alpha x_i (in place).
template <class ExecSpace, class X>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> sscal(
    const ExecSpace& space, double alpha, const X& x, const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"x"};
  return Impl::run_named("fusion::sscal", names, space, sscal_sequence(alpha), bind(x), options);
}

/// axpydot(alpha, w, v, u, z, r[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> axpydot(
    const First& first, const Rest&... rest) {
  return axpydot(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// waxpby(alpha, x, beta, y, w[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> waxpby(
    const First& first, const Rest&... rest) {
  return waxpby(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// vadd(w, y, z, x[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> vadd(
    const First& first, const Rest&... rest) {
  return vadd(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// sscal(alpha, x[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> sscal(
    const First& first, const Rest&... rest) {
  return sscal(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

}  // namespace fusion
}  // namespace tessera
