// The fused sequences' tuner: timing once per key, the cache file (written, read back, and
// ignored with a warning when corrupt), remembered candidates checked before use.
#include <tessera/fusion/blas1.hpp>
#include <tessera/fusion/blas2.hpp>
#include <tessera/fusion/tuner.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fusion = tessera::fusion;
using Host       = Kokkos::DefaultHostExecutionSpace;
using HostView   = Kokkos::View<double*, Kokkos::HostSpace>;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A file path of the test's own, removed first.
std::string fresh_path(const char* name) {
  const std::string path = std::string("tessera_tuner_test_") + name + ".txt";
  std::remove(path.c_str());
  return path;
}

TEST(FusionTuner, TimesOnceKeepsTheFastestAndWritesTheCacheFile) {
  const std::string path = fresh_path("write");
  HostView x("x", 1000), y("y", 1000), w("w", 1000);
  Kokkos::deep_copy(x, 1.0);
  Kokkos::deep_copy(y, 2.0);
  fusion::Tuner tuner(path);
  fusion::FusionOptions options;
  options.tuner     = &tuner;
  const auto report = fusion::waxpby(Host{}, 3.0, x, 0.5, y, w, options);
  EXPECT_EQ(w(999), 4.0);
  EXPECT_TRUE(tuner.warnings().empty());
  const std::string file = read_file(path);
  EXPECT_EQ(file.rfind(fusion::Tuner::header, 0), 0u) << file;
  EXPECT_NE(file.find("|n=1000|"), std::string::npos) << file;
  // A second tuner reads the file back and runs the same candidate without timing again.
  fusion::Tuner again(path);
  options.tuner      = &again;
  const auto report2 = fusion::waxpby(Host{}, 3.0, x, 0.5, y, w, options);
  EXPECT_EQ(report2.cuts, report.cuts);
  EXPECT_EQ(report2.per_thread, report.per_thread);
  EXPECT_EQ(read_file(path), file);  // nothing appended: found, not timed
  std::remove(path.c_str());
}

TEST(FusionTuner, InPlaceSequencesUpdateTheCallersDataOnce) {
  fusion::Tuner tuner;  // in memory
  HostView x("x", 5000);
  Kokkos::deep_copy(x, 1.0);
  fusion::FusionOptions options;
  options.tuner = &tuner;
  fusion::sscal(Host{}, 2.0, x, options);  // the candidates run on a copy
  for (int i = 0; i < 5000; ++i)
    ASSERT_EQ(x(i), 2.0) << i;
}

TEST(FusionTuner, CorruptOrForeignFilesAreIgnoredWithAWarningAndLeftAlone) {
  for (const char* content : {"not a tuning file\n", "tessera-fusion-tuning 1\nkey\t1\tx\t4\t0.1\n",
                              "tessera-fusion-tuning 1\nkey\t1\t1\t4\n"}) {
    const std::string path = fresh_path("corrupt");
    { std::ofstream(path) << content; }
    fusion::Tuner tuner(path);
    ASSERT_EQ(tuner.warnings().size(), 1u) << content;
    EXPECT_NE(tuner.warnings()[0].find("ignored"), std::string::npos) << tuner.warnings()[0];
    HostView x("x", 100), y("y", 100), w("w", 100);
    Kokkos::deep_copy(x, 1.0);
    fusion::FusionOptions options;
    options.tuner = &tuner;
    fusion::waxpby(Host{}, 3.0, x, 0.5, y, w, options);
    EXPECT_EQ(w(0), 3.0);
    EXPECT_EQ(read_file(path), content);  // never written to
    std::remove(path.c_str());
  }
}

TEST(FusionTuner, ARememberedCandidateTheSequenceDoesNotAllowIsTimedAgain) {
  // AXPYDOT's plans are 0 (fused) and 1; a file claiming cuts 3 (past its last step) or a
  // team of 0 threads must not be used.
  HostView z("z", 64), w("w", 64), v("v", 64), u("u", 64);
  Kokkos::View<double, Kokkos::HostSpace> r("r");
  Kokkos::deep_copy(w, 2.0);
  Kokkos::deep_copy(v, 1.0);
  Kokkos::deep_copy(u, 1.0);
  fusion::Tuner probe;  // learns the key
  fusion::FusionOptions options;
  options.tuner = &probe;
  fusion::axpydot(Host{}, 1.0, w, v, u, z, r, options);
  for (const char* bad : {"\t3\t1\t4\t0.1\n", "\t0\t0\t4\t0.1\n"}) {
    const std::string path = fresh_path("invalid");
    std::string key;
    {
      // The key is the one the probe remembered: rebuild it from a fresh file of the probe's.
      fusion::Tuner writer(path);
      fusion::FusionOptions o;
      o.tuner = &writer;
      fusion::axpydot(Host{}, 1.0, w, v, u, z, r, o);
      const std::string file = read_file(path);
      const auto start       = file.find('\n') + 1;
      key                    = file.substr(start, file.find('\t', start) - start);
    }
    { std::ofstream(path) << fusion::Tuner::header << '\n' << key << bad; }
    fusion::Tuner tuner(path);
    EXPECT_TRUE(tuner.warnings().empty());
    fusion::FusionOptions o;
    o.tuner = &tuner;
    Kokkos::deep_copy(z, 0.0);
    fusion::axpydot(Host{}, 1.0, w, v, u, z, r, o);
    ASSERT_EQ(tuner.warnings().size(), 1u);
    EXPECT_NE(tuner.warnings()[0].find("timed again"), std::string::npos);
    EXPECT_EQ(z(63), 1.0);
    EXPECT_EQ(r(), 64.0);
    std::remove(path.c_str());
  }
}

TEST(FusionTuner, WritesOnlyLinesItReadsBackAndStartsEmptyFiles) {
  const std::string path = fresh_path("lines");
  { std::ofstream touch(path); }  // an empty file: taken as new, the header written first
  {
    fusion::Tuner tuner(path);
    EXPECT_TRUE(tuner.warnings().empty());
    tuner.remember("good", fusion::Candidate{1, 2, 3}, 0.5);
    tuner.remember("bad\tkey", fusion::Candidate{1, 2, 3}, 0.5);       // kept in memory
    tuner.remember("slow", fusion::Candidate{1, 2, 3}, std::nan(""));  // kept in memory
    tuner.remember("other", fusion::Candidate{0, 1, 4}, 0.25);
    EXPECT_EQ(tuner.warnings().size(), 2u);
    EXPECT_TRUE(tuner.find("bad\tkey").has_value());
  }
  fusion::Tuner again(path);
  EXPECT_TRUE(again.warnings().empty());
  ASSERT_TRUE(again.find("good").has_value());
  EXPECT_EQ(again.find("good")->per_thread, 3);
  EXPECT_EQ(again.find("other")->cuts, 0u);
  EXPECT_FALSE(again.find("bad\tkey").has_value());
  std::remove(path.c_str());
}

TEST(FusionTuner, ACandidateWhoseTeamCountOverflowsIsNotAllowed) {
  using Seq = decltype(fusion::sequence(fusion::assign(fusion::Vec<0>{}, 2.0 * fusion::Vec<0>{})));
  namespace Impl = tessera::fusion::Impl;
  const Seq seq{};
  const auto bound = fusion::bind(HostView("x", 0));
  auto allowed     = [&](fusion::Candidate c, std::size_t n) {
    const auto run = Impl::make_run<double>(Host{}, seq, bound, Impl::SequenceExtents{n, n});
    return Impl::allowed<Host, Seq>(run, c);
  };
  EXPECT_TRUE(allowed(fusion::Candidate{0, 1, 1}, 1000));
  EXPECT_FALSE(allowed(fusion::Candidate{0, 1, 1}, std::size_t(1) << 33));
  EXPECT_TRUE(allowed(fusion::Candidate{0, 1, 16}, std::size_t(1) << 33));
  EXPECT_FALSE(allowed(fusion::Candidate{0, 0, 16}, 1000));
  EXPECT_FALSE(allowed(fusion::Candidate{1, 1, 16}, 1000));  // one step: no cut
  // A matrix tile shape's team count bounds every kernel of its run: at 2^33 rows, 64-line tiles
  // are 2^27 teams, but a group sweeping lines would launch one per
  // Tuning::fusion_matrix_rows rows.
  const auto gemv = fusion::sgemv_sequence(1.0, 1.0);
  using Gemv      = std::decay_t<decltype(gemv)>;
  const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> a("a", 0, 0);
  const auto matrix_bound = fusion::bind(a, HostView("x", 0), HostView("y", 0), HostView("z", 0));
  const auto tall         = Impl::make_run<double>(Host{}, gemv, matrix_bound,
                                           Impl::SequenceExtents{std::size_t(1) << 33, 1});
  const std::size_t line_teams =
      (std::size_t(1) << 33) / std::size_t(tessera::Impl::Tuning<Host>::fusion_matrix_rows);
  EXPECT_EQ(tall.shape(1, fusion::tile_lines).league, line_teams);
  EXPECT_FALSE((Impl::allowed<Host, Gemv>(tall, fusion::Candidate{0, 1, fusion::tile_lines})));
}

}  // namespace
