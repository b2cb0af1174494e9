// Host-side argument checks that throw before any kernel runs.
//
// Messages follow "tessera::<function>: <argument> <what> (got X, expected Y)".
#pragma once

#include <cstdint>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace tessera {
namespace Impl {

template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream os;
  (os << ... << parts);
  return os.str();
}

/// Parts written one after another only when printed: an argument named by several parts
/// ("matrix 2", "i_vars[0]") that a check names without building a string on the happy path.
/// Holds copies of the parts (string literals as pointers).
template <class... Parts>
struct Joined {
  std::tuple<Parts...> parts;
};
template <class... Parts>
Joined<std::decay_t<const Parts>...> joined(const Parts&... parts) {
  return {{parts...}};
}
template <class... Parts>
std::ostream& operator<<(std::ostream& os, const Joined<Parts...>& j) {
  std::apply([&](const auto&... part) { (os << ... << part); }, j.parts);
  return os;
}

/// Throws std::invalid_argument unless got == expected (argument: anything an ostream writes).
template <class Argument, class A, class B>
void require_equal(const char* function, const Argument& argument, const char* what, const A& got,
                   const B& expected) {
  if (!(got == expected)) {
    throw std::invalid_argument(concat("tessera::", function, ": ", argument, " ", what, " (got ",
                                       got, ", expected ", expected, ")"));
  }
}

/// Throws std::invalid_argument with the standard prefix unless condition holds; the message is
/// its parts written one after another, only when the condition fails (calls on the happy path
/// build no strings).
template <class... Parts>
void require(bool condition, const char* function, const Parts&... message) {
  if (!condition) throw std::invalid_argument(concat("tessera::", function, ": ", message...));
}

/// Throws std::length_error unless an extent fits the 32-bit indices used inside the kernels
/// (argument: anything an ostream writes, written only on failure).
template <class Argument>
void require_int_extent(const char* function, const Argument& argument, std::size_t extent) {
  if (extent > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::length_error(concat("tessera::", function, ": ", argument, " extent ", extent,
                                   " exceeds the supported maximum ",
                                   std::numeric_limits<int>::max()));
  }
}

}  // namespace Impl
}  // namespace tessera
