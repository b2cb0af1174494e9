// A genred call with its variables passed as bare Views, not in tessera::i_vars(...) and
// tessera::j_vars(...): must not compile, and the compiler's message must say what to write
// (the CTest test genred_without_vars_rejected expects genred.hpp's static_assert text).
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include <Kokkos_Core.hpp>

void forgot_the_variable_packs() {
  Kokkos::View<double**, Kokkos::HostSpace> x("x", 10, 3), y("y", 20, 3), out("out", 10, 1);
  tessera::genred(Kokkos::DefaultHostExecutionSpace{}, tessera::Sum{},
                  tessera::GaussianKernel<3>(1.0), x, y, out);
}
