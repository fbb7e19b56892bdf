// One renderer per output format; each is a pure function of the comparison model.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "compare/model.h"

namespace nw::compare {

std::string render_text(const Comparison& c);
std::string render_markdown(const Comparison& c);
nlohmann::ordered_json to_json(const Comparison& c);  // "noisewatch.compare/1", contract fields first
std::string render_json(const Comparison& c); // to_json, indented, with a trailing newline

// Number formatting shared by the text and markdown renderers.
std::string format_duration(double ns);       // "12.35 ms", "870 ns"
std::string format_p(double p);               // "0.003", "<0.001"
std::string format_signed_points(double pts); // "+3.8", "-0.2"

}  // namespace nw::compare
