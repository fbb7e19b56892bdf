// SPDX-License-Identifier: Apache-2.0
#include "runner/window_split.h"

#include <charconv>
#include <map>

#include <fmt/format.h>

#include "runner/noise_merge.h"

namespace nw::runner {

nlohmann::json window_label(const probes::WindowMark& m) {
  if (m.label) return *m.label;
  if (m.text_label.empty()) return nullptr;
  int64_t v = 0;
  const char* b = m.text_label.data();
  const char* e = b + m.text_label.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec == std::errc() && p == e) return v;
  return m.text_label;
}

WindowSplit split_windows(const std::vector<probes::NoiseEvent>& events, const probes::WindowReadout& marks,
                          const ProcessRunInfo& info) {
  WindowSplit out;
  std::map<uint32_t, std::vector<probes::NoiseEvent>> by_window;
  for (const auto& e : events)
    if (e.window) by_window[e.window].push_back(e);
  std::vector<int> implicit, unclosed;
  for (size_t k = 0; k < marks.windows.size(); ++k) {
    const auto& m = marks.windows[k];
    if (!m.end_ns || m.end_ns < m.begin_ns) {
      unclosed.push_back(int(k));
      continue;
    }
    if (m.implicit_end) implicit.push_back(int(k));
    RunSample s;
    s.index = info.first_index + int(out.windows.size());
    s.window = int(k);
    s.process_run = info.process_run;
    s.warmup = info.warmup || int(k) < info.warmup_windows || m.harness_warmup;
    s.interrupted = info.interrupted;
    s.wall_ns = m.wall_ns();
    s.paused_ns = m.paused_ns;
    s.pauses = m.pauses;
    s.paused_in_wall = m.paused_in_wall;
    s.label = window_label(m);
    s.harness_duration_ns = m.harness_duration_ns;
    if (auto it = by_window.find(uint32_t(k + 1)); it != by_window.end()) set_noise(s, it->second);
    out.windows.push_back(std::move(s));
  }
  auto list = [](const std::vector<int>& ks) {
    std::string s;
    for (size_t i = 0; i < ks.size() && i < 5; ++i) s += (i ? ", " : "") + std::to_string(ks[i]);
    return ks.size() > 5 ? s + fmt::format(" and {} more", ks.size() - 5) : s;
  };
  const int pr = info.process_run + 1;
  if (!unclosed.empty())
    out.warnings.push_back(fmt::format("process run {}: window {} had no end marker when the process ended: left out",
                                       pr, list(unclosed)));
  if (!implicit.empty())
    out.warnings.push_back(
        fmt::format("process run {}: window {} had no end marker: it ended at the next begin", pr, list(implicit)));
  if (marks.dropped)
    out.warnings.push_back(
        fmt::format("process run {} marked {} windows more than the {} noisewatch measures per "
                    "process run: they are left out (mark fewer windows per process)",
                    pr, marks.dropped, marks.windows.size()));
  if (marks.stray_ends)
    out.warnings.push_back(
        fmt::format("process run {}: {} end marker(s) with no window open were ignored", pr, marks.stray_ends));
  return out;
}

}  // namespace nw::runner

namespace nw::runner {

size_t record_windows(RunRecord& rec, RunSample process, const std::vector<probes::NoiseEvent>& events,
                      const probes::WindowReadout& marks, int warmup_windows) {
  ProcessRunInfo info;
  info.process_run = process.process_run.value_or(process.index);
  info.warmup = process.warmup;
  info.warmup_windows = warmup_windows;
  info.interrupted = process.interrupted;
  info.first_index = int(rec.samples.size());
  WindowSplit split = split_windows(events, marks, info);
  for (auto& w : split.warnings) rec.warnings.push_back(std::move(w));
  const size_t n = split.windows.size();
  for (auto& w : split.windows) rec.samples.push_back(std::move(w));
  process.process_run = info.process_run;
  rec.process_runs.push_back(std::move(process));
  return n;
}

}  // namespace nw::runner
