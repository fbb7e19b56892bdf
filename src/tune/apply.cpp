// SPDX-License-Identifier: Apache-2.0
#include "tune/apply.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/errors.h"
#include "knobs/catalogue.h"
#include "system/cpulist.h"
#include "system/kernel_cmdline.h"
#include "system/sysroot.h"
#include "tune/boot.h"
#include "tune/file_io.h"
#include "tune/pending.h"

namespace nw::tune {

namespace {

// sysfs and procfs values are text; anything else could not be journaled byte for byte.
bool journalable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u >= 0x20 && u < 0x7f) || c == '\n' || c == '\t';
  });
}

std::string why(int err, const std::string& path) {
  bool irq = path.rfind("/proc/irq/", 0) == 0;
  switch (err) {
    case EACCES:
      return "run as root";
    case EPERM:
      return irq              ? "the kernel or the hypervisor does not let these IRQs move"
             : geteuid() == 0 ? "refused even to root"
                              : "run as root";
    case EIO:
      return irq ? "the kernel manages these IRQs (per-CPU or managed interrupts)" : "I/O error";
    case EBUSY:
      return "in use";
    case EINVAL:
      return "the kernel refused the value";
    case ENOENT:
      return "the file went away";
    default:
      return "";
  }
}

// Applies one knob's plan, journaling each change before making it.
class KnobApplier {
 public:
  KnobApplier(const sys::Sysroot& root, const JournalFile& jf, Journal& j, Services& services, const ApplyOptions& o,
              bool& journal_written)
      : root_(root), jf_(jf), j_(j), services_(services), o_(o), written_(journal_written) {}

  KnobResult run(const knobs::Knob& k) {
    KnobResult r;
    r.knob = &k;
    deferred_cpus_.clear();
    // A fresh view of the files: earlier knobs may have changed what this one reads.
    sys::Sysroot fresh(root_.root());
    knobs::Plan plan = k.plan(fresh, o_.targets);
    if (!plan.absent.empty()) {
      r.outcome = Outcome::absent;
      r.message = plan.absent;
      return r;
    }
    for (const auto& unit : plan.stop_services) stop_service(k, unit, r);
    for (const auto& w : plan.writes) write(k, w, r);
    std::string failures = failure_text();
    if (r.outcome == Outcome::absent) return r;  // services not manageable under a sysroot
    if (o_.dry_run) r.outcome = r.changed ? Outcome::planned : Outcome::already;
    else if (r.failed) r.outcome = r.changed ? Outcome::partial : Outcome::failed;
    else r.outcome = r.changed ? Outcome::applied : Outcome::already;
    std::vector<std::string> said;
    for (const auto* part : {&failures, &plan.note})
      if (!part->empty()) said.push_back(*part);
    if (r.deferred)
      said.push_back(
          fmt::format("{} IRQ{} still delivered to CPU {} (effective_affinity_list): each moves at its "
                      "next interrupt",
                      r.deferred, r.deferred == 1 ? "" : "s", deferred_cpus_));
    r.message = fmt::format("{}", fmt::join(said, "; "));
    if (r.outcome == Outcome::already && r.message.empty())
      r.message = r.unchanged == 1 ? first_unchanged_ : fmt::format("{} values already set", r.unchanged);
    return r;
  }

 private:
  void record(const Change& c) {
    j_.changes.push_back(c);
    jf_.save(j_);
    written_ = true;
    if (o_.before_write) o_.before_write(c);
  }
  void unrecord() {
    j_.changes.pop_back();
    jf_.save(j_);
  }

  void stop_service(const knobs::Knob& k, const std::string& unit, KnobResult& r) {
    if (auto why_not = services_.unavailable(); !why_not.empty()) {
      if (!root_.live()) {
        r.outcome = Outcome::absent;
        r.message = why_not;
      } else {
        ++r.failed;
        other_failures_.push_back(fmt::format("{} runs but cannot be stopped: {}", unit, why_not));
      }
      return;
    }
    if (!services_.active(unit)) {
      ++r.unchanged;
      return;
    }
    r.details.push_back(fmt::format("{}: active -> stopped", unit));
    if (o_.dry_run) {
      ++r.changed;
      return;
    }
    record({std::string(k.id), "", unit, "active", "inactive", knobs::Format::text});
    if (auto err = services_.stop(unit); !err.empty()) {
      unrecord();
      r.details.pop_back();
      ++r.failed;
      other_failures_.push_back(err);
      return;
    }
    ++r.changed;
  }

  void write(const knobs::Knob& k, const knobs::Write& w, KnobResult& r) {
    std::string real = root_.path(w.path);
    auto before = read_exact(real);
    if (!before.content) {
      fail(r, before.err, w.path);
      return;
    }
    if (knobs::same_value(w.format, *before.content, w.value)) {
      ++r.unchanged;
      if (r.unchanged == 1)
        first_unchanged_ = fmt::format("{} is {}", w.path, knobs::value_of(w.format, *before.content));
      return;
    }
    if (!journalable(*before.content)) {
      ++r.failed;
      other_failures_.push_back(fmt::format("{} holds binary content: left alone", w.path));
      return;
    }
    auto shown = [&](const std::string& s) { return knobs::value_of(w.format, s); };
    if (o_.dry_run) {
      ++r.changed;
      r.details.push_back(fmt::format("{}: {} -> {}", w.path, shown(*before.content), shown(w.value)));
      return;
    }
    record({std::string(k.id), w.path, "", *before.content, w.value, w.format});
    int err = write_exact(real, w.value);
    auto after = read_exact(real);
    if (err) {
      // Refused and untouched: nothing to put back.
      if (after.content == before.content) unrecord();
      fail(r, err, w.path);
      return;
    }
    ++r.changed;
    std::string now = after.content ? shown(*after.content) : "?";
    std::string line = fmt::format("{}: {} -> {}", w.path, shown(*before.content), now);
    if (after.content && !knobs::same_value(w.format, *after.content, w.value))
      line += fmt::format(" (wrote {}, the kernel kept {})", shown(w.value), now);
    else if (auto still = still_on_targets(w)) {
      ++r.deferred;
      if (deferred_cpus_.empty()) deferred_cpus_ = *still;
      line += fmt::format(" (still delivered to CPU {} until its next interrupt)", *still);
    }
    r.details.push_back(line);
  }

  // The CPUs among the targets that a written value's effective file still names, if any: the
  // kernel acts on some writes later (an IO-APIC IRQ moves when it next fires).
  std::optional<std::string> still_on_targets(const knobs::Write& w) const {
    if (w.effective.empty()) return std::nullopt;
    auto text = root_.read_line(w.effective);
    if (!text) return std::nullopt;
    std::vector<int> now, still;
    try {
      now = sys::parse_cpulist(*text);
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
    for (int c : now)
      if (std::find(o_.targets.cpus.begin(), o_.targets.cpus.end(), c) != o_.targets.cpus.end()) still.push_back(c);
    if (still.empty()) return std::nullopt;
    return sys::format_cpulist(still);
  }

  void fail(KnobResult& r, int err, const std::string& path) {
    ++r.failed;
    auto& paths = failures_[err];
    paths.push_back(path);
  }

  // "EPERM (Operation not permitted) on 19 files (/proc/irq/24/..., ...): the kernel or ..."
  std::string failure_text() {
    std::vector<std::string> parts = other_failures_;
    for (const auto& [err, paths] : failures_) {
      std::string which =
          paths.size() == 1 ? paths.front() : fmt::format("{} files ({}, ...)", paths.size(), paths.front());
      std::string hint = why(err, paths.front());
      parts.push_back(hint.empty() ? fmt::format("{} on {}", errno_text(err), which)
                                   : fmt::format("{} on {}: {}", errno_text(err), which, hint));
    }
    failures_.clear();
    other_failures_.clear();
    return fmt::format("{}", fmt::join(parts, "; "));
  }

  const sys::Sysroot& root_;
  const JournalFile& jf_;
  Journal& j_;
  Services& services_;
  const ApplyOptions& o_;
  bool& written_;
  std::map<int, std::vector<std::string>> failures_;
  std::vector<std::string> other_failures_;
  std::string first_unchanged_;
  std::string deferred_cpus_;
};

}  // namespace

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::applied:
      return "applied";
    case Outcome::already:
      return "already";
    case Outcome::absent:
      return "absent";
    case Outcome::partial:
      return "partial";
    case Outcome::failed:
      return "failed";
    case Outcome::planned:
      return "planned";
  }
  return "?";
}

bool ApplyResult::any_failed() const {
  return std::any_of(knobs.begin(), knobs.end(),
                     [](const KnobResult& r) { return r.outcome == Outcome::failed || r.outcome == Outcome::partial; });
}

ApplyResult apply(const sys::Sysroot& root, const JournalFile& journal, Services& services, const ApplyOptions& o) {
  if (!o.dry_run)
    if (auto pending = journal.load()) throw Error(pending_message(journal, *pending));
  ApplyResult out;
  Journal j{utc_now(), o.targets.cpus, root.root(), Owner::self(o.owner), {}};
  KnobApplier applier(root, journal, j, services, o, out.journal_written);
  for (const knobs::Knob* k : o.selection.runtime) out.knobs.push_back(applier.run(*k));
  out.changes = int(j.changes.size());
  // Every change was refused and taken back out: there is nothing to restore.
  if (out.journal_written && j.changes.empty()) {
    journal.remove();
    out.journal_written = false;
  }

  auto cmdline = sys::read_kernel_cmdline(root);
  for (const knobs::Knob* k : o.selection.boot)
    if (!cmdline || !boot_param_in_effect(*k, *cmdline, o.targets)) out.boot_missing.push_back(k);
  if (!out.boot_missing.empty()) {
    knobs::Context c;
    c.cpus = o.targets.cpus;
    c.online = o.targets.online;
    out.boot_edit = knobs::boot_edit(out.boot_missing, c);
  }
  return out;
}

}  // namespace nw::tune
