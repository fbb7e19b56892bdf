// SPDX-License-Identifier: Apache-2.0
#include "compare/render.h"

namespace nw::compare {

std::span<const OutputFormat<Comparison>> compare_formats() {
  static constexpr OutputFormat<Comparison> table[] = {
      {"text", "", [](const Comparison& c, bool) { return render_text(c); }},
      {"json", "noisewatch.compare/1", [](const Comparison& c, bool) { return render_json(c); }},
      {"markdown", "for a pull request", [](const Comparison& c, bool) { return render_markdown(c); }},
  };
  return table;
}

}  // namespace nw::compare
