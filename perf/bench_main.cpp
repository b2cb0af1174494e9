// main() of every benchmark program: Google Benchmark run inside a Kokkos scope. Programs that
// cache Views across benchmarks release them with Kokkos::push_finalize_hook.
#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
