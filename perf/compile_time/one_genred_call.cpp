// A consumer translation unit with one Genred call, for the compile-time measurements of
// perf/README.md ("Compile time"; scripts/measure-compile-time.sh compiles it). With
// -DTESSERA_UMBRELLA it includes <tessera.hpp> instead of the Genred headers.
#if defined(TESSERA_UMBRELLA)
#include <tessera.hpp>
#else
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>
#endif

#include <Kokkos_Core.hpp>

using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

void gaussian_sum(const Points& x, const Points& y, const Points& b, const Points& out) {
  tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<3, 1>(0.1), tessera::i_vars(x),
                  tessera::j_vars(y, b), out);
}
