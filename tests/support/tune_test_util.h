// SPDX-License-Identifier: Apache-2.0
// Helpers for the tune unit tests: writable copies of the fixture trees, byte snapshots of a
// tree, and a service manager that records what it was asked to do.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "tune/file_io.h"
#include "tune/services.h"

namespace nw::tune::testing {

// A writable copy of tests/data/sysroots/NAME in a temporary directory, removed at the end.
class TreeCopy {
 public:
  explicit TreeCopy(const std::string& name) {
    std::string src = std::string(NW_SOURCE_DIR) + "/tests/data/sysroots/" + name;
    if (!std::filesystem::is_directory(src + "/sys/devices/system/cpu"))
      throw std::runtime_error("fixture sysroot missing: " + src + " (see tests/data/sysroots/README.md)");
    char tmpl[] = "/tmp/nw-tune-XXXXXX";
    dir_ = mkdtemp(tmpl);
    std::filesystem::copy(src, dir_ + "/root",
                          std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  }
  ~TreeCopy() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TreeCopy(const TreeCopy&) = delete;
  TreeCopy& operator=(const TreeCopy&) = delete;

  std::string root() const { return dir_ + "/root"; }
  std::string journal() const { return dir_ + "/run/tune.json"; }  // outside the tree: snapshots ignore it
  std::string file(const std::string& abs) const {
    auto r = read_exact(root() + abs);
    return r.content.value_or("<unreadable>");
  }
  void write(const std::string& abs, const std::string& content) const {
    std::filesystem::create_directories(std::filesystem::path(root() + abs).parent_path());
    if (write_exact(root() + abs, content) != 0) {
      std::filesystem::remove(root() + abs);
      FILE* f = std::fopen((root() + abs).c_str(), "w");
      std::fputs(content.c_str(), f);
      std::fclose(f);
    }
  }
  // Every regular file under the tree and its bytes (symlinks are left out: they point outside).
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> out;
    for (auto it = std::filesystem::recursive_directory_iterator(root());
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file() || it->is_symlink()) continue;
      std::string abs = it->path().string().substr(root().size());
      out[abs] = read_exact(it->path().string()).content.value_or("");
    }
    return out;
  }

 private:
  std::string dir_;
};

// The paths whose bytes differ between two snapshots.
inline std::vector<std::string> changed_files(const std::map<std::string, std::string>& a,
                                              const std::map<std::string, std::string>& b) {
  std::vector<std::string> out;
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& k : keys) {
    auto ia = a.find(k), ib = b.find(k);
    if (ia == a.end() || ib == b.end() || ia->second != ib->second) out.push_back(k);
  }
  return out;
}

class FakeServices : public Services {
 public:
  std::map<std::string, bool> running;
  std::vector<std::string> calls;  // "stop irqbalance.service", "start ..."
  std::string refuse;              // a non-empty reason: stop fails with it
  std::string unavailable() const override { return ""; }
  bool active(const std::string& unit) override { return running[unit]; }
  std::string stop(const std::string& unit) override {
    calls.push_back("stop " + unit);
    if (!refuse.empty()) return refuse;
    running[unit] = false;
    return "";
  }
  std::string start(const std::string& unit) override {
    calls.push_back("start " + unit);
    running[unit] = true;
    return "";
  }
};

}  // namespace nw::tune::testing
