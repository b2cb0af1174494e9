// Compiled by the plain host C++ compiler, not as CUDA, by the CTest test host_compile_rejected
// (only when Tessera's CUDA kernels are compiled in): the compile must stop at config.hpp's
// #error, so that no program holds two definitions of Tessera's launch functions.
#include <tessera.hpp>

int main() {
  return 0;
}
