// The .npy writer and read_npy: NumPy's version-1.0 header byte for byte, round trips of float
// and double arrays of several shapes written out of order, and read_npy's errors (those of
// Impl::NpyReader, with caller "read_npy" and argument "path", plus its exact-dtype rule).
#include <tessera/pairwise/npy_file.hpp>

#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
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
  expect_rejected<std::invalid_argument>([] { tessera::read_npy<float>(temp_path("missing")); },
                                         {"tessera::read_npy: path '", "cannot be opened"});
  const std::string path = temp_path("errors");
  {
    tessera::Impl::NpyFileWriter<double> w(path, {4});
    w.close();
  }
  expect_rejected<std::invalid_argument>([&] { tessera::read_npy<float>(path); },
                                         {"holds '<f8' values (expected '<f4'"});
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << tessera::Impl::npy_header("<f8", {4}) << std::string(3 * sizeof(double), '\0');
  }
  expect_rejected<std::invalid_argument>(
      [&] { tessera::read_npy<double>(path); },
      {"is truncated: its shape needs 32 bytes of data, it has 24"});
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "not an npy file at all";
  }
  expect_rejected<std::invalid_argument>([&] { tessera::read_npy<double>(path); },
                                         {"is not a .npy file"});
  std::remove(path.c_str());
  expect_rejected<std::runtime_error>(
      [] { tessera::Impl::NpyFileWriter<float> w("/nonexistent-dir/x.npy", {2}); },
      {"cannot create", "/nonexistent-dir/x.npy"});
}

/// Python's tuple syntax for non-negative integers: (), (a,), (a, ), (a, b), (a, b, ) ...
bool is_python_int_tuple(const std::string& s) {
  static const std::regex tuple(R"(\( *\)|\( *\d+ *, *\)|\( *\d+( *, *\d+)+ *,? *\))");
  return std::regex_match(s, tuple);
}

/// The header's length field (bytes 8 and 9, little-endian).
std::size_t header_length_field(const std::string& h) {
  return std::size_t(std::uint8_t(h[8])) | std::size_t(std::uint8_t(h[9])) << 8;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

TEST(NpyFile, HeaderDictionaryOfScalarsVectorsAndMatrices) {
  struct Case {
    std::vector<std::size_t> shape;
    const char* tuple;
  };
  const Case cases[] = {{{}, "()"},
                        {{5}, "(5, )"},
                        {{3, 4}, "(3, 4)"},
                        {{0}, "(0, )"},
                        {{7, 1, 13}, "(7, 1, 13)"},
                        {{2, 3, 1, 4}, "(2, 3, 1, 4)"},
                        {{123456789012}, "(123456789012, )"}};
  for (const char* descr : {"<f4", "<f8"}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(descr) + " " + c.tuple);
      EXPECT_TRUE(is_python_int_tuple(c.tuple));
      const std::string h    = tessera::Impl::npy_header(descr, c.shape);
      const std::string dict = std::string("{'descr': '") + descr +
                               "', 'fortran_order': False, 'shape': " + c.tuple + ", }";
      ASSERT_EQ(h.size() % 64, 0u);
      ASSERT_GE(h.size(), 10 + dict.size() + 1);
      EXPECT_EQ(h.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      EXPECT_EQ(header_length_field(h), h.size() - 10);
      // Exactly: the dictionary, spaces (fewer than 64) and one newline.
      const std::size_t pad = h.size() - 10 - dict.size() - 1;
      EXPECT_LT(pad, 64u);
      EXPECT_EQ(h.substr(10), dict + std::string(pad, ' ') + "\n");
    }
  }
  // The tuple checker itself: Python rejects these.
  EXPECT_FALSE(is_python_int_tuple("(5)"));
  EXPECT_FALSE(is_python_int_tuple("(,)"));
  EXPECT_FALSE(is_python_int_tuple("(3, 4"));
  EXPECT_FALSE(is_python_int_tuple("(3,, 4)"));
}

TEST(NpyFile, HeaderIsPaddedTo64BytesForEveryLength) {
  // Dictionary lengths cover every residue modulo 64: ranks 0 to 6, extents of 1 to 20 digits.
  std::size_t residues_seen = 0;
  std::vector<bool> seen(64, false);
  for (std::size_t rank = 0; rank <= 6; ++rank) {
    std::size_t extent = 1;
    for (int digits = 1; digits <= 20; ++digits, extent = extent * 10 + (digits % 7)) {
      const std::vector<std::size_t> shape(rank, extent);
      const std::string h = tessera::Impl::npy_header("<f4", shape);
      ASSERT_EQ(h.size() % 64, 0u) << "rank " << rank << ", extent " << extent;
      ASSERT_EQ(h.back(), '\n');
      ASSERT_EQ(header_length_field(h), h.size() - 10);
      const std::size_t close = h.rfind('}');
      ASSERT_NE(close, std::string::npos);
      ASSERT_EQ(h.find_first_not_of(' ', close + 1), h.size() - 1) << "only spaces after '}'";
      const std::size_t unpadded = close + 2;  // magic .. '}' and the newline
      if (!seen[unpadded % 64]) ++residues_seen;
      seen[unpadded % 64] = true;
      ASSERT_LT(h.size() - unpadded, 64u);
      const std::size_t open = h.find("'shape': ") + 9;
      EXPECT_TRUE(is_python_int_tuple(h.substr(open, h.find(')', open) + 1 - open)))
          << h.substr(open);
      if (rank == 0) break;  // one scalar header
    }
  }
  EXPECT_GT(residues_seen, 32u);  // the sweep did exercise many paddings
}

/// Writes `values` (shape `shape`) with NpyFileWriter in `pieces` pieces, last piece first, then
/// checks read_npy's shape and values bit for bit.
template <class T>
void round_trip_pieces(const std::vector<std::size_t>& shape, const std::vector<T>& values,
                       std::size_t pieces, const std::string& name) {
  const std::string path = temp_path("pieces_" + name);
  {
    tessera::Impl::NpyFileWriter<T> w(path, shape);
    const std::size_t n = values.size(), step = (n + pieces - 1) / std::max<std::size_t>(pieces, 1);
    for (std::size_t end = n; end > 0;) {
      const std::size_t begin = end > step ? end - step : 0;
      ASSERT_TRUE(w.write(values.data() + begin, begin, end - begin));
      end = begin;
    }
    w.close();
  }
  const auto a = tessera::read_npy<T>(path);
  EXPECT_EQ(a.shape, shape);
  ASSERT_EQ(a.values.extent(0), values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    ASSERT_EQ(std::memcmp(&a.values(k), &values[k], sizeof(T)), 0)
        << name << ": value " << k << " reads " << a.values(k) << ", wrote " << values[k];
  }
  EXPECT_EQ(read_bytes(path).size(),
            tessera::Impl::npy_header(tessera::Impl::npy_descr<T>(), shape).size() +
                values.size() * sizeof(T));
  std::remove(path.c_str());
}

template <class T>
std::vector<T> sample_values(std::size_t n) {
  using L                      = std::numeric_limits<T>;
  const std::vector<T> special = {T(-0.0),         L::quiet_NaN(), L::infinity(), -L::infinity(),
                                  L::denorm_min(), L::max(),       L::lowest(),   L::epsilon()};
  std::vector<T> v(n);
  for (std::size_t k = 0; k < n; ++k)
    v[k] = k < special.size() ? special[k] : T(1) / T(k + 3) - T(k % 5);
  return v;
}

template <class T>
void round_trip_shapes() {
  const std::string t = sizeof(T) == 4 ? "f4_" : "f8_";
  round_trip_pieces<T>({}, sample_values<T>(1), 1, t + "scalar");
  round_trip_pieces<T>({1}, sample_values<T>(1), 1, t + "one");
  round_trip_pieces<T>({13}, sample_values<T>(13), 3, t + "thirteen");
  round_trip_pieces<T>({97}, sample_values<T>(97), 97, t + "ninety_seven_singly");
  round_trip_pieces<T>({3, 5, 7}, sample_values<T>(105), 4, t + "three_five_seven");
  round_trip_pieces<T>({1, 1}, sample_values<T>(1), 1, t + "one_by_one");
  round_trip_pieces<T>({11, 0, 3}, sample_values<T>(0), 1, t + "empty");
}

TEST(NpyFile, RoundTripsSpecialValuesAndOddShapesOfFloat) {
  round_trip_shapes<float>();
}

TEST(NpyFile, RoundTripsSpecialValuesAndOddShapesOfDouble) {
  round_trip_shapes<double>();
}

TEST(NpyFile, UnwrittenValuesReadZeroAndReopeningTruncates) {
  const std::string path = temp_path("sparse");
  {
    // An older, larger file of non-zero values at the same path must not show through.
    tessera::Impl::NpyFileWriter<double> old(path, {30});
    const std::vector<double> ones(30, 1.0);
    ASSERT_TRUE(old.write(ones.data(), 0, 30));
    old.close();
  }
  {
    tessera::Impl::NpyFileWriter<double> w(path, {4, 5});
    const double mid[] = {1.5, -2.5, 3.5};
    ASSERT_TRUE(w.write(mid, 7, 3));  // values 7, 8, 9 only
    w.close();
  }
  const auto a = tessera::read_npy<double>(path);
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{4, 5}));
  ASSERT_EQ(a.values.extent(0), 20u);
  for (std::size_t k = 0; k < 20; ++k) {
    const double expected = k == 7 ? 1.5 : k == 8 ? -2.5 : k == 9 ? 3.5 : 0.0;
    EXPECT_EQ(a.values(k), expected) << "value " << k;
  }
  // A smaller array at the same path replaces the file (O_TRUNC), not just its start.
  {
    tessera::Impl::NpyFileWriter<float> w(path, {3});
    const float v[] = {9, 8, 7};
    ASSERT_TRUE(w.write(v, 0, 3));
    w.close();
  }
  const auto b = tessera::read_npy<float>(path);
  ASSERT_EQ(b.shape, std::vector<std::size_t>{3});
  ASSERT_EQ(b.values.extent(0), 3u);
  EXPECT_EQ(b.values(0), 9.0f);
  EXPECT_EQ(b.values(2), 7.0f);
  EXPECT_EQ(read_bytes(path).size(), tessera::Impl::npy_header("<f4", {3}).size() + 12);
  std::remove(path.c_str());
}

TEST(NpyFile, ReaderRejectsBadMagicVersionOrderDtypeAndTruncation) {
  using tessera_test::expect_rejected;
  const std::string path = temp_path("bad_files");
  const std::string good = tessera::Impl::npy_header("<f8", {2, 3}) + std::string(48, '\0');
  auto rejected          = [&](const std::string& bytes, const std::string& message) {
    write_bytes(path, bytes);
    expect_rejected<std::invalid_argument>([&] { tessera::read_npy<double>(path); },
                                           {"tessera::read_npy: path '" + path + "'", message});
  };
  write_bytes(path, good);
  EXPECT_EQ(tessera::read_npy<double>(path).values.extent(0), 6u);  // the base file is fine

  rejected("", "is not a .npy file");
  rejected(good.substr(0, 7), "is not a .npy file");
  rejected(good.substr(0, 9), "has a truncated header");
  std::string bytes = good;
  bytes[1]          = 'X';  // \x93XUMPY
  rejected(bytes, "is not a .npy file");
  bytes    = good;
  bytes[0] = 'N';
  rejected(bytes, "is not a .npy file");
  bytes    = good;
  bytes[6] = 4;  // version 4.0 does not exist
  rejected(bytes, "has .npy format version 4.0 (expected 1.0, 2.0 or 3.0)");
  bytes    = good;
  bytes[6] = 0;
  rejected(bytes, "has .npy format version 0.0");
  bytes    = good;
  bytes[7] = 1;
  rejected(bytes, "has .npy format version 1.1");
  // The header's length field promises more than the file holds.
  rejected(good.substr(0, 40), "has a truncated header");
  // The good file with `from` replaced by `to` (of the same length: the header keeps its size).
  auto with = [&](const std::string& from, const std::string& to) {
    std::string b = good;
    return b.replace(b.find(from), from.size(), to);
  };
  // Another dtype: float, an integer, or big-endian double; Fortran order; no shape.
  rejected(with("<f8", "<f4"), "holds '<f4' values (expected '<f8'");
  rejected(with("<f8", "<i8"), "holds '<i8' values (expected '<f8'");
  rejected(with("<f8", ">f8"), "holds big-endian '>f8' values");
  rejected(with("<f8", "<c8"), "holds '<c8' values, which are not float32, float64");
  rejected(with("False", "True "), "is in Fortran order");
  rejected(with("False", "Fals "), "has a malformed header (fortran_order)");
  rejected(with("'shape'", "'shapf'"), "has a malformed header (no 'shape')");
  rejected(with("'descr'", "'descx'"), "has a malformed header (no 'descr')");
  rejected(with("(2, 3)", "[2, 3]"), "has a malformed header (shape is not a tuple)");
  rejected(with("(2, 3), }", "(2, 3 , }"), "has a malformed header (shape)");  // no ')'
  // One value short, no data at all, and one byte too many.
  rejected(good.substr(0, good.size() - 1),
           "is truncated: its shape needs 48 bytes of data, it has 47");
  rejected(good.substr(0, good.size() - 48),
           "is truncated: its shape needs 48 bytes of data, it has 0");
  rejected(good + '\0',
           "is longer than its header says: its shape needs 48 bytes of data, it has 49");
  std::remove(path.c_str());

  // A float file read as double and a double file read as float.
  {
    tessera::Impl::NpyFileWriter<float> w(path, {5});
    w.close();
  }
  expect_rejected<std::invalid_argument>([&] { tessera::read_npy<double>(path); },
                                         {"holds '<f4' values (expected '<f8'"});
  EXPECT_EQ(tessera::read_npy<float>(path).values.extent(0), 5u);
  std::remove(path.c_str());
  expect_rejected<std::invalid_argument>(
      [&] { tessera::read_npy<float>(path); },
      {"tessera::read_npy: path '" + path + "' cannot be opened"});
}

// np.save writes version 2.0 (a 4-byte header length) when the header exceeds 65535 bytes, and
// 3.0 for a UTF-8 header: read_npy reads both.
TEST(NpyFile, ReaderReadsVersionsTwoAndThree) {
  const std::string path = temp_path("version_2_3");
  const std::string v1   = tessera::Impl::npy_header("<f8", {3});
  const std::string dict = v1.substr(10);
  const double values[]  = {1.5, -0.25, 7.0};
  const std::string data(reinterpret_cast<const char*>(values), sizeof(values));
  for (char version : {'\x02', '\x03'}) {
    std::string header("\x93NUMPY", 6);
    header += version;
    header += '\0';
    for (int b = 0; b < 4; ++b)
      header += static_cast<char>((dict.size() >> (8 * b)) & 0xff);
    write_bytes(path, header + dict + data);
    const auto a = tessera::read_npy<double>(path);
    ASSERT_EQ(a.shape, std::vector<std::size_t>{3}) << "version " << int(version);
    ASSERT_EQ(a.values.extent(0), 3u);
    for (std::size_t k = 0; k < 3; ++k)
      EXPECT_EQ(a.values(k), values[k]) << "version " << int(version) << ", value " << k;
  }
  std::remove(path.c_str());
}

// A shape whose product overflows (it would wrap to an empty array) is rejected.
/// Open file descriptors of this process below 4096.
int open_descriptors() {
  int count = 0;
  for (int fd = 0; fd < 4096; ++fd)
    count += ::fcntl(fd, F_GETFD) != -1;
  return count;
}

TEST(NpyFile, FailedWriterClosesItsFile) {
  // /dev/full opens but refuses every write: the constructor fails after open().
  const int before = open_descriptors();
  for (int k = 0; k < 3; ++k) {
    tessera_test::expect_rejected<std::runtime_error>(
        [] { tessera::Impl::NpyFileWriter<float> w("/dev/full", {4}); }, {"'/dev/full'"});
  }
  EXPECT_EQ(open_descriptors(), before);
}

TEST(NpyFile, ReaderRejectsAShapeWhoseSizeOverflows) {
  const std::string path = temp_path("overflow");
  // Each extent fits in std::size_t; their product does not (it would wrap to 0).
  for (const std::vector<std::size_t>& shape :
       {std::vector<std::size_t>{std::size_t(1) << 62, 4},
        std::vector<std::size_t>{std::size_t(1) << 32, std::size_t(1) << 32}}) {
    write_bytes(path, tessera::Impl::npy_header("<f8", shape));
    tessera_test::expect_rejected<std::length_error>(
        [&] { tessera::read_npy<double>(path); },
        {"tessera::read_npy: path '" + path + "' has a shape too large to hold in memory"});
  }
  // An extent of more digits than std::size_t holds.
  std::string bytes = tessera::Impl::npy_header("<f8", {12345678901234567890u});
  bytes.replace(bytes.find("12345678901234567890"), 20, "99999999999999999999");
  write_bytes(path, bytes);
  tessera_test::expect_rejected<std::length_error>([&] { tessera::read_npy<double>(path); },
                                                   {"has a shape too large to hold in memory"});
  std::remove(path.c_str());
}

// A non-numeric extent is rejected with read_npy's name and the file's.
TEST(NpyFile, ReaderRejectsAMalformedShapeWithItsOwnMessage) {
  const std::string path = temp_path("malformed_shape");
  std::string bytes      = tessera::Impl::npy_header("<f8", {2, 3}) + std::string(48, '\0');
  bytes.replace(bytes.find("(2, 3)"), 6, "(x, 3)");
  write_bytes(path, bytes);
  tessera_test::expect_rejected<std::invalid_argument>(
      [&] { tessera::read_npy<double>(path); },
      {"tessera::read_npy: path '" + path + "' has a malformed header (shape)"});
  std::remove(path.c_str());
}

}  // namespace
