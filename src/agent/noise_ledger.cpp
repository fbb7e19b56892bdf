// SPDX-License-Identifier: Apache-2.0
#include "agent/noise_ledger.h"

#include <algorithm>

#include "common/exposition.h"
#include "sources/vocabulary.h"

namespace nw::agent {

std::pair<std::string, std::string> split_source(std::string_view source) {
  auto id = sources::parse(source);
  if (id.name.empty()) id.name = id.category;  // a bare source is its own series: {steal, steal}
  return {std::move(id.category), std::move(id.name)};
}

NoiseLedger::NoiseLedger(size_t top_n) : top_n_(top_n) {}

void NoiseLedger::add(const std::vector<NoiseSample>& window) {
  // The probe may report one source several times per CPU (e.g. two tasks with the same comm).
  std::map<std::tuple<int, std::string, std::string>, Counts> merged;
  for (const auto& s : window) {
    // Normalised here, not when rendering, so that two raw names cannot become one label set.
    auto [category, name] = split_source(valid_utf8(s.source));
    auto& c = merged[{s.cpu, std::move(category), std::move(name)}];
    c.events += s.count;
    c.time_ns += s.time_ns;
  }

  // New sources compete for their category's free slots by time in this window, largest first.
  std::map<int, std::vector<std::pair<uint64_t, std::pair<std::string, std::string>>>> candidates;
  for (const auto& [key, counts] : merged) {
    const auto& [cpu, category, name] = key;
    auto& state = cpus_[cpu];
    if (!state.named.contains({category, name}) && name != kOtherSource)
      candidates[cpu].push_back({counts.time_ns, {category, name}});
  }
  for (auto& [cpu, list] : candidates) {
    auto& state = cpus_[cpu];
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [time, key] : list) {
      auto& used = state.slots_used[key.first];
      if (used >= top_n_) continue;
      state.named.emplace(key, Counts{});
      ++used;
    }
  }

  for (const auto& [key, counts] : merged) {
    const auto& [cpu, category, name] = key;
    auto& state = cpus_[cpu];
    Counts* target;
    if (auto it = state.named.find({category, name}); it != state.named.end()) {
      target = &it->second;
    } else {
      // A real source literally named "other" lands in the bucket of the same name: same meaning.
      target = &state.other[category];
      if (name != kOtherSource && state.folded.size() < kFoldedTracked)
        state.folded.insert(sources::format(category, name));
    }
    target->events += counts.events;
    target->time_ns += counts.time_ns;
  }
}

std::vector<NoiseSeries> NoiseLedger::series() const {
  std::vector<NoiseSeries> out;
  for (const auto& [cpu, state] : cpus_) {
    std::set<std::string> categories;
    for (const auto& [key, c] : state.named) categories.insert(key.first);
    for (const auto& [category, c] : state.other) categories.insert(category);
    for (const auto& category : categories) {
      for (auto it = state.named.lower_bound({category, ""}); it != state.named.end() && it->first.first == category;
           ++it)
        out.push_back({cpu, category, it->first.second, it->second.events, it->second.time_ns});
      if (auto it = state.other.find(category); it != state.other.end())
        out.push_back({cpu, category, std::string(kOtherSource), it->second.events, it->second.time_ns});
    }
  }
  return out;
}

size_t NoiseLedger::folded_sources(int cpu) const {
  auto it = cpus_.find(cpu);
  return it == cpus_.end() ? 0 : it->second.folded.size();
}

std::vector<int> NoiseLedger::cpus() const {
  std::vector<int> out;
  for (const auto& [cpu, state] : cpus_) out.push_back(cpu);
  return out;
}

}  // namespace nw::agent
