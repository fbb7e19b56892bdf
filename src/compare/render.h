// SPDX-License-Identifier: Apache-2.0
// One renderer per output format; each is a pure function of the comparison model.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/formats.h"
#include "compare/model.h"

namespace nw::compare {

std::string render_text(const Comparison& c);
std::string render_markdown(const Comparison& c);
nlohmann::ordered_json to_json(const Comparison& c);  // "noisewatch.compare/1", contract fields first
std::string render_json(const Comparison& c);         // to_json, indented, with a trailing newline
// Every --format of `compare`: text (the default), json, markdown.
std::span<const OutputFormat<Comparison>> compare_formats();

// Number formatting shared by the text and markdown renderers.
std::string format_duration(double ns);        // 4 significant digits: "13.43 ns", "12.35 ms", "870.2 ns"
std::string format_p(double p);                // "0.003", "<0.001"
std::string format_signed_points(double pts);  // "+3.8", "-0.2"

// Pieces the text and markdown renderers share, so both say the same thing.
std::string summary_sentence(const Comparison& c);   // "74 benchmarks: 2 slower, ...; geometric mean ..."
std::string change_cell(const TimingResult& t);      // "+3.81 %"
std::string p_cell(const TimingResult& t);           // Holm-adjusted p, or "—" without a test
std::string test_legend(const Comparison& c);        // which test, which correction, what "change" is
std::string test_method(const TimingResult& t);      // "exact", "normal approx.", "no test"
std::string untested_words(const Comparison& c);     // what stands for a p-value without a test
std::string cpu_note(const BenchmarkComparison& b);  // "CPU -10.0 %" when CPU time disagrees, else ""
// Details (medians, interval, explanation) are shown for benchmarks that changed, carry noise data
// or disagree on CPU time, and for a comparison of a single benchmark; the rest is the table.
bool shows_details(const Comparison& c, const BenchmarkComparison& b);
std::vector<std::string> inconclusive_names(const Comparison& c);  // grouped, not detailed one by one
std::string inconclusive_paragraph(const Comparison& c);           // "" when none
std::string fail_above_sentence(const Comparison& c);              // "" without --fail-above
// Live compare (c.live): its decision first, then what it ran, the disturbed runs and the decision
// without them, what stood in the way of a decision, a failed command; empty for files.
std::vector<std::string> live_lines(const Comparison& c);

}  // namespace nw::compare
