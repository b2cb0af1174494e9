// Runs a fused sequence under every implementation the tuner can pick, for the fusion tests.
#pragma once

#include <tessera/fusion/run.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace tessera_test {

/// Runs call(options) under each candidate (the tuner's list, fusion::tuner_candidates), the
/// model's choice, the unfused plan and `extra`, resetting outputs with reset() before each;
/// check(report) checks the results.
template <class Call, class Reset, class Check>
void for_every_candidate(const std::vector<tessera::fusion::Candidate>& candidates,
                         const tessera::fusion::FusionOptions& extra, const Call& call,
                         const Reset& reset, const Check& check) {
  namespace fusion = tessera::fusion;
  std::vector<fusion::FusionOptions> runs(1);
  for (const fusion::Candidate& c : candidates) {
    fusion::FusionOptions o;
    o.cuts       = c.cuts;
    o.team_size  = c.team_size;
    o.per_thread = c.per_thread;
    runs.push_back(o);
  }
  runs.emplace_back().choice = fusion::PlanChoice::unfused;
  runs.push_back(extra);
  for (const auto& o : runs) {
    reset();
    const fusion::FusionReport r = call(o);
    if (o.cuts) EXPECT_EQ(r.cuts, *o.cuts);
    check(r);
  }
}

}  // namespace tessera_test
