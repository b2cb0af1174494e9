// The paper's vector sequences (BLAS-1) as ready functions, each one fused sequence (run.hpp):
//
//   axpydot  z = w - alpha v,  r = z . u        one kernel: reads w, v, u once, writes z, r
//   waxpby   w = alpha x + beta y
//   vadd     x = w + y + z
//   sscal    x = alpha x                        in place
//
// Vectors are contiguous rank-1 Views of one length and value type (float or double) in memory
// the execution space can access; r is a rank-0 View. The functions validate their arguments
// before any kernel (std::invalid_argument), are asynchronous, and return the FusionReport of
// the plan they ran (options: the plan choice, team size, elements per thread).
#pragma once

#include <tessera/fusion/expression.hpp>
#include <tessera/fusion/run.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

namespace tessera {
namespace fusion {

/// The sequences of the ready functions below, over the bindings named in their comments
/// (symbol K: the K-th); the ready functions run them, the tests and benchmarks time them.
/// AXPYDOT over bind(z, w, v, u, r).
inline auto axpydot_sequence(double alpha) {
  constexpr Vec<0> z;
  constexpr Vec<1> w;
  constexpr Vec<2> v;
  constexpr Vec<3> u;
  constexpr Scalar<4> r;
  return sequence(assign(z, w - alpha * v), assign(r, dot(z, u)));
}

/// WAXPBY over bind(w, x, y).
inline auto waxpby_sequence(double alpha, double beta) {
  constexpr Vec<0> w;
  constexpr Vec<1> x;
  constexpr Vec<2> y;
  return sequence(assign(w, alpha * x + beta * y));
}

/// VADD over bind(x, w, y, z).
inline auto vadd_sequence() {
  constexpr Vec<0> x;
  constexpr Vec<1> w;
  constexpr Vec<2> y;
  constexpr Vec<3> z;
  return sequence(assign(x, w + y + z));
}

/// SSCAL over bind(x).
inline auto sscal_sequence(double alpha) {
  constexpr Vec<0> x;
  return sequence(assign(x, alpha * x));
}

/// AXPYDOT: z_i = w_i - alpha v_i, then r = sum_i z_i u_i.
template <class ExecSpace, class W, class V, class U, class Z, class R>
FusionReport axpydot(const ExecSpace& space, double alpha, const W& w, const V& v, const U& u,
                     const Z& z, const R& r, const FusionOptions& options = {}) {
  return run(space, axpydot_sequence(alpha), bind(z, w, v, u, r), options);
}

/// WAXPBY: w_i = alpha x_i + beta y_i.
template <class ExecSpace, class X, class Y, class W>
FusionReport waxpby(const ExecSpace& space, double alpha, const X& x, double beta, const Y& y,
                    const W& w, const FusionOptions& options = {}) {
  return run(space, waxpby_sequence(alpha, beta), bind(w, x, y), options);
}

/// VADD: x_i = w_i + y_i + z_i.
template <class ExecSpace, class W, class Y, class Z, class X>
FusionReport vadd(const ExecSpace& space, const W& w, const Y& y, const Z& z, const X& x,
                  const FusionOptions& options = {}) {
  return run(space, vadd_sequence(), bind(x, w, y, z), options);
}

/// SSCAL: x_i = alpha x_i (in place).
template <class ExecSpace, class X>
FusionReport sscal(const ExecSpace& space, double alpha, const X& x,
                   const FusionOptions& options = {}) {
  return run(space, sscal_sequence(alpha), bind(x), options);
}

}  // namespace fusion
}  // namespace tessera
