// A console reporter that adds ratio counters computed from rows that ran earlier in the same
// run (registration order): the programs with their own main() derive from it and say, in
// add_ratios(), which counters a row gets.
#pragma once

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace tessera_bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    std::vector<Run> out = runs;
    for (auto& r : out) {
      // Ratios on single runs and on the medians of repetitions.
      if (r.run_type != Run::RT_Iteration && r.aggregate_name != "median") continue;
      const std::string name = r.run_name.function_name;
      times_[name]           = r.GetAdjustedRealTime();  // per iteration, in the row's unit
      add_ratios(r, name);
    }
    ConsoleReporter::ReportRuns(out);
  }

 protected:
  /// Adds counters to run r (row `name`); time() reads rows reported so far.
  virtual void add_ratios(Run& r, const std::string& name) = 0;
  /// The time per iteration of a row reported so far (its unit), or 0.
  double time(const std::string& name) const {
    const auto it = times_.find(name);
    return it == times_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace tessera_bench
