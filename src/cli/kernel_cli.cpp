// SPDX-License-Identifier: Apache-2.0
// `noisewatch kernel`: what this kernel gives noisewatch (probes/kernel_report.h).
#include "cli/commands.h"
#include "cli/format_option.h"
#include "common/errors.h"
#include "common/output.h"
#include "probes/kernel_report.h"

namespace nw::cli {

void register_kernel(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand(
      "kernel",
      "load noisewatch's eBPF programs as each command line would and say what this kernel gives: every program's "
      "margin to the verifier's limits, a program it refuses and why, and what noisewatch measures without");
  sub->footer(
      "Examples:\n"
      "  noisewatch kernel                  will noisewatch run here, and what does it lose?\n"
      "  noisewatch kernel --format json    the same for a script (schema noisewatch.kernel/1)\n"
      "Exit status: 0 when every set-up loads within noisewatch's margins, 1 when one is refused or a program\n"
      "comes within a margin, 125 when nothing can be loaded at all (no BTF, no privileges).");
  static std::string format = "text", output;
  add_format_option(sub, format, {"text", "json"}, "text (default) | json");
  sub->add_option("-o,--output", output, "write the report to FILE instead of stdout");
  sub->callback([&action] {
    action = [] {
      check_writable(output, "--output");
      probes::KernelReport r = probes::examine_kernel();
      bool any_loaded = false, all_fine = true;
      for (const auto& s : r.setups) {
        any_loaded = any_loaded || s.loaded;
        all_fine = all_fine && s.loaded;
      }
      if (!any_loaded && !r.setups.empty()) throw Error(r.setups.front().refusal);
      for (const auto& p : r.programs) all_fine = all_fine && probes::margin_problems(p).empty();
      write_document(format == "json" ? probes::render_kernel_json(r) : probes::render_kernel_text(r), output);
      return all_fine ? 0 : 1;
    };
  });
}

}  // namespace nw::cli
