// SPDX-License-Identifier: Apache-2.0
// --timeline around a session: each process run's events and spans into the recording, and at
// the end the trace file and the record's summary.
#pragma once
#include <string>

#include "probes/noise_probe.h"
#include "record/run_record.h"
#include "timeline/recording.h"

namespace nw::runner {

// After process run `process_run` (its release at start_ns, its exit at end_ns): its events from
// the probe, its span, and the spans of its windows (marks, with their entries in rec.samples).
void record_timeline(timeline::Recording& tl, probes::NoiseProbe& probe, const RunRecord& rec, int process_run,
                     bool warmup, uint64_t start_ns, uint64_t end_ns, const probes::WindowReadout* marks);

// Writes the trace file and puts the summary into the record.
void finish_timeline(timeline::Recording& tl, const probes::NoiseProbe& probe, RunRecord& rec, const std::string& file);

}  // namespace nw::runner
