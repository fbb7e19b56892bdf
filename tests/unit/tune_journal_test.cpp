// SPDX-License-Identifier: Apache-2.0
// The tune journal: its JSON (docs/contracts.md, "noisewatch.tune/1"), write-ahead order, and
// recovery after a crash between two writes (a real process that dies with _exit, no unwinding).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/errors.h"
#include "support/tune_test_util.h"
#include "system/sysroot.h"
#include "tune/apply.h"
#include "tune/restore.h"

namespace nw::tune {
namespace {

using testing::FakeServices;
using testing::TreeCopy;

TEST(TuneJournal, JsonFollowsTheContractAndRoundTrips) {
  Journal j;
  j.created = "2026-12-01T10:00:00Z";
  j.cpus = {1};
  j.owner = {"tune apply", 42, 777};
  j.changes.push_back({"aslr-off", "/proc/sys/kernel/randomize_va_space", "", "2\n", "0\n", knobs::Format::text});
  j.changes.push_back({"transparent-hugepages", "/sys/kernel/mm/transparent_hugepage/enabled", "",
                       "always [madvise] never\n", "never\n", knobs::Format::choice});
  j.changes.push_back({"irqbalance", "", "irqbalance.service", "active", "inactive", knobs::Format::text});
  auto json = to_json(j);
  EXPECT_EQ(json["schema"], "noisewatch.tune/1");
  EXPECT_EQ(json["created"], "2026-12-01T10:00:00Z");
  EXPECT_EQ(json["cpus"], nlohmann::json::array({1}));
  EXPECT_EQ(json["changes"][0], nlohmann::json({{"knob", "aslr-off"},
                                                {"path", "/proc/sys/kernel/randomize_va_space"},
                                                {"before", "2\n"},
                                                {"after", "0\n"}}));
  EXPECT_EQ(json["changes"][1]["format"], "choice");
  EXPECT_EQ(json["changes"][2]["service"], "irqbalance.service");
  EXPECT_FALSE(json.contains("sysroot"));
  auto back = journal_from_json(json);
  EXPECT_EQ(back.changes.size(), 3u);
  EXPECT_EQ(back.changes[1].before, "always [madvise] never\n");
  EXPECT_EQ(back.changes[1].format, knobs::Format::choice);
  EXPECT_EQ(back.owner.pid, 42);
  EXPECT_EQ(back.owner.start, 777u);
}

TEST(TuneJournal, DamagedOrForeignFilesAreOneLineErrors) {
  EXPECT_THROW(journal_from_json(nlohmann::json{{"schema", "noisewatch.run/1"}}), Error);
  EXPECT_THROW(journal_from_json(nlohmann::json{{"schema", "noisewatch.tune/1"}, {"changes", {{{"knob", "x"}}}}}),
               Error);
  TreeCopy t("tune-vm-firecracker-2cpu");
  ASSERT_EQ(replace_durably(t.journal(), "{not json"), 0);
  try {
    JournalFile(t.journal()).load();
    FAIL() << "a damaged journal loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
  }
}

TEST(TuneJournal, OwnerIsThisProcessWhileItRuns) {
  auto me = Owner::self("tune apply");
  EXPECT_EQ(me.pid, int(getpid()));
  EXPECT_GT(me.start, 0u);
  EXPECT_TRUE(me.alive());
  EXPECT_FALSE(me.other());
  Owner reused = me;
  reused.start += 1;  // the same pid, another process
  EXPECT_FALSE(reused.alive());
  EXPECT_FALSE((Owner{"x", 0, 0}).alive());
}

TEST(TuneJournal, RestoreLeavesAloneATuningAnotherLiveNoisewatchHolds) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  sys::Sysroot root(t.root());
  ApplyOptions o;
  o.targets = targets_for(root, {1});
  o.selection = select_knobs({"aslr-off"}, {});
  FakeServices services;
  apply(root, JournalFile(t.journal()), services, o);
  // Hand the journal to another live process, as a running `run --tune` would hold it.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  struct Reap {  // the child never outlives the test, even when an assertion returns early
    pid_t pid;
    void now() {
      if (pid > 0) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
      pid = 0;
    }
    ~Reap() { now(); }
  } reap{child};
  auto j = *JournalFile(t.journal()).load();
  j.owner = Owner::of(int(child), "run --tune");
  JournalFile(t.journal()).save(j);
  EXPECT_TRUE(j.owner.other());
  try {
    restore(JournalFile(t.journal()), RestoreOptions{}, &services);
    ADD_FAILURE() << "restored under a live noisewatch";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is tuning this machine right now"), std::string::npos) << e.what();
  }
  EXPECT_EQ(t.file("/proc/sys/kernel/randomize_va_space"), "0\n");
  reap.now();
  EXPECT_FALSE(j.owner.alive());
  auto r = restore(JournalFile(t.journal()), RestoreOptions{}, &services);
  EXPECT_EQ(r.restored, 1);
  EXPECT_EQ(t.file("/proc/sys/kernel/randomize_va_space"), "2\n");
}

// Each change is in the journal, on disk, before its file is written.
TEST(TuneJournal, EveryChangeIsJournaledBeforeItsWrite) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  sys::Sysroot root(t.root());
  ApplyOptions o;
  o.targets = targets_for(root, {2});
  o.selection = select_knobs({"aslr-off", "transparent-hugepages", "workqueue-cpumask"}, {});
  int seen = 0;
  o.before_write = [&](const Change& c) {
    auto j = JournalFile(t.journal()).load();
    ASSERT_TRUE(j);
    ASSERT_EQ(int(j->changes.size()), ++seen);
    EXPECT_EQ(j->changes.back().path, c.path);
    // Not written yet.
    EXPECT_EQ(t.file(c.path), c.before) << c.path;
  };
  FakeServices services;
  auto r = apply(root, JournalFile(t.journal()), services, o);
  EXPECT_EQ(seen, 4);  // randomize_va_space, THP enabled and defrag, workqueue cpumask
  EXPECT_EQ(r.changes, 4);
}

// Applies in a child process that dies (_exit, no destructors) at the `crash_at`-th change,
// after the journal holds it and before the file is written.
void crash_apply(const TreeCopy& t, int crash_at) {
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    sys::Sysroot root(t.root());
    ApplyOptions o;
    o.targets = targets_for(root, {2, 3});
    o.selection = select_knobs({}, {});
    int n = 0;
    o.before_write = [&](const Change&) {
      if (++n == crash_at) _exit(42);
    };
    FakeServices services;
    apply(root, JournalFile(t.journal()), services, o);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 42) << "the apply did not reach change " << crash_at;
}

TEST(TuneJournal, CrashBetweenTwoWritesIsUndoneByteForByte) {
  for (int crash_at : {1, 2, 7}) {
    TreeCopy t("tune-epyc-smt-amd-pstate");
    auto before = t.snapshot();
    crash_apply(t, crash_at);
    auto j = JournalFile(t.journal()).load();
    ASSERT_TRUE(j) << crash_at;
    ASSERT_EQ(int(j->changes.size()), crash_at);
    // The journaled changes before the crash were made; the last one was not.
    EXPECT_EQ(testing::changed_files(before, t.snapshot()).size(), size_t(crash_at - 1)) << crash_at;
    EXPECT_FALSE(j->owner.alive());
    FakeServices services;
    auto r = restore(JournalFile(t.journal()), RestoreOptions{}, &services);
    EXPECT_TRUE(r.failures.empty()) << crash_at;
    EXPECT_EQ(r.restored, crash_at - 1);
    EXPECT_EQ(r.unchanged, 1) << "the change that was journaled but never made";
    EXPECT_EQ(testing::changed_files(before, t.snapshot()), std::vector<std::string>{}) << crash_at;
    EXPECT_FALSE(JournalFile(t.journal()).exists());
  }
}

TEST(TuneJournal, ARestoreThatFailsKeepsExactlyTheFailedValues) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  sys::Sysroot root(t.root());
  ApplyOptions o;
  o.targets = targets_for(root, {1});
  o.selection = select_knobs({"aslr-off", "timer-migration"}, {});
  FakeServices services;
  apply(root, JournalFile(t.journal()), services, o);
  // The timer_migration file turns into one that cannot be written back.
  std::filesystem::remove(t.root() + "/proc/sys/kernel/timer_migration");
  std::filesystem::create_symlink("/proc/version", t.root() + "/proc/sys/kernel/timer_migration");
  auto r = restore(JournalFile(t.journal()), RestoreOptions{}, &services);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].find("/proc/sys/kernel/timer_migration: could not put back '1'"), std::string::npos)
      << r.failures[0];
  EXPECT_EQ(t.file("/proc/sys/kernel/randomize_va_space"), "2\n");
  auto left = JournalFile(t.journal()).load();
  ASSERT_TRUE(left);
  ASSERT_EQ(left->changes.size(), 1u);
  EXPECT_EQ(left->changes[0].knob, "timer-migration");
}

}  // namespace
}  // namespace nw::tune
