// The dtypes of .npy files in this host's byte order: the byte-order character the writer puts
// in a descr and the reader requires (npy_host_order), and the descr of float or double values
// (npy_descr<T>(): "<f4" or "<f8" on little-endian hosts).
#pragma once

#include <type_traits>

namespace tessera {
namespace Impl {

/// The byte order of this host's values as a .npy descr writes it: '<' little-endian (every
/// platform Kokkos supports today), '>' big-endian. Files hold the host's bytes as they are.
inline constexpr char npy_host_order =
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    '>';
#else
    '<';
#endif

/// The descr of T's values in this host's byte order: "<f4" or "<f8" on little-endian hosts.
template <class T>
constexpr const char* npy_descr() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tessera: .npy files hold float or double");
  if constexpr (npy_host_order == '<') {
    return std::is_same_v<T, float> ? "<f4" : "<f8";
  } else {
    return std::is_same_v<T, float> ? ">f4" : ">f8";
  }
}

}  // namespace Impl
}  // namespace tessera
