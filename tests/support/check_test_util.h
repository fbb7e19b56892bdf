// SPDX-License-Identifier: Apache-2.0
// Helpers for the `check` unit tests: fixture paths, status tables, scratch sysroot trees.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "check/check_runner.h"
#include "check/finding.h"

namespace nw::check::testing {

// A fixture tree under tests/data/sysroots/. A missing tree is a test failure that names it
// (gtest reports the exception), never a crash further down.
inline std::string fixture_sysroot(const std::string& name) {
  std::string dir = std::string(NW_SOURCE_DIR) + "/tests/data/sysroots/" + name;
  if (!std::filesystem::is_directory(dir + "/sys/devices/system/cpu"))
    throw std::runtime_error("fixture sysroot missing: " + dir + " (see tests/data/sysroots/README.md)");
  return dir;
}

inline CheckReport check_sysroot(const std::string& dir, std::optional<std::vector<int>> cpus = std::nullopt) {
  sys::Sysroot root(dir);
  CheckOptions opts;
  opts.cpus = cpus;
  return run_check(root, opts);
}

inline std::map<std::string, std::string> statuses(const CheckReport& r) {
  std::map<std::string, std::string> m;
  for (const auto& f : r.findings) m[f.id] = std::string(to_string(f.status));
  return m;
}

// Asserts every finding's status, naming the finding and its summary when one differs.
inline void expect_statuses(const CheckReport& r, const std::map<std::string, std::string>& expected) {
  EXPECT_EQ(r.findings.size(), expected.size());
  for (const auto& [id, status] : expected) {
    const Finding* f = r.find(id);
    ASSERT_NE(f, nullptr) << "missing finding " << id;
    EXPECT_EQ(std::string(to_string(f->status)), status) << id << ": " << f->summary;
  }
}

// A scratch sysroot: files written by the test, removed at the end.
class ScratchRoot {
 public:
  ScratchRoot() {
    char tmpl[] = "/tmp/nw-check-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  ~ScratchRoot() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }
  void write(const std::string& abs, const std::string& content) const {
    std::filesystem::path p = dir_ + abs;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << content;
  }
  void mkdir(const std::string& abs) const { std::filesystem::create_directories(dir_ + abs); }

 private:
  std::string dir_;
};

}  // namespace nw::check::testing
