// The typed suite GenredSchemes: how genred cuts and accumulates the work (genred/options.hpp)
// must not change what it computes beyond what each option documents:
//  (a) summation modes: on adversarial data direct float sums drift, block sums much less, Kahan
//      sums not at all;
//  (b) exact ties are broken by the smallest index whatever the scheme, chunks, tile and team;
//  (c) LayoutLeft, LayoutRight and LayoutStride inputs and outputs give identical results;
//  (d) empty reduced ranges give the documented values of reductions.hpp (and NaN is never
//      selected);
//  (e) a large k whose per-thread buffers go to scratch level 1;
//  (f) tile_j values that do not divide the reduced extent.
// (a), (b), (e) and (f) are tested in test_genred_schemes.cpp, (c) in
// test_genred_schemes_layouts.cpp, (d) in test_genred_schemes_special_values.cpp: translation
// units that compile in parallel. This header holds the fixture and the pieces they share.
#pragma once

#include "genred/genred_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

TESSERA_TYPED_SUITE(GenredSchemes);

namespace tessera_test::schemes {

using tessera::Dims;
using tessera::In;
using tessera::Out;
using tessera::Scheme;
using tessera::Summation;
using tessera_test::MixedFormula;

/// F = x0 y0.
struct Product {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<1>;
  using j_dims                 = Dims<1>;
  static constexpr int out_dim = 1;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 1> x, In<T, 1> y, Out<T, 1> out) const {
    out[0] = x[0] * y[0];
  }
};

/// count integers uniform in [0, hi], as doubles.
inline std::vector<double> random_integers(std::size_t count, int hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(0, hi);
  std::vector<double> v(count);
  for (auto& e : v)
    e = dist(gen);
  return v;
}

/// The output argument of a reduction from a values and an indices View.
template <class Reduction, class Values, class Indices>
auto output_of(const Values& values, const Indices& indices) {
  using Facts = tessera::Impl::ReductionFacts<Reduction>;
  if constexpr (Facts::writes_values && Facts::writes_indices) {
    return tessera::outputs(values, indices);
  } else if constexpr (Facts::writes_values) {
    return values;
  } else {
    return indices;
  }
}

/// Counts entries that differ (exactly) and reports the first.
template <class A, class B>
void expect_identical(const std::vector<A>& got, const std::vector<B>& want,
                      const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  std::size_t wrong = 0;
  for (std::size_t e = 0; e < got.size(); ++e) {
    if (!(static_cast<double>(got[e]) == static_cast<double>(want[e]))) {
      if (wrong++ == 0) {
        ADD_FAILURE() << where << ": entry " << e << " is " << got[e] << ", expected " << want[e];
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << where << ": entries that differ";
}

}  // namespace tessera_test::schemes
