// Format names and the dispatch from a record to one renderer.
#include <fmt/format.h>

#include "cli/errors.h"
#include "reports/model.h"
#include "reports/report.h"

namespace nw::report {

Format parse_format(const std::string& name) {
  if (name == "text") return Format::text;
  if (name == "json") return Format::json;
  if (name == "markdown" || name == "md") return Format::markdown;
  if (name == "html") return Format::html;
  throw Error(fmt::format("unknown report format '{}': use text, json, markdown or html", name));
}

std::string render(const RunRecord& rec, const Analysis& a, Format f, bool color) {
  switch (f) {
    case Format::json: return run_document(rec, a).dump(2) + "\n";
    case Format::text: return render_text(build_model(rec, a), color);
    case Format::markdown: return render_markdown(build_model(rec, a));
    case Format::html: return render_html(build_model(rec, a));
  }
  return {};
}

std::string render(const RunRecord& rec, Format f, bool color) { return render(rec, analyze(rec), f, color); }

}  // namespace nw::report
