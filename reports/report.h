// The report engine's entry points: what the runner and `noisewatch report` call.
// analyze() explains a run record (attribution, patterns, advice); render() turns the analyzed
// record into one output format. Everything else in reports/ is an implementation detail.
#pragma once
#include <string>

#include "record/run_record.h"

namespace nw::report {

enum class Format { text, json, markdown, html };

// Throws nw::Error for an unknown name.
Format parse_format(const std::string& name);

// Fills rec.summary, rec.attribution, rec.recommendations, rec.warnings (the engine's own; any
// warnings the runner put there are kept) and rec.report (the engine's extra evidence).
// Idempotent: analyzing an analyzed record changes nothing.
void analyze(RunRecord& rec);

// Pure function of the record: the whole report in one format. `color` only matters for text.
// A record that was never analyzed is analyzed on a copy first.
std::string render(const RunRecord& rec, Format f, bool color);

}  // namespace nw::report
