// SPDX-License-Identifier: Apache-2.0
// Renderers of a CheckReport: pure functions, one per --format.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "check/finding.h"
#include "common/formats.h"

namespace nw::check {

// A table of findings, the measured noise, the recommended CPU and the fixes. `color` adds ANSI
// colours to the statuses (the CLI asks for it only on a TTY without NO_COLOR).
std::string render_text(const CheckReport& report, bool color);

// The `noisewatch.check/1` document of docs/contracts.md (plus extra fields).
nlohmann::json render_json(const CheckReport& report);

// node_exporter textfile-collector format (valid for `promtool check metrics`).
// noisewatch_check_status{check=...}: 0 ok or info, 1 warn, 2 fail, -1 unknown (info is a fact,
// not a problem; unknown must not read as healthy). noisewatch_check_state{check,state} is 1 for
// the finding's status, so the five statuses stay distinguishable.
std::string render_prometheus(const CheckReport& report);

// Every --format of `check`: text (the default), json, prometheus.
std::span<const OutputFormat<CheckReport>> check_formats();

}  // namespace nw::check
