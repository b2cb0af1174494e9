// The execution spaces the typed tests run on: the default one (Cuda in a CUDA build) and the
// default host one when it differs, so that the portable path is tested on both.
#pragma once

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <type_traits>

namespace tessera_test {

using ExecutionSpaces = std::conditional_t<
    std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>,
    ::testing::Types<Kokkos::DefaultExecutionSpace>,
    ::testing::Types<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>>;

}  // namespace tessera_test
