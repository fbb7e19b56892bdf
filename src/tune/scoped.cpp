// SPDX-License-Identifier: Apache-2.0
#include "tune/scoped.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "common/errors.h"
#include "system/sysroot.h"
#include "tune/pending.h"
#include "tune/render.h"
#include "tune/restore.h"
#include "tune/services.h"

namespace nw::tune {

namespace {

void say(bool quiet, const std::string& text) {
  if (!quiet) fmt::print(stderr, "noisewatch: {}\n", text);
}

}  // namespace

std::string journal_path_or_default(const std::string& option) {
  return option.empty() ? default_journal_path(sys::Sysroot()) : option;
}

void recover_pending(const JournalFile& journal, bool quiet) {
  auto j = journal.load();
  if (!j) return;
  if (j->owner.other()) throw Error(pending_message(journal, *j));
  if (j->owner.command == "tune apply")
    throw Error(
        fmt::format("this machine is tuned by `noisewatch tune apply` (journal {}): run without --tune "
                    "(the tuning is in place), or undo it first with `noisewatch tune restore`",
                    journal.path()));
  say(quiet, fmt::format("restoring the tuning a killed noisewatch left behind (pid {}, `{}`, at {})", j->owner.pid,
                         j->owner.command, j->created));
  auto r = tune::restore(journal, {});
  // Failures are said even when quiet: they block what follows.
  if (!r.failures.empty()) {
    fmt::print(stderr, "{}", render_restore(r, journal.path()));
    throw Error(
        fmt::format("the earlier tuning could not be fully restored (journal {}): fix that first", journal.path()));
  }
}

ScopedTuning::ScopedTuning(const std::string& journal_path, const std::vector<int>& cpus, Selection selection,
                           std::string owner, bool quiet)
    : journal_(journal_path), quiet_(quiet) {
  recover_pending(journal_, quiet);
  sys::Sysroot live;
  ApplyOptions o;
  o.targets = targets_for(live, cpus);
  o.selection = std::move(selection);
  o.owner = std::move(owner);
  auto services = make_services(live);
  try {
    applied_ = apply(live, journal_, *services, o);
  } catch (...) {
    // A journal error half way: what was changed is in the journal; put it back now (only ours).
    auto j = journal_.load();
    if (j && j->owner.pid == int(getpid())) restore();
    restored_ = true;
    throw;
  }
  if (auto j = journal_.load()) changes_ = j->changes;
  say(quiet_, fmt::format("{} (journal {})", render_apply_brief(applied_), journal_.path()));
  // Refusals are said even when quiet: the run is less tuned than asked.
  for (const auto& f : apply_failures(applied_)) fmt::print(stderr, "noisewatch: could not tune {}\n", f);
  if (!applied_.boot_missing.empty())
    say(quiet_, fmt::format("{} boot parameter(s) need a reboot and stay as they are; see `noisewatch tune apply "
                            "--dry-run`",
                            applied_.boot_missing.size()));
}

ScopedTuning::~ScopedTuning() {
  try {
    restore();
  } catch (const std::exception& e) {
    fmt::print(stderr, "noisewatch: could not restore the tuning: {}; run `{}`\n", e.what(),
               restore_command(journal_.path()));
  }
}

bool ScopedTuning::restore() {
  if (restored_) return true;
  restored_ = true;
  auto r = tune::restore(journal_, RestoreOptions{});
  if (!r.failures.empty()) {
    fmt::print(stderr, "noisewatch: {}", render_restore(r, journal_.path()));
    return false;
  }
  if (!r.nothing)
    say(quiet_, fmt::format("tuning restored ({} value{} put back)", r.restored, r.restored == 1 ? "" : "s"));
  return true;
}

nlohmann::json ScopedTuning::summary() const {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : changes_)
    changes.push_back({{"knob", c.knob},
                       {c.service.empty() ? "path" : "service", c.service.empty() ? c.path : c.service},
                       {"before", c.before},
                       {"after", c.after}});
  nlohmann::json knobs = nlohmann::json::array();
  for (const auto& k : applied_.knobs)
    knobs.push_back({{"knob", k.knob->id}, {"outcome", outcome_name(k.outcome)}, {"message", k.message}});
  return {{"journal", journal_.path()}, {"changes", changes}, {"knobs", knobs}};
}

}  // namespace nw::tune
