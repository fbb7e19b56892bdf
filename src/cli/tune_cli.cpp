// SPDX-License-Identifier: Apache-2.0
// `noisewatch tune apply|restore|status|list|prove`: set the runtime knobs of the catalogue for
// benchmarking, prove the gain, and put every value back exactly.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "common/errors.h"
#include "system/sysroot.h"
#include "tune/apply.h"
#include "tune/prove.h"
#include "tune/render.h"
#include "tune/restore.h"
#include "tune/selection.h"
#include "tune/status.h"

namespace nw::cli {

namespace {

struct TuneArgs {
  std::string cpu, only, skip, journal, sysroot, json;
  bool dry_run = false, quiet = false;
  int runs = 10, warmup = 1;
};

// The sysroot as an absolute path, so that the journal names it the same from any directory.
sys::Sysroot make_root(const std::string& dir) {
  if (dir.empty()) return sys::Sysroot();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw Error(fmt::format("--sysroot {}: not a directory (expected a copy of /proc and /sys)", dir));
  return sys::Sysroot(std::filesystem::absolute(dir).lexically_normal().string());
}

tune::JournalFile journal_for(const TuneArgs& a, const sys::Sysroot& root) {
  return tune::JournalFile(a.journal.empty() ? tune::default_journal_path(root) : a.journal);
}

void require_root(const sys::Sysroot& root, const char* what) {
  if (root.live() && geteuid() != 0)
    throw Error(
        fmt::format("{} changes /proc and /sys: run it as root (sudo noisewatch tune ...), or try "
                    "--dry-run first",
                    what));
}

void print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

int do_apply(const TuneArgs& a) {
  auto root = make_root(a.sysroot);
  tune::ApplyOptions o;
  o.selection = tune::select_knobs(tune::split_ids(a.only), tune::split_ids(a.skip));
  o.targets = tune::make_targets(root, a.cpu);
  o.dry_run = a.dry_run;
  if (!a.dry_run) require_root(root, "tune apply");
  auto journal = journal_for(a, root);
  auto services = tune::make_services(root);
  auto result = tune::apply(root, journal, *services, o);
  print(tune::render_apply(result, o, journal.path()));
  // A knob asked for by name that does not exist here was not applied either.
  bool named_absent = !a.only.empty() && std::any_of(result.knobs.begin(), result.knobs.end(),
                                                     [](const auto& k) { return k.outcome == tune::Outcome::absent; });
  return result.any_failed() || named_absent ? 1 : 0;
}

int do_restore(const TuneArgs& a) {
  auto root = make_root(a.sysroot);
  auto journal = journal_for(a, root);
  if (journal.exists()) require_root(root, "tune restore");
  tune::RestoreOptions o;
  o.sysroot = root.root();
  o.sysroot_given = !a.sysroot.empty();
  auto result = tune::restore(journal, o);
  print(tune::render_restore(result, journal.path()));
  return result.failures.empty() ? 0 : 1;
}

int do_status(const TuneArgs& a) {
  auto root = make_root(a.sysroot);
  auto journal = journal_for(a, root).load();
  // The CPUs a pending tuning was applied for, unless --cpu asks about others.
  auto targets = a.cpu.empty() && journal && !journal->cpus.empty() ? tune::targets_for(root, journal->cpus)
                                                                    : tune::make_targets(root, a.cpu);
  print(tune::render_status(tune::status(root, targets, journal), journal_for(a, root).path()));
  return 0;
}

void add_selection(CLI::App* sub, TuneArgs& a) {
  sub->add_option("--only", a.only, "apply only these knobs, comma-separated ids (see `noisewatch tune list`)")
      ->type_name("KNOBS");
  sub->add_option("--skip", a.skip, "leave these knobs alone, comma-separated ids")->type_name("KNOBS");
}

void add_journal(CLI::App* sub, TuneArgs& a) {
  sub->add_option("--journal", a.journal, "the journal of the changes (default /run/noisewatch/tune.json)")
      ->type_name("FILE");
}

void add_sysroot(CLI::App* sub, TuneArgs& a) {
  sub->add_option("--sysroot", a.sysroot, "work on a writable copy of /proc and /sys under DIR, not the machine")
      ->type_name("DIR");
}

}  // namespace

void register_tune(CLI::App& app, Action& action) {
  auto args = std::make_shared<TuneArgs>();
  auto* tune = app.add_subcommand(
      "tune",
      "Tune this machine for benchmarking, prove the gain, and put every value back exactly.\n"
      "  noisewatch tune apply --dry-run        what would change, for the CPU `run` would pick\n"
      "  sudo noisewatch tune apply --cpu 3     performance governor, turbo off, IRQs away from CPU 3, ...\n"
      "  sudo noisewatch tune status            each knob: now, tuned, restore pending?\n"
      "  sudo noisewatch tune restore           every value back as it was, byte for byte\n"
      "  sudo noisewatch tune prove -- ./bench  10 runs as is, 10 tuned, restored; the comparison");
  tune->require_subcommand(0, 1);

  auto* apply = tune->add_subcommand(
      "apply",
      "Apply every runtime knob that helps benchmarking on the target CPUs, journaling each old value first.\n"
      "  sudo noisewatch tune apply --cpu 2-3 --skip transparent-hugepages\n"
      "  sudo noisewatch tune apply --only smt-off,aslr-off\n"
      "Exit 0 when every knob was applied (or needed nothing, or does not exist here), 1 when a knob was\n"
      "refused (the others are applied and restorable).");
  apply->add_option("-c,--cpu", args->cpu, "benchmark CPU(s), e.g. 3 or 2-3 (default: the CPU `run` would pick)");
  add_selection(apply, *args);
  apply->add_flag("--dry-run", args->dry_run, "print what would change; change nothing");
  add_journal(apply, *args);
  add_sysroot(apply, *args);
  apply->callback([args, &action] { action = [args] { return do_apply(*args); }; });

  auto* restore = tune->add_subcommand(
      "restore",
      "Put back every value of the journal, in reverse order, and remove it (\"nothing to restore\" without one).\n"
      "  sudo noisewatch tune restore");
  add_journal(restore, *args);
  add_sysroot(restore, *args);
  restore->callback([args, &action] { action = [args] { return do_restore(*args); }; });

  auto* status = tune->add_subcommand("status", "Each knob's value now and tuned, and whether a restore is pending.");
  status->add_option("-c,--cpu", args->cpu,
                     "benchmark CPU(s) (default: those of the pending tuning, or the CPU "
                     "`run` would pick)");
  add_journal(status, *args);
  add_sysroot(status, *args);
  status->callback([args, &action] { action = [args] { return do_status(*args); }; });

  auto* list = tune->add_subcommand("list", "The knob catalogue: every knob, what it removes and what it costs.");
  list->callback([&action] {
    action = [] {
      print(tune::render_catalogue());
      return 0;
    };
  });

  auto* prove = tune->add_subcommand(
      "prove",
      "Run the benchmark N times as the machine is, N times tuned, restore, and compare the two halves.\n"
      "  sudo noisewatch tune prove --runs 20 -- ./bench --size 1M\n"
      "  sudo noisewatch tune prove --json prove.json --skip smt-off -- ./bench");
  prove->add_option("-r,--runs", args->runs, "measured repetitions per half")->capture_default_str();
  prove->add_option("-w,--warmup", args->warmup, "unmeasured repetitions first, per half")->capture_default_str();
  prove->add_option("-c,--cpu", args->cpu, "benchmark CPU(s) (default: the CPU `run` would pick)");
  add_selection(prove, *args);
  add_journal(prove, *args);
  prove->add_option("--json", args->json, "write both halves and the comparison to FILE ('-' for stdout)")
      ->type_name("FILE");
  prove->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  prove->prefix_command();
  prove->callback([prove, args, &action] {
    auto command = benchmark_command(prove, "noisewatch tune prove --help");
    action = [args, command] {
      tune::ProveArgs p{command,    args->cpu,  args->only,   args->skip, args->journal,
                        args->json, args->runs, args->warmup, args->quiet};
      return tune::prove(p);
    };
  });

  tune->callback([tune, &action] {
    if (!action)
      action = [tune] {
        print(tune->help());
        return 0;
      };
  });
}

}  // namespace nw::cli
