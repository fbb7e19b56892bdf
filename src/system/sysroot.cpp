// SPDX-License-Identifier: Apache-2.0
#include "system/sysroot.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "common/errors.h"

namespace fs = std::filesystem;

namespace nw::sys {

Sysroot::Sysroot(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

std::string Sysroot::path(std::string_view abs) const { return root_ + std::string(abs); }

std::optional<std::string> Sysroot::read(std::string_view abs) const {
  std::string key(abs);
  if (auto it = files_.find(key); it != files_.end()) return it->second;
  std::error_code ec;
  if (!fs::is_regular_file(path(abs), ec)) return std::nullopt;
  std::ifstream f(path(abs), std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  // sysfs reports some errors (EIO, ENODEV) only on read: treat them as absent.
  if (f.bad()) return std::nullopt;
  files_[key] = ss.str();
  return files_[key];
}

std::optional<std::string> Sysroot::read_line(std::string_view abs) const {
  auto text = read(abs);
  if (!text) return std::nullopt;
  std::string line = text->substr(0, text->find('\n'));
  auto b = line.find_first_not_of(" \t");
  if (b == std::string::npos) return std::string();
  auto e = line.find_last_not_of(" \t\r");
  return line.substr(b, e - b + 1);
}

std::optional<long long> Sysroot::read_int(std::string_view abs) const {
  auto line = read_line(abs);
  if (!line || line->empty()) return std::nullopt;
  try {
    size_t used = 0;
    long long v = std::stoll(*line, &used);
    if (used != line->size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool Sysroot::exists(std::string_view abs) const {
  // Presence is an input too: record it so that the snapshot reproduces it.
  if (is_dir(abs)) return true;
  return read(abs).has_value();
}

bool Sysroot::is_dir(std::string_view abs) const {
  std::error_code ec;
  bool d = fs::is_directory(path(abs), ec);
  if (d) dirs_.insert(std::string(abs));
  return d;
}

std::vector<std::string> Sysroot::list_dir(std::string_view abs) const {
  if (auto it = listings_.find(std::string(abs)); it != listings_.end()) return it->second;
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(path(abs), ec), end;
  if (ec) return names;
  dirs_.insert(std::string(abs));
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  listings_[std::string(abs)] = names;
  return names;
}

void Sysroot::record_tree(std::string_view abs, int depth) const {
  std::string base(abs);
  for (const auto& name : list_dir(base)) {
    std::string p = base + "/" + name;
    std::error_code ec;
    auto st = fs::symlink_status(path(p), ec);
    if (ec) continue;
    if (fs::is_regular_file(st)) {
      read(p);
    } else if (fs::is_directory(st) && depth > 1) {
      record_tree(p, depth - 1);
    }
  }
}

void write_snapshot(const Sysroot& src, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cannot create {}: {}; choose a writable directory", dir, ec.message()));
  for (const auto& d : src.dirs_listed()) {
    fs::create_directories(dir + d, ec);
    if (ec) throw Error(fmt::format("cannot create {}{}: {}", dir, d, ec.message()));
  }
  for (const auto& [p, content] : src.files_read()) {
    fs::path out = dir + p;
    fs::create_directories(out.parent_path(), ec);
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    if (!f || !f.write(content.data(), std::streamsize(content.size())))
      throw Error(
          fmt::format("cannot write {}: {}; check the free space and permissions", out.string(), std::strerror(errno)));
  }
}

}  // namespace nw::sys
