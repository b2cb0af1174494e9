// Reading a NumPy .npy array (format versions 1.0, 2.0 and 3.0, as np.save writes them) into
// host memory, converted to the type the caller needs: float32/float64 ('<f4', '<f8') into a
// floating-point type, signed or unsigned integers of 1 to 8 bytes ('|i1', '<i2', '<i4', '<i8',
// '|u1', '<u2', '<u4', '<u8') into std::size_t (negative values rejected). Every defect (missing
// or unreadable file, bad magic or version, a malformed header, another dtype, data in the other
// byte order than the host's, Fortran order, data shorter or longer than the shape) throws
// std::invalid_argument "tessera::<caller>: <argument> '<path>' <what>"; a shape whose size
// overflows throws std::length_error. Values are read in the host's byte order, '<' on every Kokkos
// target. The one .npy parser of the library: read_npy() and read_pcf_collection_npy() use it.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/pairwise/impl/npy_dtype.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera {
namespace Impl {

/// One open .npy file and the words its errors start with: read_header(), check shape(), then
/// read_into() a host View of the shape's size.
class NpyReader {
 public:
  NpyReader(const std::string& path, const char* caller, const char* argument)
      : path_(path), caller_(caller), argument_(argument), file_(std::fopen(path.c_str(), "rb")) {
    if (!file_) fail("cannot be opened (", std::strerror(errno), ")");
  }
  NpyReader(const NpyReader&)            = delete;
  NpyReader& operator=(const NpyReader&) = delete;
  ~NpyReader() { std::fclose(file_); }

  /// Throws std::invalid_argument "tessera::<caller>: <argument> '<path>' <parts...>".
  template <class... Parts>
  [[noreturn]] void fail(const Parts&... parts) const {
    throw std::invalid_argument(
        concat("tessera::", caller_, ": ", argument_, " '", path_, "' ", parts...));
  }

  /// Reads the header: magic, version, dictionary (descr, fortran_order, shape).
  void read_header() {
    unsigned char pre[12];
    if (std::fread(pre, 1, 8, file_) != 8 || std::memcmp(pre, "\x93NUMPY", 6) != 0) {
      fail("is not a .npy file (no \\x93NUMPY magic)");
    }
    if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0) {
      fail("has .npy format version ", int(pre[6]), ".", int(pre[7]),
           " (expected 1.0, 2.0 or 3.0)");
    }
    const std::size_t len_bytes = pre[6] == 1 ? 2 : 4;
    if (std::fread(pre + 8, 1, len_bytes, file_) != len_bytes) fail("has a truncated header");
    std::size_t len = 0;
    for (std::size_t b = len_bytes; b-- > 0;)
      len = (len << 8) | pre[8 + b];
    std::string dict(len, '\0');
    if (std::fread(dict.data(), 1, len, file_) != len) fail("has a truncated header");
    data_offset_ = 8 + len_bytes + len;
    parse_descr(value_of(dict, "descr"));
    const std::string order = value_of(dict, "fortran_order");
    if (order.compare(0, 4, "True") == 0) {
      fail("is in Fortran order (save np.ascontiguousarray(a), which is C order)");
    }
    if (order.compare(0, 5, "False") != 0) fail("has a malformed header (fortran_order)");
    parse_shape(value_of(dict, "shape"));
  }

  /// The header's descr, as the file writes it: '<f8', '|u1', ...
  const std::string& descr() const { return descr_; }
  /// The header's shape.
  const std::vector<std::size_t>& shape() const { return shape_; }
  /// The number of values the shape holds (the product of its extents; 1 for shape ()).
  std::size_t count() const { return count_; }
  /// The header's shape as Python writes it: (3,), (5, 2).
  std::string shape_str() const {
    std::string s = "(";
    for (std::size_t d = 0; d < shape_.size(); ++d)
      s += (d ? ", " : "") + std::to_string(shape_[d]);
    return s + (shape_.size() == 1 ? ",)" : ")");
  }

  /// Reads the data into dst (a contiguous host View of as many elements as the shape holds),
  /// converted to its value type T: 'f' data for floating-point T, 'i' or 'u' data for
  /// std::size_t.
  template <class View>
  void read_into(const View& dst) {
    using T                 = typename View::non_const_value_type;
    constexpr bool floating = std::is_floating_point_v<T>;
    static_assert(floating || std::is_same_v<T, std::size_t>,
                  "tessera: .npy values are read as float, double or std::size_t");
    if (floating ? kind_ != 'f' : (kind_ != 'i' && kind_ != 'u')) {
      fail("holds '", descr_, "' values (expected ",
           floating ? "floating point: '<f4' or '<f8'"
                    : "integers: '<i4', '<i8', '<u4', '<u8' or another integer dtype",
           ")");
    }
    check_data_size();
    T* values = dst.data();
    switch (kind_ * 16 + int(size_)) {
      case 'f' * 16 + 4:
        convert<float>(values);
        break;
      case 'f' * 16 + 8:
        convert<double>(values);
        break;
      case 'i' * 16 + 1:
        convert<std::int8_t>(values);
        break;
      case 'i' * 16 + 2:
        convert<std::int16_t>(values);
        break;
      case 'i' * 16 + 4:
        convert<std::int32_t>(values);
        break;
      case 'i' * 16 + 8:
        convert<std::int64_t>(values);
        break;
      case 'u' * 16 + 1:
        convert<std::uint8_t>(values);
        break;
      case 'u' * 16 + 2:
        convert<std::uint16_t>(values);
        break;
      case 'u' * 16 + 4:
        convert<std::uint32_t>(values);
        break;
      default:
        convert<std::uint64_t>(values);
        break;
    }
  }

 private:
  /// The text of `key`'s value in the header's dictionary, from its first character on.
  std::string value_of(const std::string& dict, const char* key) const {
    const std::string quoted = concat("'", key, "'");
    std::size_t at           = dict.find(quoted);
    if (at != std::string::npos) at = dict.find(':', at + quoted.size());
    if (at == std::string::npos) fail("has a malformed header (no ", quoted, ")");
    at = dict.find_first_not_of(' ', at + 1);
    return at == std::string::npos ? std::string() : dict.substr(at);
  }

  void parse_descr(const std::string& value) {
    const std::size_t end = value.find('\'', 1);
    if (value.empty() || value[0] != '\'' || end == std::string::npos) {
      fail("has a malformed header (descr is not a dtype string)");
    }
    descr_               = value.substr(1, end - 1);
    const char order     = descr_.empty() ? '?' : descr_[0];
    const std::string sz = descr_.size() > 2 ? descr_.substr(2) : "";
    kind_                = descr_.size() > 1 ? descr_[1] : '?';
    size_                = sz == "1" ? 1 : sz == "2" ? 2 : sz == "4" ? 4 : sz == "8" ? 8 : 0;
    const bool known     = (kind_ == 'f' && (size_ == 4 || size_ == 8)) ||
                       ((kind_ == 'i' || kind_ == 'u') && size_ != 0);
    const bool native = order == npy_host_order || (order == '|' && size_ == 1);
    if (!known || !(native || order == '<' || order == '>')) {
      fail("holds '", descr_,
           "' values, which are not float32, float64 or integers of 1 to 8 bytes");
    }
    if (!native) {
      fail("holds ", order == '>' ? "big" : "little", "-endian '", descr_,
           "' values (expected this host's byte order, '", npy_host_order, "')");
    }
  }

  void parse_shape(const std::string& value) {
    if (value.empty() || value[0] != '(') fail("has a malformed header (shape is not a tuple)");
    count_          = 1;
    std::size_t pos = 1;
    while (pos < value.size() && value[pos] != ')') {
      if (value[pos] == ',' || value[pos] == ' ') {
        ++pos;
        continue;
      }
      if (value[pos] < '0' || value[pos] > '9') fail("has a malformed header (shape)");
      std::size_t e = 0;
      for (; pos < value.size() && value[pos] >= '0' && value[pos] <= '9'; ++pos) {
        const std::size_t digit = std::size_t(value[pos] - '0');
        if (e > (std::numeric_limits<std::size_t>::max() - digit) / 10) overflow();
        e = e * 10 + digit;
      }
      if (e != 0 && count_ > std::numeric_limits<std::size_t>::max() / 8 / e) overflow();
      shape_.push_back(e);
      count_ *= e;
    }
    if (pos == value.size()) fail("has a malformed header (shape)");
  }

  [[noreturn]] void overflow() const {
    throw std::length_error(concat("tessera::", caller_, ": ", argument_, " '", path_,
                                   "' has a shape too large to hold in memory"));
  }

  /// The data must be exactly count_ items: numpy writes nothing after them.
  void check_data_size() {
    if (std::fseek(file_, 0, SEEK_END) != 0) fail("cannot be read (", std::strerror(errno), ")");
    const long end = std::ftell(file_);
    if (end < 0 || std::fseek(file_, long(data_offset_), SEEK_SET) != 0) {
      fail("cannot be read (", std::strerror(errno), ")");
    }
    const std::size_t have = std::size_t(end) - data_offset_, need = count_ * size_;
    if (have != need) {
      fail(have < need ? "is truncated" : "is longer than its header says", ": its shape needs ",
           need, " bytes of data, it has ", have);
    }
  }

  /// Reads the count_ items of type Src in chunks and converts them into values[0, count_).
  template <class Src, class T>
  void convert(T* values) {
    constexpr std::size_t chunk = std::size_t(1) << 16;
    std::vector<Src> buffer(std::is_same_v<Src, T> ? 0 : chunk);
    for (std::size_t first = 0; first < count_; first += chunk) {
      const std::size_t n = count_ - first < chunk ? count_ - first : chunk;
      Src* into = std::is_same_v<Src, T> ? reinterpret_cast<Src*>(values + first) : buffer.data();
      if (std::fread(into, sizeof(Src), n, file_) != n) fail("is truncated");
      if constexpr (!std::is_same_v<Src, T>) {
        for (std::size_t k = 0; k < n; ++k) {
          if constexpr (std::is_signed_v<Src> && std::is_integral_v<Src>) {
            if (into[k] < 0)
              fail("holds a negative value at index ", first + k, " (", +into[k], ")");
          }
          values[first + k] = static_cast<T>(into[k]);
        }
      }
    }
  }

  std::string path_;
  const char* caller_;
  const char* argument_;
  std::FILE* file_;
  std::size_t data_offset_ = 0;
  std::string descr_;
  char kind_        = '?';
  std::size_t size_ = 0;
  std::vector<std::size_t> shape_;
  std::size_t count_ = 0;
};

}  // namespace Impl
}  // namespace tessera
