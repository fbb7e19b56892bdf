// SPDX-License-Identifier: Apache-2.0
// pin-cpu, sched-fifo, timer-slack, nice, clean-env, stop-process, cpu-quota: knobs for one benchmark process
// (the `run` flags, or the standard tools) and the knobs that are by hand only.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/shell_words.h"
#include "knobs/catalogue.h"
#include "knobs/families.h"
#include "knobs/render.h"

namespace nw::knobs::family {

Commands cmd_pin(const Context& c) {
  return {rerun(get("pin-cpu"), c), fmt::format("taskset -c {} {}", render::targets(c), c.command)};
}

Commands cmd_fifo(const Context& c) { return {rerun(get("sched-fifo"), c), render::priv(c, "chrt -f 1 " + c.command)}; }

// No standard tool sets another program's timer slack: the run flag, or the program itself.
Commands cmd_timer_slack(const Context& c) {
  return {rerun(get("timer-slack"), c),
          "# or in the benchmark: prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0); or run it "
          "SCHED_FIFO (--fifo 1, chrt -f 1): real-time tasks get no timer slack"};
}

Commands cmd_nice(const Context& c) { return {rerun(get("nice"), c), render::priv(c, "nice -n -20 " + c.command)}; }

Commands cmd_clean_env(const Context& c) {
  return {rerun(get("clean-env"), c), fmt::format("env -i PATH=\"$PATH\" HOME=\"$HOME\" LANG=C {}", c.command)};
}

Commands cmd_stop_process(const Context& c) {
  std::string comm = c.process.empty() ? "<process>" : shell_quote(c.process);
  Commands out;
  if (!c.pids.empty())
    out.push_back(fmt::format("ps -o pid,unit,args -p {}   # which service is it?", fmt::join(c.pids, ",")));
  out.push_back(render::priv(c, fmt::format("systemctl stop <unit>   # or pause it: pkill -STOP -x {}", comm)));
  out.push_back(render::priv(c, fmt::format("pkill -CONT -x {}   # resume it after benchmarking", comm)));
  return out;
}

// A CPU quota is the container's (or the service's) setting: noisewatch says what to change in
// its spec (family_container.cpp).
Commands cmd_cpu_quota(const Context& c) {
  return {
      spec_note(),
      "# Docker: give the container whole CPUs and no quota: --cpuset-cpus=" + render::targets(c) +
          " instead of --cpus",
      "# Kubernetes: Guaranteed QoS (integer CPU requests = limits) with the kubelet's --cpu-manager-policy=static: "
      "the pod keeps its CPUs and loses the quota",
      "# systemd: systemctl set-property <unit> CPUQuota=   (empty: no quota)",
      remove_quota_by_hand(c),
      "# or keep a quota of at least the benchmark's busy CPUs x the period; a shorter period "
      "throttles in shorter, more frequent stretches"};
}

}  // namespace nw::knobs::family
