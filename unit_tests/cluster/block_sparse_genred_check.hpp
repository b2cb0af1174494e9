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

/// Extents of a block-sparse case: batch (0: rank-2 Views), M and N, and the expected number
/// of segments of a random pattern.
struct SparseCase {
  int batch, m, n;
  int segments;
};

/// Runs `reduction` on MixedFormula (or StagedMixedFormula) with `ranges` over both axes, every
/// summation mode and every kernel of sparse_implementations(), against the reference
/// restricted to the pairs `pattern` (the same pattern on the host) keeps: check_reduction over
/// a BlockSparse pattern, with data seeded by the extents.
template <class Space, class T, class Reduction, class Formula = MixedFormula>
void check_sparse(const Reduction& reduction, const SparseCase& s,
                  const tessera::BlockSparseRanges<typename Space::memory_space>& ranges,
                  const HostPattern& pattern, const std::string& what) {
  using Ranges        = tessera::BlockSparseRanges<typename Space::memory_space>;
  const unsigned seed = static_cast<unsigned>(1000 + s.m + s.n);
  check_reduction<Space, T, Reduction, Formula>(
      reduction, {{s.batch, s.m, s.n, seed}},
      BlockSparse<Ranges>{ranges, [&pattern](int i, int j) { return pattern.keeps(i, j); },
                          sparse_implementations<Space>(), what});
}

/// check_sparse with the device copy of a host pattern.
template <class Space, class T, class Reduction, class Formula = MixedFormula>
void check_sparse(const Reduction& reduction, const SparseCase& s, const HostPattern& pattern,
                  const std::string& what) {
  check_sparse<Space, T, Reduction, Formula>(reduction, s, pattern.to_device<Space>(), pattern,
                                             what);
}

}  // namespace tessera_test
