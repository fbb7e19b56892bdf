// SPDX-License-Identifier: Apache-2.0
// The one catalogue of knobs that remove benchmark noise, shared by the report's recommendations,
// the check fixes and `noisewatch tune`:
//   recommendation: "address source S with knob K"  -> commands(get(K), ctx) and rerun(get(K), ctx)
//                   (reports/advice.cpp decides when, among the knobs whose `sources` cover S)
//   check finding:  "finding F -> fix commands"      -> fix_for_finding(F, ctx)
//   tune:           the runtime knobs' planners       -> runtime_knobs()
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "knobs/knob.h"

namespace nw::knobs {

// Every knob, runtime knobs in the order `tune` applies them (restore runs in reverse).
const std::vector<Knob>& catalogue();
const Knob* find(std::string_view id);
const Knob& get(std::string_view id);  // throws std::out_of_range for an unknown id
std::vector<const Knob*> runtime_knobs();
std::vector<const Knob*> boot_knobs();
// The sources no knob addresses, each reason stated once with the sources it is about (patterns
// as in Knob::sources). Every source of the vocabulary is covered by a knob or by one of these
// (tests/unit/knobs_catalogue_test).
struct NoKnob {
  std::vector<std::string_view> sources;
  std::string_view why;
};
const std::vector<NoKnob>& without_knob();
// Knobs that fix a `check` finding (docs/contracts.md finding ids), in catalogue order.
std::vector<const Knob*> for_finding(std::string_view finding_id);

// The commands that apply a knob by hand on the machine `c` describes. Boot knobs render the
// boot-loader edit (boot_edit) for that one parameter.
std::vector<std::string> commands(const Knob& k, const Context& c);
// The `noisewatch` command line that applies the knob to one run of the benchmark, so that a
// rerun proves what it removes: its run_flag ("noisewatch --no-aslr -- ./bench"), or for a runtime
// knob --tune limited to it (and to the knob it needs); "" for boot and manual knobs.
std::string rerun(const Knob& k, const Context& c);
// The fix of a finding: the commands of every knob for it, boot edits merged into one.
std::vector<std::string> fix_for_finding(std::string_view finding_id, const Context& c);
// One edit of GRUB_CMDLINE_LINUX that sets every given boot knob's parameter (replacing an older
// value of the same parameter), then update-grub and reboot. Always leaves at least one
// housekeeping CPU and says which in the first line.
std::vector<std::string> boot_edit(const std::vector<const Knob*>& boot, const Context& c);
// The parameters alone: "isolcpus=domain,managed_irq,2-3 nohz_full=2-3".
std::string boot_params(const std::vector<const Knob*>& boot, const std::string& isolated,
                        const std::string& housekeeping);

}  // namespace nw::knobs
