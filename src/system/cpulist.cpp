// SPDX-License-Identifier: Apache-2.0
#include "system/cpulist.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>

#include "common/files.h"

namespace nw::sys {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int to_int(std::string_view s, std::string_view whole) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0)
    throw std::invalid_argument(fmt::format("'{}' is not a CPU list (expected e.g. 0-3,5)", whole));
  return v;
}

}  // namespace

std::vector<int> parse_cpulist(std::string_view text) {
  std::vector<int> out;
  std::string_view all = trim(text);
  std::string_view rest = all;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    // Ranges may carry a stride in kernel parameters: "0-7:2/4" is rare; plain a-b covers sysfs.
    auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(to_int(item, all));
    } else {
      int a = to_int(item.substr(0, dash), all), b = to_int(item.substr(dash + 1), all);
      if (b < a || b - a > 65536) throw std::invalid_argument(fmt::format("'{}' is not a CPU list (bad range)", all));
      for (int c = a; c <= b; ++c) out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_cpulist(const std::vector<int>& cpus) {
  std::vector<int> c = cpus;
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  std::string out;
  for (size_t i = 0; i < c.size();) {
    size_t j = i;
    while (j + 1 < c.size() && c[j + 1] == c[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", c[i]) : fmt::format("{}-{}", c[i], c[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_cpumask(std::string_view hex) {
  std::vector<int> out;
  std::string digits;
  for (char ch : trim(hex))
    if (ch != ',') digits += ch;
  int bit = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it, bit += 4) {
    int v;
    char ch = *it;
    if (ch >= '0' && ch <= '9') v = ch - '0';
    else if (ch >= 'a' && ch <= 'f') v = ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F') v = ch - 'A' + 10;
    else throw std::invalid_argument(fmt::format("'{}' is not a CPU mask", hex));
    for (int b = 0; b < 4; ++b)
      if (v & (1 << b)) out.push_back(bit + b);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::vector<int>> read_online_cpus(const std::string& root) {
  try {
    auto cpus = parse_cpulist(read_file(root + "/sys/devices/system/cpu/online"));
    if (!cpus.empty()) return cpus;
  } catch (const std::invalid_argument&) {
  }
  return std::nullopt;
}

std::string format_cpumask(const std::vector<int>& cpus) {
  if (cpus.empty()) return "0";
  int top = *std::max_element(cpus.begin(), cpus.end());
  std::vector<unsigned> nibbles(size_t(top / 4 + 1), 0);
  for (int c : cpus)
    if (c >= 0) nibbles[size_t(c / 4)] |= 1u << (c % 4);
  std::string out;
  for (size_t i = nibbles.size(); i-- > 0;) {
    out += "0123456789abcdef"[nibbles[i]];
    if (i % 8 == 0 && i != 0) out += ',';
  }
  return out;
}

}  // namespace nw::sys
