// SPDX-License-Identifier: Apache-2.0
#include "knobs/knob.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "system/cpulist.h"

namespace nw::knobs {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Matches one `sources` pattern: exact, "cat:*" (any name) or "cat:prefix*".
bool matches(std::string_view pattern, std::string_view source) {
  if (!pattern.empty() && pattern.back() == '*') {
    pattern.remove_suffix(1);
    return source.substr(0, pattern.size()) == pattern;
  }
  return pattern == source;
}

}  // namespace

std::string_view scope_name(Scope s) {
  switch (s) {
    case Scope::runtime:
      return "runtime";
    case Scope::boot:
      return "boot";
    case Scope::benchmark:
      return "benchmark";
    case Scope::manual:
      return "manual";
  }
  return "?";
}

CpuSplit split_cpus(const std::vector<int>& cpus, const std::vector<int>& online) {
  CpuSplit s;
  s.isolated = cpus;
  std::sort(s.isolated.begin(), s.isolated.end());
  for (int c : online)
    if (!std::binary_search(s.isolated.begin(), s.isolated.end(), c)) s.housekeeping.push_back(c);
  if (s.housekeeping.empty() && !online.empty()) {
    // Every online CPU is a target: an isolated machine has nobody left for its own work.
    int keep = *std::min_element(online.begin(), online.end());
    s.isolated.erase(std::remove(s.isolated.begin(), s.isolated.end(), keep), s.isolated.end());
    s.housekeeping = {keep};
    s.note = fmt::format(
        "CPU {} stays for housekeeping (timers, RCU, IRQs, kernel threads): the benchmark "
        "CPUs covered every online CPU, so CPU {} is left out of the isolated set",
        keep, keep);
  } else if (!s.housekeeping.empty()) {
    s.note = fmt::format("CPU {} stay{} for housekeeping (timers, RCU, IRQs, kernel threads)",
                         sys::format_cpulist(s.housekeeping), s.housekeeping.size() == 1 ? "s" : "");
  }
  return s;
}

std::string_view format_name(Format f) {
  switch (f) {
    case Format::text:
      return "text";
    case Format::choice:
      return "choice";
    case Format::cpulist:
      return "cpulist";
    case Format::cpumask:
      return "cpumask";
  }
  return "text";
}

Format format_from_name(std::string_view name) {
  for (Format f : {Format::text, Format::choice, Format::cpulist, Format::cpumask})
    if (format_name(f) == name) return f;
  throw std::invalid_argument(fmt::format("unknown value format '{}'", name));
}

std::string value_of(Format f, std::string_view content) {
  std::string_view t = trim(content);
  try {
    switch (f) {
      case Format::text:
        return std::string(t);
      case Format::choice: {
        auto open = t.find('['), close = t.find(']');
        if (open != std::string_view::npos && close != std::string_view::npos && close > open)
          return std::string(t.substr(open + 1, close - open - 1));
        return std::string(t);
      }
      case Format::cpulist:
        return sys::format_cpulist(sys::parse_cpulist(t));
      case Format::cpumask:
        return sys::format_cpulist(sys::parse_cpumask(t));
    }
  } catch (const std::invalid_argument&) {
  }
  return std::string(t);
}

bool same_value(Format f, std::string_view content, std::string_view written) {
  return value_of(f, content) == value_of(f, written);
}

std::string restore_write(Format f, std::string_view before) {
  // The kernel renders a choice list itself; it accepts only the chosen word.
  if (f == Format::choice) return value_of(f, before) + "\n";
  return std::string(before);
}

bool Knob::addresses(std::string_view source) const {
  bool hit = false;
  for (auto p : sources) {
    if (!p.empty() && p.front() == '!') {
      if (matches(p.substr(1), source)) return false;
    } else if (matches(p, source)) {
      hit = true;
    }
  }
  return hit;
}

}  // namespace nw::knobs
