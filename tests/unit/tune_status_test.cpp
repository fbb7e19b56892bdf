// SPDX-License-Identifier: Apache-2.0
// `tune status`: each knob's value now and tuned, on fixture trees before and after an apply.
#include <gtest/gtest.h>

#include "support/tune_test_util.h"
#include "system/sysroot.h"
#include "tune/apply.h"
#include "tune/render.h"
#include "tune/status.h"

namespace nw::tune {
namespace {

using testing::FakeServices;
using testing::TreeCopy;

const StatusRow& row(const StatusResult& s, const std::string& id) {
  for (const auto& r : s.rows)
    if (r.knob->id == id) return r;
  throw std::runtime_error("no row " + id);
}

TEST(TuneStatus, LaptopBeforeAndAfterApply) {
  TreeCopy t("laptop-hybrid-untuned");
  sys::Sysroot root(t.root());
  auto targets = targets_for(root, {2});
  auto before = status(root, targets, std::nullopt);
  EXPECT_EQ(row(before, "aslr-off").state, State::untuned);
  EXPECT_EQ(row(before, "aslr-off").current, "2");
  EXPECT_EQ(row(before, "aslr-off").tuned, "0");
  EXPECT_EQ(row(before, "numa-balancing").state, State::tuned);
  EXPECT_EQ(row(before, "transparent-hugepages").current, "madvise");
  EXPECT_EQ(row(before, "performance-governor").current, "powersave, balance_performance");
  EXPECT_EQ(row(before, "irqbalance").current, "irqbalance.service running");
  EXPECT_EQ(row(before, "isolcpus").state, State::untuned);
  EXPECT_EQ(row(before, "isolcpus").current, "unset");
  EXPECT_EQ(row(before, "isolcpus").tuned, "isolcpus=domain,managed_irq,2");

  ApplyOptions o;
  o.targets = targets;
  o.selection = select_knobs({"aslr-off", "transparent-hugepages", "c-states"}, {});
  FakeServices services;
  JournalFile jf(t.journal());
  apply(root, jf, services, o);
  auto after = status(root, targets, jf.load());
  EXPECT_EQ(row(after, "aslr-off").state, State::tuned);
  EXPECT_EQ(row(after, "aslr-off").pending, 1);
  EXPECT_EQ(row(after, "transparent-hugepages").pending, 2);
  EXPECT_EQ(row(after, "c-states").state, State::tuned);
  EXPECT_EQ(row(after, "c-states").note, "3 files");
  EXPECT_EQ(row(after, "timer-migration").state, State::untuned);
  EXPECT_EQ(row(after, "timer-migration").pending, 0);
  auto text = render_status(after, jf.path());
  EXPECT_NE(text.find("Restore pending: 6 values changed by `tune apply`"), std::string::npos) << text;
  EXPECT_NE(text.find("aslr-off               tuned*"), std::string::npos) << text;
}

TEST(TuneStatus, VmSaysWhatDoesNotExist) {
  TreeCopy t("tune-vm-firecracker-2cpu");
  sys::Sysroot root(t.root());
  auto s = status(root, targets_for(root, {1}), std::nullopt);
  EXPECT_EQ(row(s, "turbo-off").state, State::absent);
  EXPECT_EQ(row(s, "smt-off").state, State::absent);
  EXPECT_NE(row(s, "smt-off").note.find("no SMT sibling"), std::string::npos);
  EXPECT_EQ(row(s, "irq-default-affinity").current, "0-1");
  EXPECT_EQ(row(s, "irq-default-affinity").tuned, "0");
  EXPECT_EQ(row(s, "irq-default-affinity").state, State::untuned);
}

TEST(TuneStatus, EpycBootParametersReadFromTheCommandLine) {
  TreeCopy t("tune-epyc-smt-amd-pstate");
  sys::Sysroot root(t.root());
  auto s = status(root, targets_for(root, {2, 3}), std::nullopt);
  EXPECT_EQ(row(s, "rcu-nocbs").state, State::tuned);  // rcu_nocbs=2-3 on its command line
  EXPECT_EQ(row(s, "rcu-nocbs").current, "rcu_nocbs=2-3");
  EXPECT_EQ(row(s, "nohz-full").state, State::untuned);
  auto other = status(root, targets_for(root, {4}), std::nullopt);
  EXPECT_EQ(row(other, "rcu-nocbs").state, State::untuned);
}

}  // namespace
}  // namespace nw::tune
