// SPDX-License-Identifier: Apache-2.0
// Format names and the dispatch from a record to one renderer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "reports/model.h"
#include "reports/report.h"

namespace nw::report {

namespace {

// One row per name --format accepts: a format's own name first, then its aliases.
struct FormatName {
  const char* name;
  Format format;
  bool alias = false;
};
constexpr FormatName kFormatNames[] = {
    {"text", Format::text},         {"json", Format::json}, {"markdown", Format::markdown},
    {"md", Format::markdown, true}, {"html", Format::html},
};

std::vector<std::string> own_names() {
  std::vector<std::string> out;
  for (const auto& n : kFormatNames)
    if (!n.alias) out.push_back(n.name);
  return out;
}

}  // namespace

std::vector<Format> all_formats() {
  std::vector<Format> out;
  for (const auto& n : kFormatNames)
    if (!n.alias) out.push_back(n.format);
  return out;
}

std::vector<std::string> format_names() {
  std::vector<std::string> out;
  for (const auto& n : kFormatNames) out.push_back(n.name);
  return out;
}

std::string format_choices() {
  auto names = own_names();
  names.front() += " (default)";
  return fmt::format("{}", fmt::join(names, " | "));
}

std::string format_list() {
  auto names = own_names();
  std::string last = names.back();
  names.pop_back();
  return fmt::format("{} or {}", fmt::join(names, ", "), last);
}

Format parse_format(const std::string& name) {
  for (const auto& n : kFormatNames)
    if (name == n.name) return n.format;
  throw Error(fmt::format("unknown report format '{}': use {}", name, format_list()));
}

std::string render(const RunRecord& rec, const Analysis& a, Format f, bool color) {
  switch (f) {
    case Format::json:
      return run_document(rec, a).dump(2) + "\n";
    case Format::text:
      return render_text(build_model(rec, a), color);
    case Format::markdown:
      return render_markdown(build_model(rec, a));
    case Format::html:
      return render_html(build_model(rec, a));
  }
  return {};
}

std::string render(const RunRecord& rec, Format f, bool color) { return render(rec, analyze(rec), f, color); }

}  // namespace nw::report
