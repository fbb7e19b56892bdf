// SPDX-License-Identifier: Apache-2.0
#include "check/check_render.h"

namespace nw::check {

nlohmann::json render_json(const CheckReport& report) {
  nlohmann::json j;
  j["schema"] = "noisewatch.check/1";
  j["version"] = NOISEWATCH_VERSION;
  j["sysroot"] = report.sysroot.empty() ? nlohmann::json(nullptr) : nlohmann::json(report.sysroot);
  j["target_cpus"] = report.target_cpus;
  j["unavailable_cpus"] = report.unavailable_cpus;
  j["findings"] = nlohmann::json::array();
  for (const auto& f : report.findings) {
    nlohmann::json jf = {{"id", f.id},
                         {"status", std::string(to_string(f.status))},
                         {"cpus", f.cpus},
                         {"summary", f.summary},
                         {"fix", f.fix}};
    if (!f.detail.is_null()) jf["detail"] = f.detail;
    j["findings"].push_back(jf);
  }
  j["cpus"] = nlohmann::json::array();
  for (const auto& c : report.cpus) {
    nlohmann::json jc = {{"cpu", c.cpu},   {"noise_ppm", c.noise_ppm}, {"max_gap_ns", c.max_gap_ns},
                         {"gaps", c.gaps}, {"gap_ns", c.gap_ns},       {"measured_ns", c.measured_ns}};
    if (c.attributed_ns) jc["attributed_ns"] = *c.attributed_ns;
    if (!c.top_sources.empty()) {
      jc["top_sources"] = nlohmann::json::array();
      for (const auto& s : c.top_sources)
        jc["top_sources"].push_back(
            {{"source", s.source}, {"count", s.count}, {"time_ns", s.time_ns}, {"max_ns", s.max_ns}});
    }
    j["cpus"].push_back(jc);
  }
  j["recommended_cpu"] = report.recommended_cpu ? nlohmann::json(*report.recommended_cpu) : nlohmann::json(nullptr);
  if (!report.recommendation_reason.empty()) j["recommendation_reason"] = report.recommendation_reason;
  if (!report.notes.empty()) j["notes"] = report.notes;
  j["exit_status"] = report.exit_status();
  return j;
}

}  // namespace nw::check
