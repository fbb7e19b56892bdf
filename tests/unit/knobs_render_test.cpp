// SPDX-License-Identifier: Apache-2.0
// The catalogue's rendered commands: sudo or root style, CPU lists and masks of the machine, and
// the one boot-loader edit, run for real with sed on a copy of /etc/default/grub.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "knobs/catalogue.h"
#include "knobs/render.h"
#include "support/files.h"

namespace nw::knobs {
namespace {

Context ctx(std::vector<int> cpus, std::vector<int> online, bool sudo = false) {
  Context c;
  c.cpus = std::move(cpus);
  c.online = std::move(online);
  c.sudo = sudo;
  return c;
}

TEST(KnobsSplit, KeepsAHousekeepingCpuAndSaysWhich) {
  auto s = split_cpus({2, 3}, {0, 1, 2, 3});
  EXPECT_EQ(s.isolated, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.housekeeping, (std::vector<int>{0, 1}));
  EXPECT_NE(s.note.find("CPU 0-1 stay for housekeeping"), std::string::npos) << s.note;

  auto all = split_cpus({0, 1, 2, 3}, {0, 1, 2, 3});
  EXPECT_EQ(all.isolated, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(all.housekeeping, (std::vector<int>{0}));
  EXPECT_NE(all.note.find("CPU 0 stays for housekeeping"), std::string::npos) << all.note;
  EXPECT_NE(all.note.find("left out of the isolated set"), std::string::npos) << all.note;
}

TEST(KnobsRender, WritesAsRootOrWithSudo) {
  auto root = commands(get("workqueue-cpumask"), ctx({2, 3}, {0, 1, 2, 3}));
  EXPECT_EQ(root, (std::vector<std::string>{"echo 3 > /sys/devices/virtual/workqueue/cpumask"}));
  auto sudo = commands(get("workqueue-cpumask"), ctx({2, 3}, {0, 1, 2, 3}, true));
  EXPECT_EQ(sudo, (std::vector<std::string>{"echo 3 | sudo tee /sys/devices/virtual/workqueue/cpumask"}));
  EXPECT_EQ(commands(get("nmi-watchdog"), ctx({1}, {0, 1}, true)),
            (std::vector<std::string>{"sudo sysctl -w kernel.nmi_watchdog=0"}));
}

TEST(KnobsRender, NamesTheBenchmarkCpusInPaths) {
  EXPECT_EQ(render::cpu_path({2}, "cpufreq/boost"), "/sys/devices/system/cpu/cpu2/cpufreq/boost");
  EXPECT_EQ(render::cpu_path({2, 3, 4}, "online"), "/sys/devices/system/cpu/cpu{2..4}/online");
  EXPECT_EQ(render::cpu_path({2, 5}, "online"), "/sys/devices/system/cpu/cpu{2,5}/online");
  EXPECT_EQ(render::cpu_path({}, "online"), "/sys/devices/system/cpu/cpu<cpu>/online");
  auto gov = commands(get("performance-governor"), ctx({2, 5}, {0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(gov.front(), "echo performance | tee /sys/devices/system/cpu/cpu{2,5}/cpufreq/scaling_governor");
}

TEST(KnobsRender, IrqAffinityForNamedIrqsOrAll) {
  auto c = ctx({1}, {0, 1, 2, 3});
  c.irqs = {36, 37};
  EXPECT_EQ(commands(get("irq-affinity"), c),
            (std::vector<std::string>{"for i in 36 37; do echo 0,2-3 > /proc/irq/$i/smp_affinity_list; done"}));
  c.irqs.clear();
  c.sudo = true;
  auto all = commands(get("irq-affinity"), c);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_NE(all[0].find("echo 0,2-3 | sudo tee $i/smp_affinity_list"), std::string::npos) << all[0];
}

TEST(KnobsRender, UnknownMachineRendersPlaceholders) {
  auto c = ctx({}, {});
  EXPECT_EQ(commands(get("irq-default-affinity"), c).front(),
            "echo <housekeeping mask> > /proc/irq/default_smp_affinity   # IRQs set up from now on");
  auto boot = commands(get("nohz-full"), c);
  EXPECT_NE(boot[1].find("nohz_full=<cpu> "), std::string::npos) << boot[1];
  auto fifo = commands(get("sched-fifo"), c);
  EXPECT_EQ(fifo.front(), "noisewatch --fifo 1 -- ./bench");
}

TEST(KnobsRender, SmtNamesTheSiblingsWhenKnown) {
  auto c = ctx({2}, {0, 1, 2, 3}, true);
  c.siblings = {3};
  auto known = commands(get("smt-off"), c);
  EXPECT_EQ(known.front(), "echo 0 | sudo tee /sys/devices/system/cpu/cpu3/online   # the benchmark CPUs' siblings");
  c.siblings.clear();
  EXPECT_NE(commands(get("smt-off"), c).front().find("cpu2/topology/thread_siblings_list"), std::string::npos);
}

TEST(KnobsRerun, RunFlagOrTuneForThatKnobOrNothing) {
  auto c = ctx({2, 3}, {0, 1, 2, 3});
  c.command = "./bench --size 'a b'";
  EXPECT_EQ(rerun(get("aslr-off"), c), "noisewatch --no-aslr -- ./bench --size 'a b'");
  EXPECT_EQ(rerun(get("sched-fifo"), c), "noisewatch --fifo 1 -- ./bench --size 'a b'");
  EXPECT_EQ(rerun(get("nice"), c), "noisewatch --nice -20 -- ./bench --size 'a b'");
  EXPECT_EQ(rerun(get("pin-cpu"), c), "noisewatch --cpu 2-3 -- ./bench --size 'a b'");
  EXPECT_EQ(rerun(get("turbo-off"), c), "noisewatch --tune --tune-only turbo-off -- ./bench --size 'a b'");
  // irqbalance is left alone by `tune` without the IRQ move it protects.
  EXPECT_EQ(rerun(get("irqbalance"), c),
            "noisewatch --tune --tune-only irqbalance,irq-affinity -- ./bench --size 'a b'");
  EXPECT_EQ(rerun(get("isolcpus"), c), "");
  EXPECT_EQ(rerun(get("stop-process"), c), "");
  // The per-benchmark knobs' own commands start with their rerun.
  for (const char* id : {"pin-cpu", "sched-fifo", "nice", "clean-env", "aslr-off"})
    EXPECT_EQ(commands(get(id), c).front().rfind(rerun(get(id), c), 0), 0u) << id;
}

TEST(KnobsRender, StopProcessQuotesTheName) {
  Context c = ctx({1}, {0, 1});
  c.process = "Web Content";
  c.pids = {12, 34};
  auto cmds = commands(get("stop-process"), c);
  EXPECT_EQ(cmds[0], "ps -o pid,unit,args -p 12,34   # which service is it?");
  EXPECT_NE(cmds[1].find("pkill -STOP -x 'Web Content'"), std::string::npos) << cmds[1];
}

TEST(KnobsRender, FixForFindingMergesBootParametersIntoOneEdit) {
  auto fix = fix_for_finding("irq-affinity", ctx({2, 3}, {0, 1, 2, 3}, true));
  int seds = 0;
  for (const auto& line : fix) seds += line.find("sed -i") != std::string::npos;
  EXPECT_EQ(seds, 1);
  EXPECT_EQ(fix.back().rfind("sudo update-grub && sudo reboot", 0), 0u) << fix.back();
  EXPECT_NE(fix.front().find("smp_affinity_list"), std::string::npos);
}

TEST(KnobsBootEdit, OneCpuMachineCannotIsolate) {
  auto edit = boot_edit({&get("isolcpus")}, ctx({0}, {0}));
  ASSERT_EQ(edit.size(), 1u);
  EXPECT_NE(edit[0].find("only one online CPU"), std::string::npos);
}

TEST(KnobsBootEdit, AllCpusAsTargetsLeaveCpu0ForHousekeeping) {
  auto edit = boot_edit({&get("isolcpus"), &get("irqaffinity")}, ctx({0, 1, 2, 3}, {0, 1, 2, 3}));
  EXPECT_NE(edit[0].find("CPU 0 stays for housekeeping"), std::string::npos) << edit[0];
  EXPECT_NE(edit[1].find("isolcpus=domain,managed_irq,1-3 irqaffinity=0 "), std::string::npos) << edit[1];
}

// Runs the rendered sed on a copy of a GRUB defaults file and returns the result.
std::string run_edit(const std::string& sed_line, const std::string& grub) {
  char tmpl[] = "/tmp/nw-grub-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  std::string file = dir + "/grub";
  std::ofstream(file) << grub;
  std::string cmd = sed_line;
  cmd.replace(cmd.find("/etc/default/grub"), std::string("/etc/default/grub").size(), file);
  int rc = std::system(cmd.c_str());
  std::string edited = test::slurp(file);
  std::filesystem::remove_all(dir);
  return rc == 0 ? edited : "sed failed";
}

TEST(KnobsBootEdit, SedReplacesOldValuesAndCanRunTwice) {
  auto edit = boot_edit({&get("isolcpus"), &get("nohz-full"), &get("rcu-nocbs")}, ctx({2, 3}, {0, 1, 2, 3}));
  ASSERT_EQ(edit.size(), 3u);
  const std::string grub =
      "GRUB_DEFAULT=0\n"
      "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n"
      "GRUB_CMDLINE_LINUX=\"console=ttyS0 isolcpus=3 rcu_nocbs=1 rcu_nocb_poll mitigations=off\"\n";
  std::string once = run_edit(edit[1], grub);
  EXPECT_EQ(once,
            "GRUB_DEFAULT=0\n"
            "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\n"
            "GRUB_CMDLINE_LINUX=\"isolcpus=domain,managed_irq,2-3 nohz_full=2-3 rcu_nocbs=2-3 rcu_nocb_poll "
            "console=ttyS0 mitigations=off\"\n");
  EXPECT_EQ(run_edit(edit[1], once), once);
  EXPECT_NE(edit[2].find("grubby --update-kernel=ALL --args='isolcpus=domain,managed_irq,2-3"), std::string::npos);
}

TEST(KnobsFormat, ValuesComparedTheWayTheKernelShowsThem) {
  EXPECT_EQ(value_of(Format::choice, "always [madvise] never\n"), "madvise");
  EXPECT_TRUE(same_value(Format::choice, "always madvise [never]\n", "never\n"));
  EXPECT_EQ(restore_write(Format::choice, "always [madvise] never\n"), "madvise\n");
  EXPECT_TRUE(same_value(Format::cpumask, "00000003\n", "3\n"));
  EXPECT_TRUE(same_value(Format::cpulist, "0,1,2\n", "0-2\n"));
  EXPECT_FALSE(same_value(Format::cpulist, "0-1\n", "0\n"));
  EXPECT_TRUE(same_value(Format::text, "2\n", "2"));
  EXPECT_EQ(restore_write(Format::text, "2\n"), "2\n");
  EXPECT_EQ(format_from_name("cpumask"), Format::cpumask);
  EXPECT_THROW(format_from_name("nope"), std::invalid_argument);
}

}  // namespace
}  // namespace nw::knobs
