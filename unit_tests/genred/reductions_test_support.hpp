// The typed suite GenredReductions, whose tests (every reduction of genred/reductions.hpp through
// check_reduction) are split by reduction family over test_reductions_<family>.cpp, so that the
// families compile in parallel.
#pragma once

#include "genred/genred_test_support.hpp"

#include <gtest/gtest.h>

TESSERA_TYPED_SUITE(GenredReductions);

namespace tessera_test {

/// check_reduction of `r` in float and in double.
template <class Space, class Reduction>
void check_both_types(const Reduction& r) {
  check_reduction<Space, float>(r);
  check_reduction<Space, double>(r);
}

}  // namespace tessera_test
