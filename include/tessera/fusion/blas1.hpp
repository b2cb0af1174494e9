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

/// AXPYDOT: z_i = w_i - alpha v_i, then r = sum_i z_i u_i.
template <class ExecSpace, class W, class V, class U, class Z, class R>
FusionReport axpydot(const ExecSpace& space, double alpha, const W& w, const V& v, const U& u,
                     const Z& z, const R& r, const FusionOptions& options = {}) {
  constexpr Vec<0> z_;
  constexpr Vec<1> w_;
  constexpr Vec<2> v_;
  constexpr Vec<3> u_;
  constexpr Scalar<4> r_;
  return run(space, sequence(assign(z_, w_ - alpha * v_), assign(r_, dot(z_, u_))),
             bind(z, w, v, u, r), options);
}

/// WAXPBY: w_i = alpha x_i + beta y_i.
template <class ExecSpace, class X, class Y, class W>
FusionReport waxpby(const ExecSpace& space, double alpha, const X& x, double beta, const Y& y,
                    const W& w, const FusionOptions& options = {}) {
  constexpr Vec<0> w_;
  constexpr Vec<1> x_;
  constexpr Vec<2> y_;
  return run(space, sequence(assign(w_, alpha * x_ + beta * y_)), bind(w, x, y), options);
}

/// VADD: x_i = w_i + y_i + z_i.
template <class ExecSpace, class W, class Y, class Z, class X>
FusionReport vadd(const ExecSpace& space, const W& w, const Y& y, const Z& z, const X& x,
                  const FusionOptions& options = {}) {
  constexpr Vec<0> x_;
  constexpr Vec<1> w_;
  constexpr Vec<2> y_;
  constexpr Vec<3> z_;
  return run(space, sequence(assign(x_, w_ + y_ + z_)), bind(x, w, y, z), options);
}

/// SSCAL: x_i = alpha x_i (in place).
template <class ExecSpace, class X>
FusionReport sscal(const ExecSpace& space, double alpha, const X& x,
                   const FusionOptions& options = {}) {
  constexpr Vec<0> x_;
  return run(space, sequence(assign(x_, alpha * x_)), bind(x), options);
}

}  // namespace fusion
}  // namespace tessera
