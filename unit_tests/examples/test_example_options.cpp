// The examples' command line (examples/example_options.hpp): the grammar of counts, the options
// read, the errors (the first bad argument, in one line), --help before anything else, the
// --kokkos- arguments kept for Kokkos, and run_example's exit statuses: 0 for --help and 2 for a
// bad command line without Kokkos started, 1 for an exception from the run. Its own main
// (gtest_main): Kokkos is started only by run_example, in one test.
#include "example_options.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using examples::CountText;
using examples::read_count;

CountText count_of(const std::string& text, std::uint64_t& value) {
  value = 12345;  // left alone unless the text is a count
  return read_count(text, value);
}

TEST(ExampleOptions, ReadsCountsInDecimalAndWithPowersOfTen) {
  const std::vector<std::pair<std::string, std::uint64_t>> cases = {
      {"0", 0},
      {"7", 7},
      {"000123", 123},
      {"20000", 20000},
      {"1e6", 1000000},
      {"1E6", 1000000},
      {"1e+6", 1000000},
      {"2.5e3", 2500},
      {"2.50e3", 2500},
      {"1000e-3", 1},
      {"3.", 3},
      {"0.0e999999999", 0},
      {"18446744073709551615", 18446744073709551615ull},
      {"1.8446744073709551615e19", 18446744073709551615ull}};
  for (const auto& [text, want] : cases) {
    std::uint64_t v = 0;
    EXPECT_EQ(count_of(text, v), CountText::count) << text;
    EXPECT_EQ(v, want) << text;
  }
}

TEST(ExampleOptions, RejectsWhatIsNotAWholeNumber) {
  for (const std::string text :
       {"",   "-5", "+5",  " 5",   "5 ",    "abc",   "12x", "0x10", "1e",    "1e-",
        "e5", ".5", "2.5", "1e-1", "12e-1", "1.5e0", "nan", "inf",  "1,000", "5-"}) {
    std::uint64_t v = 0;
    EXPECT_EQ(count_of(text, v), CountText::not_a_count) << "'" << text << "'";
    EXPECT_EQ(v, 12345u) << text;
  }
}

TEST(ExampleOptions, SaysWhenACountExceeds64Bits) {
  for (const std::string text : {"18446744073709551616", "99999999999999999999", "1e20", "1e30",
                                 "1e9999999999", "2e19", "184467440737095516160e-1"}) {
    std::uint64_t v = 0;
    EXPECT_EQ(count_of(text, v), CountText::too_large) << text;
    EXPECT_EQ(v, 12345u) << text;
  }
}

/// argv for parse: the program's name, then `args`.
struct Argv {
  std::vector<std::string> strings;
  std::vector<char*> pointers;
  explicit Argv(std::vector<std::string> args) : strings(std::move(args)) {
    strings.insert(strings.begin(), "demo");
    for (std::string& s : strings)
      pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(strings.size()); }
  char** argv() { return pointers.data(); }
};

/// A command line like the examples': two counts, a real, a path, and a relation.
struct Demo {
  int n              = 1000;
  std::size_t budget = 0;
  double sigma       = 0;
  std::string out    = "out.npy";
  examples::CommandLine command_line{"demo", "A demonstration.\n"};
  Demo() {
    command_line.count("--n", "N", n, 1, 1000000000, "number of points");
    command_line.count("--budget-mb", "MB", budget, 0, 1000000000, "memory budget");
    command_line.positive_real("--sigma", "S", sigma, "kernel width", "0.02 N^(-1/6)");
    command_line.text("--out", "PATH", out, "the file written");
    command_line.check([this] {
      if (n == 13) throw examples::UsageError("--n must not be 13");
    });
  }
  /// parse's result, or its UsageError's message.
  std::string parse(std::vector<std::string> args) {
    Argv a(std::move(args));
    try {
      return command_line.parse(a.argc(), a.argv()) ? "run" : "help";
    } catch (const examples::UsageError& e) {
      return e.what();
    }
  }
};

TEST(ExampleOptions, StoresEachValueGivenAsTheNextArgumentOrAfterAnEqualsSign) {
  Demo d;
  EXPECT_EQ(d.parse({"--n", "1e6", "--budget-mb=0", "--sigma", "0.5", "--out=a=b.npy"}), "run");
  EXPECT_EQ(d.n, 1000000);
  EXPECT_EQ(d.budget, 0u);
  EXPECT_EQ(d.sigma, 0.5);
  EXPECT_EQ(d.out, "a=b.npy");
  Demo defaults;
  EXPECT_EQ(defaults.parse({}), "run");
  EXPECT_EQ(defaults.n, 1000);
  EXPECT_EQ(defaults.out, "out.npy");
}

TEST(ExampleOptions, NamesTheOptionTheRuleAndTheValueOfABadValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--n", "-5"}, "--n must be a positive integer (got -5)"},
      {{"--n", "0"}, "--n must be a positive integer (got 0)"},
      {{"--n", "abc"}, "--n must be a positive integer (got abc)"},
      {{"--n", "12x"}, "--n must be a positive integer (got 12x)"},
      {{"--n", "2.5"}, "--n must be a positive integer (got 2.5)"},
      {{"--n="}, "--n must be a positive integer (got )"},
      {{"--n", "1000000001"}, "--n must be at most 1000000000 (got 1000000001)"},
      {{"--n", "1e30"}, "--n must be at most 1000000000 (got 1e30)"},
      {{"--n", "18446744073709551616"},
       "--n must be at most 1000000000 (got 18446744073709551616)"},
      {{"--budget-mb", "-1"}, "--budget-mb must be a non-negative integer (got -1)"},
      {{"--sigma", "0"}, "--sigma must be a positive number (got 0)"},
      {{"--sigma", "-1"}, "--sigma must be a positive number (got -1)"},
      {{"--sigma", "nan"}, "--sigma must be a positive number (got nan)"},
      {{"--sigma", "inf"}, "--sigma must be a positive number (got inf)"},
      {{"--sigma", "1e999"}, "--sigma must be a positive number (got 1e999)"},
      {{"--sigma", "0.5x"}, "--sigma must be a positive number (got 0.5x)"},
      {{"--sigma", ""}, "--sigma must be a positive number (got )"},
      {{"--out", ""}, "--out must not be empty"},
      {{"--n", "13"}, "--n must not be 13"}};
  for (const auto& [args, message] : cases) {
    Demo d;
    EXPECT_EQ(d.parse(args), message) << args[0];
  }
}

TEST(ExampleOptions, RejectsUnknownOptionsStrayArgumentsAndMissingValues) {
  EXPECT_EQ(Demo().parse({"--m", "5"}), "unknown option --m");
  EXPECT_EQ(Demo().parse({"-n", "5"}), "unknown option -n");
  EXPECT_EQ(Demo().parse({"--N=5"}), "unknown option --N=5");
  EXPECT_EQ(Demo().parse({"5"}), "unexpected argument 5");
  EXPECT_EQ(Demo().parse({"--n", "5", "--out"}), "--out needs a value");
  // The first bad argument is the one reported.
  EXPECT_EQ(Demo().parse({"--n", "0", "--m", "5"}), "--n must be a positive integer (got 0)");
  EXPECT_EQ(Demo().parse({"--m", "5", "--n", "0"}), "unknown option --m");
}

TEST(ExampleOptions, HelpWinsOverEveryOtherArgument) {
  EXPECT_EQ(Demo().parse({"--help"}), "help");
  EXPECT_EQ(Demo().parse({"-h"}), "help");
  EXPECT_EQ(Demo().parse({"--n", "-5", "--frobnicate", "--help"}), "help");
  EXPECT_EQ(Demo().parse({"--n", "13", "-h"}), "help");  // the relation is not checked
  // A value that reads "--help" is the value of its option.
  Demo d;
  EXPECT_EQ(d.parse({"--out", "--help"}), "run");
  EXPECT_EQ(d.out, "--help");
}

TEST(ExampleOptions, KeepsTheKokkosArgumentsForKokkos) {
  Demo d;
  Argv a({"--kokkos-threads=2", "--n", "5", "--kokkos-help"});
  ASSERT_TRUE(d.command_line.parse(a.argc(), a.argv()));
  EXPECT_EQ(d.n, 5);
  const std::vector<char*>& kokkos = d.command_line.kokkos_arguments();
  ASSERT_EQ(kokkos.size(), 3u);
  EXPECT_EQ(std::string(kokkos[0]), "demo");
  EXPECT_EQ(std::string(kokkos[1]), "--kokkos-threads=2");
  EXPECT_EQ(std::string(kokkos[2]), "--kokkos-help");
}

TEST(ExampleOptions, HelpListsEveryOptionWithItsMeaningAndDefault) {
  const std::string help = Demo().command_line.help();
  for (const char* text :
       {"usage: demo [options] [--kokkos-...]", "A demonstration.", "--n N", "number of points",
        "default 1000; 1 to 1000000000", "--budget-mb MB", "default 0; 0 to 1000000000",
        "--sigma S", "default 0.02 N^(-1/6); positive", "--out PATH", "default out.npy",
        "-h, --help", "--kokkos-...", "Kokkos::initialize", "2 a bad option or value"})
    EXPECT_NE(help.find(text), std::string::npos) << text << "\n" << help;
}

/// run_example on `args` with a body that counts its calls and returns 0.
int run(const std::vector<std::string>& args, int& calls, std::string& err) {
  Demo d;
  Argv a(args);
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const int status = examples::run_example(d.command_line, a.argc(), a.argv(), [&calls] {
    ++calls;
    return 0;
  });
  testing::internal::GetCapturedStdout();
  err = testing::internal::GetCapturedStderr();
  return status;
}

TEST(ExampleOptions, RunExampleAnswersHelpAndBadCommandLinesBeforeKokkosStarts) {
  int calls = 0;
  std::string err;
  EXPECT_EQ(run({"--help"}, calls, err), 0);
  EXPECT_EQ(err, "");
  EXPECT_EQ(run({"--n", "-5"}, calls, err), 2);
  EXPECT_EQ(err, "demo: --n must be a positive integer (got -5); see --help\n");
  EXPECT_EQ(run({"--n", "13"}, calls, err), 2);
  EXPECT_EQ(err, "demo: --n must not be 13; see --help\n");
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(Kokkos::is_initialized());
}

// The one test that starts Kokkos (it starts once per process).
TEST(ExampleOptions, RunExampleTurnsAnExceptionOfTheRunIntoOneLineAndStatus1) {
  Demo d;
  Argv a({"--n", "5"});
  bool ran = false;
  testing::internal::CaptureStderr();
  const int status = examples::run_example(d.command_line, a.argc(), a.argv(), [&ran]() -> int {
    ran = Kokkos::is_initialized();
    throw std::length_error("tessera::f: n too large");
  });
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(ran);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(err, "demo: tessera::f: n too large\n");
  EXPECT_FALSE(Kokkos::is_initialized());
}

}  // namespace
