// The command line shared by the examples. Each example declares its options (name, placeholder,
// meaning, default, allowed values) on a CommandLine and runs its work through run_example, so
// that all of them behave alike:
//   -h, --help      prints the options with their defaults and meanings and exits with status 0,
//                   before Kokkos is initialised and before anything runs;
//   --kokkos-...    passed on to Kokkos::initialize (--kokkos-threads=4, --kokkos-help, ...);
//   an unknown option, a missing value or an invalid value (not a number, trailing characters,
//   zero or negative where meaningless, out of range) is reported on one line of stderr,
//   "<program>: --n must be a positive integer (got -5); see --help", with exit status 2;
//   a std::exception that escapes the run (the library's std::invalid_argument or
//   std::length_error, std::bad_alloc, a file that cannot be written) is reported on one line,
//   "<program>: <what>", with exit status 1.
// A value follows its option as the next argument (--n 500) or after '=' (--n=500). Counts are
// written in decimal, optionally with a power of ten when the value stays whole (1e6, 2.5e3).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace examples {

/// A bad command line: run_example prints "<program>: <what>; see --help" and returns 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What read_count made of a text.
enum class CountText { count, not_a_count, too_large };

/// Reads a whole number written as decimal digits with an optional fraction and power of ten
/// ("20000", "1e6", "2.5e3", "1000e-3"), whose value must be an integer that fits in 64 bits.
/// Anything else (a sign, spaces, other characters, a value with a fractional part) is
/// not_a_count; `value` is set only for a count.
inline CountText read_count(const std::string& text, std::uint64_t& value) {
  std::size_t at   = 0;
  auto take_digits = [&](std::string& to) {
    const std::size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9')
      to += text[at++];
    return at > start;
  };
  std::string digits;  // the significand's digits, its fraction's included
  long exponent = 0;   // the value is digits * 10^exponent
  if (!take_digits(digits)) return CountText::not_a_count;
  if (at < text.size() && text[at] == '.') {
    ++at;
    std::string fraction;
    take_digits(fraction);
    digits += fraction;
    exponent -= static_cast<long>(fraction.size());
  }
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    const bool negative = at < text.size() && text[at] == '-';
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    std::string power;
    if (!take_digits(power)) return CountText::not_a_count;
    power.erase(0, power.find_first_not_of('0'));
    // Beyond 6 digits the power alone decides: a non-zero significand overflows or is a fraction.
    const long magnitude = power.size() > 6 ? 10000000 : std::atol(power.c_str());
    exponent += negative ? -magnitude : magnitude;
  }
  if (at != text.size()) return CountText::not_a_count;
  digits.erase(0, digits.find_first_not_of('0'));
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  if (digits.empty()) {
    value = 0;
    return CountText::count;
  }
  if (exponent < 0) return CountText::not_a_count;
  if (static_cast<long>(digits.size()) + exponent > 20) return CountText::too_large;
  constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t v                 = 0;
  for (const char c : digits) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (largest - d) / 10) return CountText::too_large;
    v = 10 * v + d;
  }
  for (long e = 0; e < exponent; ++e) {
    if (v > largest / 10) return CountText::too_large;
    v *= 10;
  }
  value = v;
  return CountText::count;
}

/// An example's options: declared with count, positive_real and text, read by parse.
class CommandLine {
 public:
  /// `program` names the example in messages; `about` (lines ending in '\n') heads --help.
  CommandLine(std::string program, std::string about)
      : program_(std::move(program)), about_(std::move(about)) {}

  /// The option `name` (e.g. "--n"), a whole number in [min, max] (max fits in Int) stored in
  /// `target`; --help shows `placeholder`, `meaning`, the range and the default: target's value
  /// now, or `default_text` when given.
  template <class Int>
  void count(const std::string& name, const std::string& placeholder, Int& target,
             std::uint64_t min, std::uint64_t max, const std::string& meaning,
             std::string default_text = {}) {
    static_assert(std::is_integral_v<Int>, "count options are integers");
    const std::string kind = min == 0   ? "a non-negative integer"
                             : min == 1 ? "a positive integer"
                                        : "an integer of at least " + std::to_string(min);
    add(name, placeholder, meaning,
        "default " + (default_text.empty() ? std::to_string(target) : default_text) + "; " +
            std::to_string(min) + " to " + std::to_string(max),
        [&target, min, max, name, kind](const std::string& text) {
          std::uint64_t v       = 0;
          const CountText found = read_count(text, v);
          if (found == CountText::not_a_count || (found == CountText::count && v < min))
            throw UsageError(name + " must be " + kind + " (got " + text + ")");
          if (found == CountText::too_large || v > max)
            throw UsageError(name + " must be at most " + std::to_string(max) + " (got " + text +
                             ")");
          target = static_cast<Int>(v);
        });
  }

  /// The option `name`, a positive finite number stored in `target`; --help shows
  /// `default_text` as its default.
  void positive_real(const std::string& name, const std::string& placeholder, double& target,
                     const std::string& meaning, const std::string& default_text) {
    add(name, placeholder, meaning, "default " + default_text + "; positive",
        [&target, name](const std::string& text) {
          char* end      = nullptr;
          const double v = std::strtod(text.c_str(), &end);
          if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0))
            throw UsageError(name + " must be a positive number (got " + text + ")");
          target = v;
        });
  }

  /// The option `name`, a non-empty text (a path) stored in `target`.
  void text(const std::string& name, const std::string& placeholder, std::string& target,
            const std::string& meaning) {
    add(name, placeholder, meaning, "default " + target, [&target, name](const std::string& text) {
      if (text.empty()) throw UsageError(name + " must not be empty");
      target = text;
    });
  }

  /// A condition between options, checked after all are read: it throws UsageError.
  void check(std::function<void()> relation) { checks_.push_back(std::move(relation)); }

  /// Reads argv[1, argc). Returns false when -h or --help is among the options (then nothing
  /// else counts); else stores every value, runs the checks and returns true. Throws UsageError
  /// for the first bad argument. Arguments starting with --kokkos- are kept for Kokkos.
  bool parse(int argc, char** argv) {
    kokkos_arguments_.assign(argv, argv + std::min(argc, 1));
    std::string first_error;
    auto fail = [&first_error](std::string why) {
      if (first_error.empty()) first_error = std::move(why);
    };
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "-h" || arg == "--help") return false;
      if (arg.rfind("--kokkos-", 0) == 0) {
        kokkos_arguments_.push_back(argv[i]);
        continue;
      }
      const std::size_t equals = arg.find('=');
      const std::string name   = arg.substr(0, equals);
      const auto option        = std::find_if(options_.begin(), options_.end(),
                                              [&name](const Option& o) { return o.name == name; });
      if (option == options_.end()) {
        fail((arg.rfind("-", 0) == 0 ? "unknown option " : "unexpected argument ") + arg);
        continue;
      }
      if (equals == std::string::npos && i + 1 == argc) {
        fail(name + " needs a value");
        continue;
      }
      const std::string value = equals == std::string::npos ? argv[++i] : arg.substr(equals + 1);
      try {
        option->set(value);
      } catch (const UsageError& e) {
        fail(e.what());
      }
    }
    if (!first_error.empty()) throw UsageError(first_error);
    for (const auto& relation : checks_)
      relation();
    return true;
  }

  /// The --help text: usage, `about`, two lines per option (its meaning; its default and the
  /// values allowed), the exit statuses.
  std::string help() const {
    std::size_t width = std::string("--kokkos-...").size();
    for (const Option& o : options_)
      width = std::max(width, o.name.size() + 1 + o.placeholder.size());
    auto line = [width](const std::string& left, const std::string& right) {
      return "  " + left + std::string(width + 2 - left.size(), ' ') + right + "\n";
    };
    std::string h =
        "usage: " + program_ + " [options] [--kokkos-...]\n\n" + about_ + "\nOptions:\n";
    for (const Option& o : options_)
      h += line(o.name + " " + o.placeholder, o.meaning) + line("", o.values);
    h += line("-h, --help", "print this help and exit");
    h += line("--kokkos-...", "passed on to Kokkos::initialize, e.g. --kokkos-threads=4");
    if (!options_.empty())
      h += "\nA value follows its option (" + options_[0].name + " V or " + options_[0].name +
           "=V); counts may be written as 1e6.";
    return h + "\nExit status: 0 success, 1 a failed run or check, 2 a bad option or value.\n";
  }

  /// The example's name, as messages begin.
  const std::string& program() const { return program_; }

  /// argv[0] and the --kokkos- arguments that parse found, for Kokkos::initialize.
  const std::vector<char*>& kokkos_arguments() const { return kokkos_arguments_; }

 private:
  struct Option {
    std::string name, placeholder, meaning;
    std::string values;                           ///< the default and the values allowed
    std::function<void(const std::string&)> set;  ///< throws UsageError for a bad value
  };

  void add(const std::string& name, const std::string& placeholder, const std::string& meaning,
           const std::string& values, std::function<void(const std::string&)> set) {
    options_.push_back({name, placeholder, meaning, values, std::move(set)});
  }

  std::string program_, about_;
  std::vector<Option> options_;
  std::vector<std::function<void()>> checks_;
  std::vector<char*> kokkos_arguments_;
};

/// The main of an example: parses the command line (--help: prints it, returns 0; a bad
/// command line: one line on stderr, returns 2), then runs `body` (returning the exit status)
/// between Kokkos::initialize, given the --kokkos- arguments, and Kokkos::finalize; a
/// std::exception escaping `body` is printed on one line and gives 1.
template <class Body>
int run_example(CommandLine& command_line, int argc, char** argv, Body&& body) {
  try {
    if (!command_line.parse(argc, argv)) {
      std::fputs(command_line.help().c_str(), stdout);
      return 0;
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s; see --help\n", command_line.program().c_str(), e.what());
    return 2;
  }
  std::vector<char*> kokkos_argv = command_line.kokkos_arguments();
  int kokkos_argc                = static_cast<int>(kokkos_argv.size());
  kokkos_argv.push_back(nullptr);
  Kokkos::ScopeGuard guard(kokkos_argc, kokkos_argv.data());
  try {
    return body();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", command_line.program().c_str(), e.what());
    return 1;
  }
}

}  // namespace examples
