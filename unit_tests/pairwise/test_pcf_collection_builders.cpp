// PcfCollection built from what users hold: host lists of (t, v) rows, host lists of times and
// values, and the two .npy files np.save writes (read_pcf_collection_npy). Each gives exactly the
// hand-made collection; each bad input throws std::invalid_argument naming the argument.
#include <tessera/pairwise/pairwise.hpp>
#include <tessera/pairwise/pcf_collection_npy.hpp>

#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tessera_test::expect_rejected;

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

using Rows = std::vector<std::vector<std::array<double, 2>>>;

/// Three functions of 2, 1 and 4 breakpoints (the second ends at a non-zero value, which only a
/// call with an infinite end rejects).
const Rows rows = {{{0, 1}, {2, 0}}, {{1, 3}}, {{0.5, 2}, {1, -1}, {4, 0.25}, {7, 0}}};

/// The same functions written out by hand: offsets and (t, v) rows.
template <class T>
tessera::PcfCollection<T> hand_made() {
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets("offsets", 4);
  Kokkos::View<T* [2], Kokkos::LayoutRight, Kokkos::HostSpace> bp("bp", 7);
  const std::size_t off[4] = {0, 2, 3, 7};
  const double table[7][2] = {{0, 1}, {2, 0}, {1, 3}, {0.5, 2}, {1, -1}, {4, 0.25}, {7, 0}};
  for (int f = 0; f < 4; ++f)
    offsets(f) = off[f];
  for (int k = 0; k < 7; ++k) {
    bp(k, 0) = T(table[k][0]);
    bp(k, 1) = T(table[k][1]);
  }
  return {offsets, bp};
}

/// Expects two collections (a in any memory space) to hold the same offsets and breakpoints.
template <class T, class MemorySpace>
void expect_same(const tessera::PcfCollection<T, MemorySpace>& a,
                 const tessera::PcfCollection<T>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, a.offsets());
  const auto bp  = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, a.breakpoints());
  ASSERT_EQ(off.extent(0), b.offsets().extent(0)) << what;
  ASSERT_EQ(bp.extent(0), b.breakpoints().extent(0)) << what;
  for (std::size_t f = 0; f < off.extent(0); ++f)
    ASSERT_EQ(off(f), b.offsets()(f)) << what << ", offset " << f;
  for (std::size_t k = 0; k < bp.extent(0); ++k) {
    ASSERT_EQ(bp(k, 0), b.breakpoints()(k, 0)) << what << ", t of breakpoint " << k;
    ASSERT_EQ(bp(k, 1), b.breakpoints()(k, 1)) << what << ", v of breakpoint " << k;
  }
}

TEST(PcfCollectionBuilders, ListsGiveTheHandMadeCollection) {
  using Device = Kokkos::DefaultExecutionSpace::memory_space;
  expect_same(tessera::PcfCollection<double>(rows), hand_made<double>(), "rows");
  std::vector<std::vector<double>> times, values;
  for (const auto& f : rows) {
    times.emplace_back();
    values.emplace_back();
    for (const auto& p : f) {
      times.back().push_back(p[0]);
      values.back().push_back(p[1]);
    }
  }
  expect_same(tessera::PcfCollection<double>(times, values), hand_made<double>(),
              "times and values");
  expect_same(tessera::PcfCollection<double, Device>(rows), hand_made<double>(),
              "rows in the default execution space's memory");
  const tessera::PcfCollection<float> f(
      {{{0, 1}, {2, 0}}, {{1, 3}}, {{0.5, 2}, {1, -1}, {4, 0.25}, {7, 0}}});
  expect_same(f, hand_made<float>(), "float rows");
  // A collection in another memory space type than HostSpace takes the copying path everywhere.
  using HostDevice = Kokkos::Device<Kokkos::DefaultHostExecutionSpace, Kokkos::HostSpace>;
  expect_same(tessera::PcfCollection<double, HostDevice>(times, values), hand_made<double>(),
              "times and values copied to Device<host, HostSpace>");
  // Two functions in braces: the rows, not a list of times and one of values.
  const tessera::PcfCollection<double> two{{{0, 1}, {2, 0}}, {{1, 3}}};
  const tessera::PcfCollection<double> two_too({{{0, 1}, {2, 0}}, {{1, 3}}});
  for (const auto& c : {two, two_too}) {
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c.offsets()(1), 2u);
    EXPECT_EQ(c.breakpoints()(2, 0), 1.0);
    EXPECT_EQ(c.breakpoints()(2, 1), 3.0);
  }
  EXPECT_EQ(tessera::PcfCollection<double>(Rows{}).size(), 0u);
  EXPECT_EQ(tessera::PcfCollection<double>(Rows{}).offsets().extent(0), 1u);
  // The collection is one pdist takes; the non-zero tail of function 1 needs a finite end.
  Kokkos::View<double*, Kokkos::HostSpace> d("d", 3), ref("ref", 3);
  tessera::PairwiseOptions options;
  options.end_time = 10;
  tessera::pdist(tessera::PcfCollection<double>(rows), d, options);
  tessera::pdist(hand_made<double>(), ref, options);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(d(k), ref(k)) << k;
  expect_rejected<std::invalid_argument>(
      [&] { tessera::pdist(tessera::PcfCollection<double>(rows), d); },
      {"tessera::pdist", "X function 1", "ends at a non-zero value"});
}

TEST(PcfCollectionBuilders, BadListsAreRejectedNamingTheArgument) {
  using Lists = std::vector<std::vector<double>>;
  expect_rejected<std::invalid_argument>(
      [] {
        tessera::PcfCollection<double>(Lists{{0, 1}, {2}}, Lists{{1, 0}});
      },
      {"tessera::PcfCollection: times holds 2 functions and values 1"});
  expect_rejected<std::invalid_argument>(
      [] {
        tessera::PcfCollection<double>(Lists{{0, 1}, {2, 3, 4}}, Lists{{1, 0}, {5, 0}});
      },
      {"tessera::PcfCollection: times[1] has 3 entries and values[1] 2"});
  expect_rejected<std::invalid_argument>(
      [] {
        tessera::PcfCollection<double>(Lists{{0, 1}, {3, 2}}, Lists{{1, 0}, {5, 0}});
      },
      {"tessera::PcfCollection: times and values function 1", "do not increase strictly"});
  struct Case {
    Rows functions;
    int bad;             // the first bad function
    std::string defect;  // what the message says of it
  };
  const Case cases[] = {
      {{{{0, 1}, {0, 0}}}, 0, "has times that do not increase strictly"},
      {{{{0, 1}}, {{nan, 1}}}, 1, "has a NaN or infinite time"},
      {{{{0, 1}}, {{1, inf}}}, 1, "has a NaN or infinite value"},
      {{{{0, nan}}}, 0, "has a NaN or infinite value"},
      {{{{0, 1}}, {}, {{2, 0}}}, 1, "has no breakpoints"},
  };
  for (const Case& c : cases) {
    expect_rejected<std::invalid_argument>(
        [&] { tessera::PcfCollection<double>{c.functions}; },
        {"tessera::PcfCollection: functions function " + std::to_string(c.bad) + " (", c.defect});
  }
}

/// Writes a .npy file as np.save does: magic, version, header length, the dictionary padded
/// with spaces and a newline to a multiple of 64 bytes, then `data`.
void write_npy(const std::string& path, const std::string& descr, const std::string& shape,
               const std::string& data, const std::string& fortran = "False", int version = 1) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
  const std::size_t prefix = version == 1 ? 10 : 12;
  dict.append((64 - (prefix + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string file("\x93NUMPY", 6);
  file += char(version);
  file += char(0);
  for (std::size_t b = 0; b < prefix - 8; ++b)
    file += char((dict.size() >> (8 * b)) & 0xff);
  file += dict + data;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(file.data(), 1, file.size(), f), file.size());
  std::fclose(f);
}

/// The bytes of values of type V.
template <class V>
std::string bytes(const std::vector<V>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(V));
}

/// hand_made()'s offsets and breakpoints as numpy arrays of the given element types.
template <class Offset>
std::string offsets_bytes() {
  return bytes(std::vector<Offset>{0, 2, 3, 7});
}
template <class Value>
std::string points_bytes() {
  return bytes(std::vector<Value>{0, 1, 2, 0, 1, 3, Value(0.5), 2, 1, -1, 4, Value(0.25), 7, 0});
}

struct NpyFiles : ::testing::Test {
  const std::string dir = ::testing::TempDir();
  const std::string off = dir + "tessera_pcf_offsets.npy";
  const std::string bp  = dir + "tessera_pcf_breakpoints.npy";
  void TearDown() override {
    std::remove(off.c_str());
    std::remove(bp.c_str());
  }
};

TEST_F(NpyFiles, EveryIntegerAndFloatDtypeGivesTheHandMadeCollection) {
  using Device = Kokkos::DefaultExecutionSpace::memory_space;
  write_npy(bp, "<f8", "(7, 2)", points_bytes<double>());
  write_npy(off, "<i8", "(4,)", offsets_bytes<std::int64_t>());
  expect_same(tessera::read_pcf_collection_npy<double>(off, bp), hand_made<double>(), "<i8, <f8");
  expect_same(tessera::read_pcf_collection_npy<float>(off, bp), hand_made<float>(), "<f8 as float");
  expect_same(tessera::read_pcf_collection_npy<double, Device>(off, bp), hand_made<double>(),
              "in the default execution space's memory");
  write_npy(off, "<i4", "(4,)", offsets_bytes<std::int32_t>());
  expect_same(tessera::read_pcf_collection_npy<double>(off, bp), hand_made<double>(), "<i4");
  write_npy(off, "<u8", "(4,)", offsets_bytes<std::uint64_t>());
  expect_same(tessera::read_pcf_collection_npy<double>(off, bp), hand_made<double>(), "<u8");
  write_npy(off, "<u4", "(4,)", offsets_bytes<std::uint32_t>());
  expect_same(tessera::read_pcf_collection_npy<double>(off, bp), hand_made<double>(), "<u4");
  write_npy(off, "|u1", "(4,)", offsets_bytes<std::uint8_t>());
  expect_same(tessera::read_pcf_collection_npy<double>(off, bp), hand_made<double>(), "|u1");
  write_npy(off, "<i2", "(4,)", offsets_bytes<std::int16_t>(), "False", 2);  // version 2.0
  write_npy(bp, "<f4", "(7, 2)", points_bytes<float>(), "False", 3);         // version 3.0
  expect_same(tessera::read_pcf_collection_npy<float>(off, bp), hand_made<float>(),
              "<i2 and <f4, versions 2.0 and 3.0");
  expect_same(tessera::read_pcf_collection_npy<double>(off, bp), hand_made<double>(),
              "<f4 as double");
  // No functions: one offset, no breakpoints.
  write_npy(off, "<i8", "(1,)", bytes(std::vector<std::int64_t>{0}));
  write_npy(bp, "<f8", "(0, 2)", "");
  EXPECT_EQ(tessera::read_pcf_collection_npy<double>(off, bp).size(), 0u);
}

TEST_F(NpyFiles, BadFilesAreRejectedNamingThePathAndTheDefect) {
  const std::string caller  = "tessera::read_pcf_collection_npy: ";
  const std::string offsets = caller + "offsets_path '" + off + "' ";
  const std::string points  = caller + "breakpoints_path '" + bp + "' ";
  auto rejected             = [&](const std::string& what) {
    expect_rejected<std::invalid_argument>(
        [&] { tessera::read_pcf_collection_npy<double>(off, bp); }, {what});
  };
  const std::string good_points  = points_bytes<double>();
  const std::string good_offsets = offsets_bytes<std::int64_t>();
  rejected(offsets + "cannot be opened (No such file or directory)");
  write_npy(off, "<i8", "(4,)", good_offsets);
  rejected(points + "cannot be opened (No such file or directory)");

  // The header.
  write_npy(bp, "<f8", "(7, 2)", good_points);
  write_npy(off, "<i8", "(4,)", good_offsets, "False", 4);
  rejected(offsets + "has .npy format version 4.0 (expected 1.0, 2.0 or 3.0)");
  {
    std::FILE* f = std::fopen(off.c_str(), "wb");
    std::fputs("NUMPY not really", f);
    std::fclose(f);
  }
  rejected(offsets + "is not a .npy file");
  write_npy(off, "<i8", "(4,)", good_offsets);
  {
    std::FILE* f = std::fopen(bp.c_str(), "wb");
    std::fwrite("\x93NUMPY\x01\x00\x76\x00{'descr'", 1, 18, f);  // 118 header bytes promised
    std::fclose(f);
  }
  rejected(points + "has a truncated header");

  // The dtypes.
  write_npy(off, "<f8", "(4,)", bytes(std::vector<double>{0, 2, 3, 7}));
  rejected(offsets + "holds '<f8' values (expected integers");
  write_npy(off, "<i8", "(4,)", good_offsets);
  write_npy(bp, "<i8", "(7, 2)", bytes(std::vector<std::int64_t>(14)));
  rejected(points + "holds '<i8' values (expected floating point: '<f4' or '<f8')");
  write_npy(bp, ">f8", "(7, 2)", good_points);
  rejected(points + "holds big-endian '>f8' values");
  write_npy(bp, "<f2", "(7, 2)", std::string(28, '\0'));
  rejected(points + "holds '<f2' values, which are not float32, float64 or integers");
  write_npy(bp, "<c16", "(7, 2)", good_points + good_points);
  rejected(points + "holds '<c16' values");

  // Order and shapes.
  write_npy(bp, "<f8", "(7, 2)", good_points, "True");
  rejected(points + "is in Fortran order");
  write_npy(bp, "<f8", "(14,)", good_points);
  rejected(points + "has shape (14,) (expected (K, 2)");
  write_npy(bp, "<f8", "(2, 7)", good_points);
  rejected(points + "has shape (2, 7) (expected (K, 2)");
  write_npy(bp, "<f8", "(7, 2)", good_points);
  write_npy(off, "<i8", "(2, 2)", good_offsets);
  rejected(offsets + "has shape (2, 2) (expected (n + 1,)");
  write_npy(off, "<i8", "(0,)", "");
  rejected(offsets + "has shape (0,) (expected (n + 1,)");

  // The data.
  write_npy(off, "<i8", "(4,)", good_offsets);
  write_npy(bp, "<f8", "(7, 2)", good_points.substr(0, good_points.size() - 3));
  rejected(points + "is truncated: its shape needs 112 bytes of data, it has 109");
  write_npy(bp, "<f8", "(7, 2)", good_points + "x");
  rejected(points +
           "is longer than its header says: its shape needs 112 bytes of data, it has 113");
  write_npy(bp, "<f8", "(7, 2)", good_points);
  write_npy(off, "<i8", "(4,)", bytes(std::vector<std::int64_t>{0, 2, -3, 7}));
  rejected(offsets + "holds a negative value at index 2 (-3)");

  // The offsets against the breakpoints, checked as every collection is.
  const std::string pcfs = caller + "the PCFs of '" + off + "' and '" + bp + "' ";
  write_npy(off, "<i8", "(4,)", bytes(std::vector<std::int64_t>{1, 2, 3, 7}));
  rejected(pcfs + "offsets run from 1 to 7 (expected 0 to 7, the number of breakpoints)");
  write_npy(off, "<i8", "(4,)", bytes(std::vector<std::int64_t>{0, 2, 3, 6}));
  rejected(pcfs + "offsets run from 0 to 6 (expected 0 to 7");
  write_npy(off, "<i8", "(4,)", bytes(std::vector<std::int64_t>{0, 2, 1, 7}));  // decreasing
  expect_rejected<std::invalid_argument>([&] { tessera::read_pcf_collection_npy<double>(off, bp); },
                                         {pcfs + "function 1 (breakpoints 2 to 1,",
                                          "has no breakpoints (offsets must increase strictly)"});
  // The breakpoints.
  write_npy(off, "<i8", "(4,)", good_offsets);
  write_npy(bp, "<f8", "(7, 2)",
            bytes(std::vector<double>{0, 1, 2, 0, 1, 3, 0.5, 2, 1, -1, 0.75, 0.25, 7, 0}));
  expect_rejected<std::invalid_argument>(
      [&] { tessera::read_pcf_collection_npy<double>(off, bp); },
      {pcfs + "function 2 (breakpoints 3 to 7,", "has times that do not increase strictly"});
  write_npy(bp, "<f8", "(7, 2)",
            bytes(std::vector<double>{0, 1, 2, nan, 1, 3, 0.5, 2, 1, -1, 4, 0.25, 7, 0}));
  expect_rejected<std::invalid_argument>(
      [&] { tessera::read_pcf_collection_npy<double>(off, bp); },
      {pcfs + "function 0 (breakpoints 0 to 2,", "has a NaN or infinite value"});
}

}  // namespace
