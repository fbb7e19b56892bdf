// SPDX-License-Identifier: Apache-2.0
// The report engine's entry points: what the runner and `noisewatch report` call.
// analyze() explains a run record (attribution, patterns, advice); render() turns the record and
// its analysis into one output format. Everything else in reports/ is an implementation detail.
#pragma once
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/analysis.h"

namespace nw::report {

enum class Format { text, json, markdown, html };

// The formats and their names are one table (render.cpp): the CLI's --format choices, its help
// and the tests' "every format" loops ask it, so a new format changes nothing outside reports/.

// Every format, in --help order.
std::vector<Format> all_formats();
// Every name --format accepts: each format's own name, and aliases ("md").
std::vector<std::string> format_names();
// The formats' own names for --help: "text (default) | json | markdown | html", and for a
// sentence: "text, json, markdown or html".
std::string format_choices();
std::string format_list();

// Throws nw::Error for an unknown name.
Format parse_format(const std::string& name);

// A pure function of the record's measurements. Whatever an earlier analysis left in the record
// (attribution, recommendations, report, its warnings) is ignored and replaced, so analysing a
// saved report gives the same result as analysing the run that wrote it.
Analysis analyze(const RunRecord& rec);

// The whole report in one format. `color` only matters for text. JSON is the run document of
// docs/contracts.md: the record with the analysis in its summary, attribution, recommendations,
// warnings and report fields.
std::string render(const RunRecord& rec, const Analysis& a, Format f, bool color);
// analyze() and render() in one, for a single format.
std::string render(const RunRecord& rec, Format f, bool color);

// The run document as JSON (what --format json and --json write).
nlohmann::json run_document(const RunRecord& rec, const Analysis& a);

}  // namespace nw::report
