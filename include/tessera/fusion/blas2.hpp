// The paper's matrix sequences (BLAS-2) as ready functions, each one fused sequence (run.hpp):
//
//   atax     tmp = A x,  y = A^T tmp                        one pass over A (LayoutRight)
//   bicgk    q = A p,  s = A^T r                            A read once
//   sgemv    z = alpha A x + beta y
//   sgemvt   x = beta A^T y + z,  w = alpha A x             one pass over A (LayoutLeft)
//   gemver   B = A + u1 v1^T + u2 v2^T,  x = beta B^T y + z,  w = alpha B x
//   gesummv  y = alpha A x + beta B x                       x read once
//   madd     C = A + B
//
// A is m x n; vectors multiplied by A (x in A x) and results of A^T have n elements, the others
// m. Matrices are contiguous rank-2 Views, all LayoutRight or all LayoutLeft, of one shape;
// vectors contiguous rank-1 Views; one value type (float or double), in memory the execution
// space can access. Teams own rows of LayoutRight matrices and columns of LayoutLeft ones
// (plan.hpp), so a product along the owned lines completes inside a team: which sequences can
// run as one pass over A depends on the layout (ATAX for LayoutRight, SGEMVT for LayoutLeft,
// BiCGK for both; the second product then re-reads the team's lines from cache, which the GPU
// model charges, so there the one-pass plan runs when the tuner finds it faster).
// The functions validate their arguments before any kernel (std::invalid_argument naming the
// function and the argument, e.g. "tessera::fusion::sgemv: x has 6 elements, expected 4 (the
// columns of A)"; no output may share memory with another argument), run asynchronously except
// as run() says, and return the FusionReport of the plan they ran. Each sequence binds its Views
// in the ready function's argument order; the overloads without `space` run on
// Kokkos::DefaultExecutionSpace.
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
/// ATAX over bind(A, x, tmp, y).
inline auto atax_sequence() {
  constexpr Mat<0> a;
  constexpr Vec<1> x;
  constexpr Vec<2> t;
  constexpr Vec<3> y;
  return sequence(assign(t, row_sum(a * by_col(x))), assign(y, col_sum(a * by_row(t))));
}

/// BICGK over bind(A, p, r, q, s).
inline auto bicgk_sequence() {
  constexpr Mat<0> a;
  constexpr Vec<1> p;
  constexpr Vec<2> r;
  constexpr Vec<3> q;
  constexpr Vec<4> s;
  return sequence(assign(q, row_sum(a * by_col(p))), assign(s, col_sum(a * by_row(r))));
}

/// SGEMV over bind(A, x, y, z).
inline auto sgemv_sequence(double alpha, double beta) {
  constexpr Mat<0> a;
  constexpr Vec<1> x;
  constexpr Vec<2> y;
  constexpr Vec<3> z;
  return sequence(assign(z, alpha * row_sum(a * by_col(x)) + beta * y));
}

/// SGEMVT over bind(A, y, z, x, w).
inline auto sgemvt_sequence(double alpha, double beta) {
  constexpr Mat<0> a;
  constexpr Vec<1> y;
  constexpr Vec<2> z;
  constexpr Vec<3> x;
  constexpr Vec<4> w;
  return sequence(assign(x, beta * col_sum(a * by_row(y)) + z),
                  assign(w, alpha * row_sum(a * by_col(x))));
}

/// GEMVER over bind(A, u1, v1, u2, v2, y, z, B, x, w).
inline auto gemver_sequence(double alpha, double beta) {
  constexpr Mat<0> a;
  constexpr Vec<1> u1;
  constexpr Vec<2> v1;
  constexpr Vec<3> u2;
  constexpr Vec<4> v2;
  constexpr Vec<5> y;
  constexpr Vec<6> z;
  constexpr Mat<7> b;
  constexpr Vec<8> x;
  constexpr Vec<9> w;
  return sequence(assign(b, a + by_row(u1) * by_col(v1) + by_row(u2) * by_col(v2)),
                  assign(x, beta * col_sum(b * by_row(y)) + z),
                  assign(w, alpha * row_sum(b * by_col(x))));
}

/// GESUMMV over bind(A, B, x, y).
inline auto gesummv_sequence(double alpha, double beta) {
  constexpr Mat<0> a;
  constexpr Mat<1> b;
  constexpr Vec<2> x;
  constexpr Vec<3> y;
  return sequence(assign(y, row_sum(alpha * a * by_col(x) + beta * b * by_col(x))));
}

/// MADD over bind(A, B, C).
inline auto madd_sequence() {
  constexpr Mat<0> a;
  constexpr Mat<1> b;
  constexpr Mat<2> c;
  return sequence(assign(c, a + b));
}

/// ATAX: tmp = A x (m), then y = A^T tmp (n).
template <class ExecSpace, class AV, class X, class Tmp, class Y>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> atax(
    const ExecSpace& space, const AV& A, const X& x, const Tmp& tmp, const Y& y,
    const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "x", "tmp", "y"};
  return Impl::run_named("fusion::atax", names, space, atax_sequence(), bind(A, x, tmp, y),
                         options);
}

/// BiCGK: q = A p (m), s = A^T r (n).
template <class ExecSpace, class AV, class PV, class RV, class Q, class SV>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> bicgk(
    const ExecSpace& space, const AV& A, const PV& p, const RV& r, const Q& q, const SV& s,
    const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "p", "r", "q", "s"};
  return Impl::run_named("fusion::bicgk", names, space, bicgk_sequence(), bind(A, p, r, q, s),
                         options);
}

/// SGEMV: z = alpha A x + beta y (z, y: m; x: n).
template <class ExecSpace, class AV, class X, class Y, class Z>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> sgemv(
    const ExecSpace& space, double alpha, const AV& A, const X& x, double beta, const Y& y,
    const Z& z, const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "x", "y", "z"};
  return Impl::run_named("fusion::sgemv", names, space, sgemv_sequence(alpha, beta),
                         bind(A, x, y, z), options);
}

/// SGEMVT: x = beta A^T y + z (x, z: n; y: m), then w = alpha A x (m).
template <class ExecSpace, class AV, class Y, class Z, class X, class W>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> sgemvt(
    const ExecSpace& space, double alpha, double beta, const AV& A, const Y& y, const Z& z,
    const X& x, const W& w, const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "y", "z", "x", "w"};
  return Impl::run_named("fusion::sgemvt", names, space, sgemvt_sequence(alpha, beta),
                         bind(A, y, z, x, w), options);
}

/// GEMVER: B = A + u1 v1^T + u2 v2^T, x = beta B^T y + z (x, z, v1, v2: n; u1, u2, y: m),
/// w = alpha B x (m).
template <class ExecSpace, class AV, class U1, class V1, class U2, class V2, class Y, class Z,
          class BV, class X, class W>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> gemver(
    const ExecSpace& space, double alpha, double beta, const AV& A, const U1& u1, const V1& v1,
    const U2& u2, const V2& v2, const Y& y, const Z& z, const BV& B, const X& x, const W& w,
    const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "u1", "v1", "u2", "v2", "y", "z", "B", "x", "w"};
  return Impl::run_named("fusion::gemver", names, space, gemver_sequence(alpha, beta),
                         bind(A, u1, v1, u2, v2, y, z, B, x, w), options);
}

/// GESUMMV: y = alpha A x + beta B x (y: m; x: n).
template <class ExecSpace, class AV, class BV, class X, class Y>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> gesummv(
    const ExecSpace& space, double alpha, const AV& A, double beta, const BV& B, const X& x,
    const Y& y, const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "B", "x", "y"};
  return Impl::run_named("fusion::gesummv", names, space, gesummv_sequence(alpha, beta),
                         bind(A, B, x, y), options);
}

/// MADD: C = A + B.
template <class ExecSpace, class AV, class BV, class CV>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, FusionReport> madd(
    const ExecSpace& space, const AV& A, const BV& B, const CV& C,
    const FusionOptions& options = {}) {
  static constexpr const char* names[] = {"A", "B", "C"};
  return Impl::run_named("fusion::madd", names, space, madd_sequence(), bind(A, B, C), options);
}

/// atax(A, x, tmp, y[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> atax(
    const First& first, const Rest&... rest) {
  return atax(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// bicgk(A, p, r, q, s[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> bicgk(
    const First& first, const Rest&... rest) {
  return bicgk(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// sgemv(alpha, A, x, beta, y, z[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> sgemv(
    const First& first, const Rest&... rest) {
  return sgemv(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// sgemvt(alpha, beta, A, y, z, x, w[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> sgemvt(
    const First& first, const Rest&... rest) {
  return sgemvt(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// gemver(alpha, beta, A, u1, v1, u2, v2, y, z, B, x, w[, options]) on
/// Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> gemver(
    const First& first, const Rest&... rest) {
  return gemver(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// gesummv(alpha, A, beta, B, x, y[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> gesummv(
    const First& first, const Rest&... rest) {
  return gesummv(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

/// madd(A, B, C[, options]) on Kokkos::DefaultExecutionSpace.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, FusionReport> madd(
    const First& first, const Rest&... rest) {
  return madd(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

}  // namespace fusion
}  // namespace tessera
