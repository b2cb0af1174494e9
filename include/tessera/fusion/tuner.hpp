// The tuner: which implementation of a sequence runs fastest, found by timing the candidates
// once per (sequence, value type, length, device) and remembered in memory and in a cache file.
//
// A candidate is a plan (plan.hpp) with a launch shape (threads per team, elements per thread).
// A Tuner is the caller's object (no global state): pass it in FusionOptions::tuner. The first
// run() of a key times every candidate on scratch copies of the bound Views (so in-place
// sequences run once on the caller's data; the copies double the memory for that call), keeps
// the fastest and appends it to the cache file; later runs of the key use it at once. The file
// is read when the Tuner is made: a missing file is fine (it is created), a file that is not a
// Tessera tuning file, or has a malformed line, is ignored as a whole with a warning (std::cerr
// and warnings()) and never written to, and a remembered candidate that the sequence does not
// allow is timed again with a warning: nothing read is trusted blindly. Keys hold the Tessera
// version and the device, so a file from another version or device is not used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera {
namespace fusion {

/// One implementation of a sequence: its plan (cuts) and launch shape.
struct Candidate {
  std::uint32_t cuts = 0;  ///< The plan (bit s: a kernel boundary after step s).
  int team_size      = 0;  ///< Threads per team.
  /// Elements per thread (vector sequences) or matrix lines per team (matrix sequences).
  int per_thread = 0;
};

/// The fastest candidates found so far, by key, with their cache file (see the file comment).
class Tuner {
 public:
  /// A tuner with the cache file at `cache_path` (read now, appended to as candidates are
  /// found); an empty path keeps the findings in memory only.
  explicit Tuner(std::string cache_path = "");

  /// The candidate remembered for `key`, if any.
  std::optional<Candidate> find(const std::string& key) const;
  /// Remembers `best` for `key` (measured at `seconds` a run) and appends it to the file.
  void remember(const std::string& key, const Candidate& best, double seconds);
  /// Forgets `key` (a remembered candidate the sequence does not allow), with a warning.
  void reject(const std::string& key, const std::string& why);

  /// The warnings given so far (each also written to std::cerr).
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// The cache file's path (empty: the findings are kept in memory only).
  const std::string& cache_path() const { return path_; }

  /// The first line of a cache file.
  static constexpr const char* header = "tessera-fusion-tuning 1";

 private:
  void warn(const std::string& message);
  void load();

  std::string path_;
  std::map<std::string, Candidate> best_;
  std::vector<std::string> warnings_;
  bool writable_ = true;   // false once the file was found corrupt or unreadable
  bool empty_    = false;  // the file exists but is empty
};

}  // namespace fusion
}  // namespace tessera
