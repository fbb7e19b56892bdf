// SPDX-License-Identifier: Apache-2.0
#include "check/check_render.h"

namespace nw::check {

std::span<const OutputFormat<CheckReport>> check_formats() {
  static constexpr OutputFormat<CheckReport> table[] = {
      {"text", "", [](const CheckReport& r, bool color) { return render_text(r, color); }},
      {"json", "noisewatch.check/1", [](const CheckReport& r, bool) { return render_json(r).dump(2) + "\n"; }},
      {"prometheus", "textfile collector", [](const CheckReport& r, bool) { return render_prometheus(r); }},
  };
  return table;
}

}  // namespace nw::check
