// SPDX-License-Identifier: Apache-2.0
// Reads /proc and /sys paths under a file-system root, so every check runs the same on the live
// machine ("" root) and on a copy of another machine's files (--sysroot DIR).
//
// It also remembers the exact bytes of every file it read and every directory it listed: that
// record is what `noisewatch snapshot` writes out, so a check of the copy sees byte-for-byte what
// the live check saw.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nw::sys {

class Sysroot {
 public:
  explicit Sysroot(std::string root = "");

  const std::string& root() const { return root_; }
  bool live() const { return root_.empty(); }
  // Where an absolute machine path ("/proc/cmdline") lives under the root.
  std::string path(std::string_view abs) const;

  // Whole file, or nullopt when absent or unreadable.
  std::optional<std::string> read(std::string_view abs) const;
  // First line without the trailing newline and surrounding blanks.
  std::optional<std::string> read_line(std::string_view abs) const;
  // The first line as an integer; nullopt when absent or not a number.
  std::optional<long long> read_int(std::string_view abs) const;
  bool exists(std::string_view abs) const;
  bool is_dir(std::string_view abs) const;
  // Names of the entries of a directory, sorted; empty when absent. Listed once: later calls
  // give the same answer, as file reads do, so that one check sees one state of /proc.
  std::vector<std::string> list_dir(std::string_view abs) const;
  // Records every regular file below `abs` (up to `depth` levels) for the snapshot, for inputs
  // read by a library (hwloc) rather than through this class.
  void record_tree(std::string_view abs, int depth) const;

  // What was read: absolute path -> content, and the directories listed.
  const std::map<std::string, std::string>& files_read() const { return files_; }
  const std::set<std::string>& dirs_listed() const { return dirs_; }

 private:
  std::string root_;
  mutable std::map<std::string, std::string> files_;
  mutable std::set<std::string> dirs_;
  mutable std::map<std::string, std::vector<std::string>> listings_;
};

// Writes what `src` read under `dir` (dir/proc/..., dir/sys/...). Throws nw::Error on failure.
void write_snapshot(const Sysroot& src, const std::string& dir);

}  // namespace nw::sys
