// SPDX-License-Identifier: Apache-2.0
// The tune journal (docs/contracts.md, "noisewatch.tune/1"): every value `tune` changed, with
// the exact bytes it read before, written to disk before the change itself so that a crash at
// any point can be undone by `noisewatch tune restore`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "knobs/knob.h"

namespace nw::sys {
class Sysroot;
}

namespace nw::tune {

// One value changed: a file (path) or a systemd unit (service).
struct Change {
  std::string knob;
  std::string path;     // machine path (/proc/..., /sys/...); "" for a service
  std::string service;  // systemd unit; "" for a file
  std::string before;   // exact content read before the write; a unit's state ("active")
  std::string after;    // the bytes written; a unit's new state ("inactive")
  knobs::Format format = knobs::Format::text;
};

// Who applied the tuning: the process, identified by pid and start time (a reused pid differs).
struct Owner {
  std::string command;  // "tune apply" | "run --tune" | "tune prove"
  int pid = 0;
  uint64_t start = 0;  // /proc/PID/stat starttime
  static Owner self(std::string command);
  static Owner of(int pid, std::string command);  // a running process
  bool alive() const;                             // that very process still runs
  bool other() const;                             // alive, and not this process
};

struct Journal {
  std::string created;  // ISO 8601 UTC
  std::vector<int> cpus;
  std::string sysroot;  // "" for the live machine
  Owner owner;
  std::vector<Change> changes;
};

nlohmann::json to_json(const Journal& j);
// Throws nw::Error with a one-line reason when the JSON is not a tune journal.
Journal journal_from_json(const nlohmann::json& j);
std::string utc_now();

// The journal's file on disk.
class JournalFile {
 public:
  explicit JournalFile(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }
  bool exists() const;
  // nullopt when there is no journal; throws nw::Error when it cannot be read or parsed.
  std::optional<Journal> load() const;
  // Durable (fsync'ed) before it returns; throws nw::Error.
  void save(const Journal& j) const;
  void remove() const;

 private:
  std::string path_;
};

// /run/noisewatch/tune.json, under the sysroot when there is one.
std::string default_journal_path(const sys::Sysroot& root);

}  // namespace nw::tune
