// SPDX-License-Identifier: Apache-2.0
#include "tune/render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knobs/catalogue.h"
#include "system/cpulist.h"
#include "tune/pending.h"

namespace nw::tune {

namespace {

constexpr size_t kDetailsShown = 4;
constexpr size_t kRestoredShown = 8;
constexpr int kIdWidth = 22;

std::string cpus_line(const knobs::Targets& t) {
  return fmt::format("benchmark CPU {}, housekeeping CPU {}", sys::format_cpulist(t.cpus),
                     t.housekeeping.empty() ? "none" : sys::format_cpulist(t.housekeeping));
}

std::string label(Outcome o) {
  switch (o) {
    case Outcome::absent:
      return "n/a";
    case Outcome::failed:
      return "FAILED";
    case Outcome::partial:
      return "PARTIAL";
    case Outcome::planned:
      return "would set";
    default:
      return std::string(outcome_name(o));
  }
}

}  // namespace

std::string render_apply(const ApplyResult& r, const ApplyOptions& o, const std::string& journal_path) {
  std::string out = fmt::format("noisewatch tune{}: {}{}\n", o.dry_run ? " --dry-run (nothing is changed)" : "",
                                cpus_line(o.targets), o.dry_run ? "" : fmt::format(" (journal {})", journal_path));
  const std::string indent(2 + 10 + 1 + kIdWidth + 1, ' ');
  for (const auto& k : r.knobs) {
    std::string first = k.details.empty() ? k.message : k.details.front();
    out += fmt::format("  {:<10} {:<{}} {}\n", label(k.outcome), k.knob->id, kIdWidth, first);
    size_t shown = 1;
    for (; shown < k.details.size() && shown < kDetailsShown; ++shown) out += indent + k.details[shown] + "\n";
    if (k.details.size() > shown) out += indent + fmt::format("... and {} more\n", k.details.size() - shown);
    if (!k.details.empty() && !k.message.empty()) out += indent + k.message + "\n";
  }
  for (const auto& note : o.selection.notes) out += fmt::format("  {:<10} {}\n", "left out", note);
  if (!r.boot_missing.empty()) {
    std::vector<std::string_view> ids;
    for (const auto* k : r.boot_missing) ids.push_back(k->id);
    out += fmt::format(
        "Boot parameters ({}): the kernel reads them only at boot, so they cannot be applied now. "
        "To make them permanent:\n",
        fmt::join(ids, ", "));
    for (const auto& line : r.boot_edit) out += "  " + line + "\n";
  }
  if (o.dry_run) return out;
  if (r.changes)
    out += fmt::format("{} value{} changed; undo with: {}\n", r.changes, r.changes == 1 ? "" : "s",
                       restore_command(journal_path));
  else out += "Nothing was changed: no journal written.\n";
  return out;
}

std::string render_apply_brief(const ApplyResult& r) {
  std::vector<std::string> applied, absent;
  for (const auto& k : r.knobs) {
    std::string id(k.knob->id);
    if (k.outcome == Outcome::applied) applied.push_back(id);
    else if (k.outcome == Outcome::partial) applied.push_back(id + " (partly)");
    if (k.outcome == Outcome::absent) absent.push_back(id);
  }
  std::string out = fmt::format("tuned {} value{}: {}", r.changes, r.changes == 1 ? "" : "s",
                                applied.empty() ? "nothing to change" : fmt::format("{}", fmt::join(applied, ", ")));
  if (!absent.empty()) out += fmt::format("; not on this machine: {}", fmt::join(absent, ", "));
  return out;
}

std::vector<std::string> apply_failures(const ApplyResult& r) {
  std::vector<std::string> out;
  for (const auto& k : r.knobs)
    if (k.outcome == Outcome::failed || k.outcome == Outcome::partial)
      out.push_back(fmt::format("{}: {}", k.knob->id, k.message));
  return out;
}

std::string render_restore(const RestoreResult& r, const std::string& journal_path) {
  if (r.nothing) return fmt::format("noisewatch tune restore: nothing to restore (no journal {})\n", journal_path);
  std::string out = fmt::format("noisewatch tune restore: {} value{} put back{} (journal {})\n", r.restored,
                                r.restored == 1 ? "" : "s",
                                r.unchanged ? fmt::format(", {} already as before", r.unchanged) : "", journal_path);
  // Files of one directory (the IRQs) are summed up beyond a few.
  for (size_t i = 0; i < r.details.size() && i < kRestoredShown; ++i) out += "  " + r.details[i] + "\n";
  if (r.details.size() > kRestoredShown) out += fmt::format("  ... and {} more\n", r.details.size() - kRestoredShown);
  for (const auto& f : r.failures) out += "  FAILED " + f + "\n";
  if (!r.failures.empty())
    out += fmt::format("The journal keeps the {} value{} not restored: fix the cause, then run `{}` again.\n",
                       r.failures.size(), r.failures.size() == 1 ? "" : "s", restore_command(journal_path));
  return out;
}

std::string render_status(const StatusResult& s, const std::string& journal_path) {
  std::string out = fmt::format("noisewatch tune status: {}\n", cpus_line(s.targets));
  if (s.journal)
    out += fmt::format("Restore pending: {} value{} changed by `{}` at {} (journal {}); `{}` puts them back.\n",
                       s.journal->changes.size(), s.journal->changes.size() == 1 ? "" : "s", s.journal->owner.command,
                       s.journal->created, journal_path, restore_command(journal_path));
  else out += "No restore pending (no journal " + journal_path + ").\n";
  out += fmt::format("  {:<{}} {:<10} {:<24} {:<24} {}\n", "knob", kIdWidth, "state", "now", "tuned", "note");
  for (const auto& row : s.rows) {
    std::string state(state_name(row.state));
    if (row.pending) state += "*";
    out += fmt::format("  {:<{}} {:<10} {:<24} {:<24} {}\n", row.knob->id, kIdWidth, state, row.current, row.tuned,
                       row.note);
  }
  if (s.journal) out += "  * changed by the pending tuning\n";
  return out;
}

std::string render_catalogue() {
  std::string out = "The knob catalogue (noisewatch tune applies the runtime ones; see docs/guide.md, \"Tune\"):\n";
  for (const auto& k : knobs::catalogue()) {
    std::string how(knobs::scope_name(k.scope));
    if (!k.run_flag.empty()) how += ", run " + std::string(k.run_flag);
    if (k.opt_in) how += ", only when asked";
    out += fmt::format("  {:<{}} [{}] {}\n  {:<{}} removes: {}\n  {:<{}} costs: {}\n", k.id, kIdWidth, how, k.title, "",
                       kIdWidth, k.removes, "", kIdWidth, k.tradeoff);
  }
  return out;
}

}  // namespace nw::tune
