// The .npy writer and reader: NumPy's version-1.0 header byte for byte, round trips of float and
// double arrays of several shapes written out of order, and the reader's errors.
#include <tessera/pairwise/npy_file.hpp>

#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "tessera_npy_" + name + ".npy";
}

TEST(NpyFile, HeaderIsNumpyVersionOne) {
  const std::string h = tessera::Impl::npy_header("<f4", {3, 4});
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(h.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(std::size_t(std::uint8_t(h[8])) | std::size_t(std::uint8_t(h[9])) << 8, h.size() - 10);
  EXPECT_EQ(h.back(), '\n');
  EXPECT_NE(h.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }"),
            std::string::npos);
  // A 1-D shape needs Python's trailing comma: (5,) is a tuple, (5) is not.
  const std::string one = tessera::Impl::npy_header("<f8", {5});
  EXPECT_NE(one.find("'shape': (5, )"), std::string::npos) << one;
}

template <class T>
void round_trip(const std::vector<std::size_t>& shape) {
  const std::string path =
      temp_path(std::to_string(sizeof(T)) + "_" + std::to_string(shape.size()));
  std::size_t count = 1;
  for (std::size_t e : shape)
    count *= e;
  std::vector<T> values(count);
  for (std::size_t k = 0; k < count; ++k)
    values[k] = T(0.5) * T(k) - T(3);
  {
    tessera::Impl::NpyFileWriter<T> w(path, shape);
    // Back to front in two pieces, as blocks arrive out of order.
    const std::size_t half = count / 2;
    EXPECT_TRUE(w.write(values.data() + half, half, count - half));
    EXPECT_TRUE(w.write(values.data(), 0, half));
    w.close();
  }
  const auto a = tessera::read_npy<T>(path);
  EXPECT_EQ(a.shape, shape);
  ASSERT_EQ(a.values.extent(0), count);
  for (std::size_t k = 0; k < count; ++k)
    ASSERT_EQ(a.values(k), values[k]) << "value " << k;
  std::remove(path.c_str());
}

TEST(NpyFile, RoundTripsFloatAndDouble) {
  round_trip<float>({7});
  round_trip<double>({3, 5});
  round_trip<float>({2, 3, 1, 4});
  round_trip<double>({0});
}

TEST(NpyFile, ReaderRejectsWhatItCannotRead) {
  using tessera_test::expect_rejected;
  expect_rejected<std::runtime_error>([] { tessera::read_npy<float>(temp_path("missing")); },
                                      {"read_npy", "cannot be opened"});
  const std::string path = temp_path("errors");
  {
    tessera::Impl::NpyFileWriter<double> w(path, {4});
    w.close();
  }
  expect_rejected<std::runtime_error>([&] { tessera::read_npy<float>(path); },
                                      {"does not hold <f4"});
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << tessera::Impl::npy_header("<f8", {4}) << std::string(3 * sizeof(double), '\0');
  }
  expect_rejected<std::runtime_error>([&] { tessera::read_npy<double>(path); },
                                      {"shorter than its shape"});
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "not an npy file at all";
  }
  expect_rejected<std::runtime_error>([&] { tessera::read_npy<double>(path); },
                                      {"not a version-1 .npy file"});
  std::remove(path.c_str());
  expect_rejected<std::runtime_error>(
      [] { tessera::Impl::NpyFileWriter<float> w("/nonexistent-dir/x.npy", {2}); },
      {"cannot create", "/nonexistent-dir/x.npy"});
}

}  // namespace
