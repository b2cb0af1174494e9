// version() and print_configuration(): the version string matches the TESSERA_VERSION_* macros,
// and the configuration report names every enabled execution space, the default one, and
// whether Tessera's CUDA kernels are compiled in (as config.hpp says).
#include <tessera/core/config.hpp>
#include <tessera/core/version.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace {

TEST(Version, MatchesTheVersionMacros) {
  const std::string expected = std::to_string(TESSERA_VERSION_MAJOR) + "." +
                               std::to_string(TESSERA_VERSION_MINOR) + "." +
                               std::to_string(TESSERA_VERSION_PATCH);
  EXPECT_EQ(tessera::version(), expected);
  EXPECT_EQ(TESSERA_VERSION,
            TESSERA_VERSION_MAJOR * 10000 + TESSERA_VERSION_MINOR * 100 + TESSERA_VERSION_PATCH);
}

std::string configuration() {
  std::ostringstream os;
  tessera::print_configuration(os);
  return os.str();
}

TEST(Version, ConfigurationNamesTheVersionsAndTheDefaultSpace) {
  const std::string text = configuration();
  EXPECT_NE(text.find("Tessera " + tessera::version()), std::string::npos) << text;
  const std::string kokkos = std::to_string(KOKKOS_VERSION / 10000) + "." +
                             std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                             std::to_string(KOKKOS_VERSION % 100);
  EXPECT_NE(text.find("Kokkos " + kokkos), std::string::npos) << text;
  EXPECT_NE(
      text.find(std::string("default execution space: ") + Kokkos::DefaultExecutionSpace::name()),
      std::string::npos)
      << text;
}

// The list of enabled spaces is one line: "  execution spaces: <name> <name> ...".
std::string enabled_spaces_line(const std::string& text) {
  const std::string key = "execution spaces:";
  const auto begin      = text.find(key);
  if (begin == std::string::npos) return {};
  const auto end = text.find('\n', begin);
  return text.substr(begin + key.size(), end - begin - key.size()) + " ";
}

TEST(Version, ConfigurationListsEveryEnabledSpace) {
  const std::string spaces = enabled_spaces_line(configuration());
  ASSERT_FALSE(spaces.empty()) << configuration();
  EXPECT_NE(spaces.find(std::string(" ") + Kokkos::DefaultExecutionSpace::name() + " "),
            std::string::npos)
      << spaces;
  EXPECT_NE(spaces.find(std::string(" ") + Kokkos::DefaultHostExecutionSpace::name() + " "),
            std::string::npos)
      << spaces;
#ifdef KOKKOS_ENABLE_SERIAL
  EXPECT_NE(spaces.find(" Serial "), std::string::npos) << spaces;
#else
  EXPECT_EQ(spaces.find(" Serial "), std::string::npos) << spaces;
#endif
#ifdef KOKKOS_ENABLE_CUDA
  EXPECT_NE(spaces.find(" Cuda "), std::string::npos) << spaces;
#else
  EXPECT_EQ(spaces.find(" Cuda "), std::string::npos) << spaces;
#endif
}

TEST(Version, ConfigurationSaysWhetherTheCudaKernelsAreCompiledIn) {
  const std::string text = configuration();
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
  EXPECT_NE(text.find("CUDA kernels: compiled in"), std::string::npos) << text;
#else
  EXPECT_NE(text.find("CUDA kernels: not compiled in"), std::string::npos) << text;
#endif
}

}  // namespace
