// The fused sequences' tuner (include/tessera/fusion/tuner.hpp): its cache file.
//
// Format: the header line, then one line per key, tab-separated:
//   <key> TAB <cuts> TAB <team_size> TAB <per_thread> TAB <seconds>
// A later line for a key replaces an earlier one (remember() appends).
#include <tessera/fusion/tuner.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <utility>

namespace tessera {
namespace fusion {

namespace {

/// Parses one cache line; nothing when it is malformed.
std::optional<std::pair<std::string, Candidate>> parse_line(const std::string& line) {
  std::istringstream in(line);
  std::string key, cuts, team, per_thread, seconds, extra;
  if (!std::getline(in, key, '\t') || !std::getline(in, cuts, '\t') ||
      !std::getline(in, team, '\t') || !std::getline(in, per_thread, '\t') ||
      !std::getline(in, seconds, '\t') || std::getline(in, extra, '\t') || key.empty()) {
    return std::nullopt;
  }
  auto number = [](const std::string& text, long long max) -> std::optional<long long> {
    if (text.empty() || text.size() > 12) return std::nullopt;
    long long value = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    if (value > max) return std::nullopt;
    return value;
  };
  const auto c = number(cuts, 0xffffffffLL), t = number(team, 1 << 20),
             p = number(per_thread, 1 << 30);
  double s     = 0;
  std::istringstream sec(seconds);
  if (!c || !t || !p || !(sec >> s) || !(s >= 0)) return std::nullopt;
  return std::make_pair(key, Candidate{std::uint32_t(*c), int(*t), int(*p)});
}

}  // namespace

Tuner::Tuner(std::string cache_path) : path_(std::move(cache_path)) {
  load();
}

void Tuner::warn(const std::string& message) {
  warnings_.push_back(message);
  std::cerr << "tessera::fusion::Tuner: " << message << '\n';
}

void Tuner::load() {
  if (path_.empty()) return;
  std::error_code error;
  if (!std::filesystem::exists(path_, error)) return;  // no file yet: remember() creates it
  std::ifstream in(path_);
  if (!in) {
    writable_ = false;
    warn("cannot read '" + path_ + "': ignored, and left as it is (findings stay in memory)");
    return;
  }
  std::string line;
  if (!std::getline(in, line)) {
    empty_ = true;  // an empty file: remember() writes the header first
    return;
  }
  if (line != header) {
    writable_ = false;
    warn("'" + path_ + "' is not a Tessera tuning file (first line not \"" + header +
         "\"): ignored, and left as it is (findings stay in memory)");
    return;
  }
  std::map<std::string, Candidate> read;
  for (int number = 2; std::getline(in, line); ++number) {
    const auto entry = parse_line(line);
    if (!entry) {
      writable_ = false;
      warn("'" + path_ + "' line " + std::to_string(number) +
           " is malformed: file ignored, and left as it is (findings stay in memory)");
      return;
    }
    read[entry->first] = entry->second;
  }
  best_ = std::move(read);
}

std::optional<Candidate> Tuner::find(const std::string& key) const {
  const auto it = best_.find(key);
  if (it == best_.end()) return std::nullopt;
  return it->second;
}

void Tuner::remember(const std::string& key, const Candidate& best, double seconds) {
  best_[key] = best;
  if (path_.empty() || !writable_) return;
  if (key.empty() || key.find_first_of("\t\n\r") != std::string::npos || !(seconds >= 0) ||
      !(seconds < std::numeric_limits<double>::infinity())) {
    warn(
        "a key with tabs or line breaks, or a time that is not a finite number >= 0, is not "
        "written to '" +
        path_ + "' (kept in memory)");
    return;
  }
  std::error_code error;
  const bool fresh = empty_ || !std::filesystem::exists(path_, error);
  empty_           = false;
  std::ofstream out(path_, std::ios::app);
  if (fresh) out << header << '\n';
  out << key << '\t' << best.cuts << '\t' << best.team_size << '\t' << best.per_thread << '\t'
      << seconds << '\n';
  if (!out) warn("cannot write to '" + path_ + "': the finding stays in memory");
}

void Tuner::reject(const std::string& key, const std::string& why) {
  best_.erase(key);
  warn("remembered candidate for '" + key + "' " + why + ": timed again");
}

}  // namespace fusion
}  // namespace tessera
