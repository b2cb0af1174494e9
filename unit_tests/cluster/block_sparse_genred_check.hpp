// Block-sparse genred against the double-precision host reference restricted to the pattern's
// (i, j) pairs, through every kernel that runs block-sparse calls on the execution space: the
// genred and cluster tests share it.
#pragma once

#include "cluster/block_sparse_test_support.hpp"
#include "genred/genred_test_support.hpp"

#include <tessera/genred/genred.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera_test {

/// The kernels a block-sparse test runs on Space: on host spaces the portable kernel and the
/// host kernel (both forced), unless TESSERA_TEST_IMPLEMENTATION=portable asks for the portable
/// kernel only; elsewhere what test_options() asks for.
template <class Space>
std::vector<tessera::Implementation> sparse_implementations() {
  using tessera::Implementation;
  if (tessera::Impl::GenredBackend<Space>::implementation == Implementation::host &&
      test_implementation() != Implementation::portable) {
    return {Implementation::portable, Implementation::host};
  }
  return {test_implementation()};
}

/// The name of a kernel in failure messages.
inline std::string implementation_name(tessera::Implementation implementation) {
  switch (implementation) {
    case tessera::Implementation::portable:
      return "portable";
    case tessera::Implementation::host:
      return "host";
    case tessera::Implementation::cuda:
      return "cuda";
    default:
      return "automatic";
  }
}

/// Extents of a block-sparse case: batch (0: rank-2 Views), M and N, and the expected number
/// of segments of a random pattern.
struct SparseCase {
  int batch, m, n;
  int segments;
};

/// Runs `reduction` on MixedFormula (or StagedMixedFormula) with `ranges` over both axes, every
/// summation mode and every kernel of sparse_implementations(), against the reference
/// restricted to the pairs `pattern` (the same pattern on the host) keeps.
template <class Space, class T, class Reduction, class Formula = MixedFormula>
void check_sparse(const Reduction& reduction, const SparseCase& s,
                  const tessera::BlockSparseRanges<typename Space::memory_space>& ranges,
                  const HostPattern& pattern, const std::string& what) {
  using namespace tessera;
  constexpr int dim   = MixedFormula::out_dim;
  const int k         = Impl::reduction_k(reduction);
  const ProblemData d = make_problem<T>(s.batch, s.m, s.n, 1000 + s.m + s.n);
  auto p              = to_view<T, Space>("p", d.p, s.batch, 1, 1);
  auto x              = to_view<T, Space>("x", d.x, s.batch, s.m, 3);
  auto y              = to_view<T, Space>("y", d.y, s.batch, s.n, 3);
  auto b              = to_view<T, Space>("b", d.b, s.batch, s.n, 2);
  const std::vector<Summation> summations =
      Impl::uses_summation<Reduction>
          ? std::vector<Summation>{Summation::direct, Summation::block_sum, Summation::kahan}
          : std::vector<Summation>{Summation::block_sum};
  for (Axis axis : {Axis::j, Axis::i}) {
    const int n_outer = axis == Axis::j ? s.m : s.n;
    const int n_inner = axis == Axis::j ? s.n : s.m;
    if (Impl::is_k_reduction<Reduction> && k > n_inner) continue;
    const auto ref = tessera_ref::reduce(reduction, d.batches(), n_outer, n_inner, dim,
                                         reference_formula(d, axis), [&](int outer, int inner) {
                                           return axis == Axis::j ? pattern.keeps(outer, inner)
                                                                  : pattern.keeps(inner, outer);
                                         });
    for (Implementation implementation : sparse_implementations<Space>()) {
      for (Summation summation : summations) {
        GenredOptions opt       = test_options();
        opt.axis                = axis;
        opt.summation           = summation;
        opt.implementation      = implementation;
        const std::string where = what + (std::is_same_v<T, float> ? " float" : " double") +
                                  " B=" + std::to_string(s.batch) + " M=" + std::to_string(s.m) +
                                  " N=" + std::to_string(s.n) +
                                  (axis == Axis::j ? " axis j" : " axis i") + " summation " +
                                  std::to_string(static_cast<int>(summation)) + " kernel " +
                                  implementation_name(implementation);
        check_call<Space, T>(
            reduction, s.batch, n_outer, ref, p, x, y, b,
            [&](auto pv, auto xv, auto yv, auto bv, auto out) {
              tessera::genred(Space(), reduction, Formula{}, tessera::params(pv),
                              tessera::i_vars(xv), tessera::j_vars(yv, bv), out, ranges, opt);
            },
            where);
        if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
      }
    }
  }
}

/// check_sparse with the device copy of a host pattern.
template <class Space, class T, class Reduction, class Formula = MixedFormula>
void check_sparse(const Reduction& reduction, const SparseCase& s, const HostPattern& pattern,
                  const std::string& what) {
  check_sparse<Space, T, Reduction, Formula>(reduction, s, pattern.to_device<Space>(), pattern,
                                             what);
}

}  // namespace tessera_test
