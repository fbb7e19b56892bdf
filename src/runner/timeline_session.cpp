// SPDX-License-Identifier: Apache-2.0
#include "runner/timeline_session.h"

#include <fmt/format.h>

#include "common/shell_words.h"
#include "runner/window_split.h"
#include "timeline/summarize.h"
#include "timeline/trace_writer.h"

namespace nw::runner {

void record_timeline(timeline::Recording& tl, probes::NoiseProbe& probe, const RunRecord& rec, int process_run,
                     bool warmup, uint64_t start_ns, uint64_t end_ns, const probes::WindowReadout* marks) {
  auto events = probe.drain_timeline();
  if (marks)
    for (auto& e : events) e.window = marks->window_of(e.window);
  timeline::add_events(tl, std::move(events), process_run);
  timeline::Span run;
  run.start_ns = start_ns;
  run.end_ns = end_ns;
  run.process_run = process_run;
  run.warmup = warmup;
  if (!marks) {
    for (size_t i = 0; i < rec.samples.size(); ++i)
      if (rec.samples[i].index == process_run && !rec.samples[i].window) run.entry = int(i);
    tl.spans.push_back(run);
    return;
  }
  tl.spans.push_back(run);
  std::vector<int> entry(marks->windows.size(), -1);
  for (size_t i = 0; i < rec.samples.size(); ++i) {
    const auto& r = rec.samples[i];
    if (r.window && r.process_run == process_run && size_t(*r.window) < entry.size()) entry[size_t(*r.window)] = int(i);
  }
  for (size_t k = 0; k < marks->windows.size(); ++k) {
    const auto& m = marks->windows[k];
    timeline::Span w;
    w.start_ns = m.begin_ns;
    w.end_ns = m.end_ns ? m.end_ns : end_ns;
    w.process_run = process_run;
    w.window = int(k);
    auto label = window_label(m);
    if (!label.is_null()) w.label = label.is_string() ? label.get<std::string>() : label.dump();
    w.entry = entry[k];
    w.warmup = w.entry >= 0 ? rec.samples[size_t(w.entry)].warmup : warmup;
    tl.spans.push_back(std::move(w));
  }
}

void finish_timeline(timeline::Recording& tl, const probes::NoiseProbe& probe, RunRecord& rec,
                     const std::string& file) {
  auto drops = probe.timeline_drops();
  tl.dropped_rate = drops.rate;
  tl.dropped_full = drops.full;
  timeline::write_trace(file, tl, shell_command(rec.command));
  rec.timeline = timeline::summarize(tl, file);
  if (uint64_t dropped = rec.timeline->dropped())
    rec.warnings.push_back(fmt::format(
        "the timeline dropped {} event(s) above its threshold ({} over the per-CPU rate bound, {} for a full ring "
        "buffer, {} past what noisewatch keeps): the trace is incomplete there; a higher --timeline-threshold keeps "
        "fewer, longer events",
        dropped, tl.dropped_rate, tl.dropped_full, tl.dropped_cap));
}

}  // namespace nw::runner
