// SPDX-License-Identifier: Apache-2.0
// The container around the benchmark, a machine of its own:
//   cpu-quota          a CPU quota on its cgroup (CFS bandwidth control) stops it while it is
//                      runnable, whatever the machine's tuning;
//   cpu-quota-cpuset   a quota on a container that has CPUs of its own (kubernetes#70585);
//   container-unpinned a container that shares every CPU of the host.
// (memory-limit is in rules_memory.cpp.)
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cgroup.h"
#include "system/cgroup_limits.h"
#include "system/container.h"

namespace nw::check {

namespace {

// Whether a cpuset leaves the process every online CPU (no pinning at all).
bool holds_every_online_cpu(const std::vector<int>& cpuset, const std::vector<int>& online) {
  return std::includes(cpuset.begin(), cpuset.end(), online.begin(), online.end());
}

std::string runtime_text(const sys::ContainerGuess& g) { return g.runtime.empty() ? "" : g.runtime + " "; }

// "CPU 0", "CPUs 2-3".
std::string named(const std::vector<int>& cpus) { return (cpus.size() == 1 ? "CPU " : "CPUs ") + cpus_text(cpus); }

}  // namespace

Finding check_cpu_quota(const CheckContext& ctx) {
  auto own = sys::cpu_cgroup_of(ctx.root);
  if (!own)
    return make_finding("cpu-quota", Status::unknown, ctx.targets,
                        "no cpu controller in /proc/self/mountinfo and /proc/self/cgroup: the CPU quota is unknown");
  auto limited = sys::quota_group(ctx.root, *own);
  if (!limited)
    return make_finding("cpu-quota", Status::ok, ctx.targets,
                        fmt::format("no CPU quota on cgroup {} or above it (cgroup v{})", own->path, own->version));
  const sys::CpuCgroup* group = &limited->group;
  const sys::CpuQuota* quota = &limited->quota;
  const double cpus = quota->cpus();
  const size_t used = ctx.targets.size();
  std::string where = group->path == own->path
                          ? fmt::format("cgroup {}", own->path)
                          : fmt::format("cgroup {} (above this process's {})", group->path, own->path);
  std::string stat;
  if (auto s = sys::read_throttle_stat(ctx.root, *group); s && s->nr_periods)
    stat = fmt::format("; throttled in {} of {} periods so far, {:.2f} s", s->nr_throttled, s->nr_periods,
                       double(s->throttled_ns) / 1e9);
  auto kc = fix_context(ctx, ctx.targets);
  kc.cgroup = group->path;
  kc.cgroup_version = group->version;
  // Below the CPUs the benchmark is given, every busy period ends throttled; at or above them,
  // bursts of several threads (and the kernel's per-CPU slices of the quota) still can be.
  const Status status = used > 0 && cpus < double(used) ? Status::fail : Status::warn;
  auto f = make_finding(
      "cpu-quota", status, ctx.targets,
      fmt::format(
          "{} has a CPU quota of {:.2f} CPUs ({} us per {} us){}{}: a benchmark that is runnable while the "
          "quota is used up waits for the next period (noisewatch charges it to throttle:{})",
          where, cpus, *quota->quota_us, quota->period_us,
          status == Status::fail ? fmt::format(", below the {} CPU{} measured", used, used == 1 ? "" : "s") : "", stat,
          group->path),
      knobs::fix_for_finding("cpu-quota", kc));
  f.detail = {{"cgroup", group->path},
              {"quota_us", *quota->quota_us},
              {"period_us", quota->period_us},
              {"quota_cpus", cpus},
              {"cgroup_version", group->version}};
  return f;
}

// A container given CPUs of its own (docker --cpuset-cpus, the kubelet's static CPU manager) that
// keeps a quota: within one period its threads spend the quota on several CPUs at once and wait,
// throttled, on CPUs no one else may use (kubernetes#70585).
Finding check_cpu_quota_cpuset(const CheckContext& ctx) {
  auto own = sys::cpu_cgroup_of(ctx.root);
  auto cpuset = sys::read_cpuset(ctx.root);
  if (!own || !cpuset)
    return make_finding("cpu-quota-cpuset", Status::unknown, ctx.targets,
                        fmt::format("no {} controller in /proc/self/mountinfo and /proc/self/cgroup: whether a CPU "
                                    "quota comes with a cpuset is unknown",
                                    own ? "cpuset" : "cpu"));
  const std::string cpus = cpus_text(cpuset->cpus);
  auto limited = sys::quota_group(ctx.root, *own);
  if (!limited)
    return make_finding("cpu-quota-cpuset", Status::ok, ctx.targets,
                        fmt::format("no CPU quota on cgroup {} or above it; cpuset {} gives {}", own->path,
                                    cpuset->group.path, named(cpuset->cpus)));
  if (holds_every_online_cpu(cpuset->cpus, ctx.available.online))
    return make_finding("cpu-quota-cpuset", Status::ok, ctx.targets,
                        fmt::format("cpuset {} holds every online CPU ({}): no CPUs of its own to be throttled on "
                                    "(the quota is cpu-quota's finding)",
                                    cpuset->group.path, cpus));
  auto kc = fix_context(ctx, cpuset->cpus);
  kc.cgroup = limited->group.path;
  kc.cgroup_version = limited->group.version;
  auto f = make_finding(
      "cpu-quota-cpuset", Status::warn, ctx.targets,
      fmt::format("cgroup {} has a CPU quota of {:.2f} CPUs although cpuset {} gives it {} of its own: its threads "
                  "spend the quota on several CPUs at once and wait, throttled, on CPUs no one else uses "
                  "(kubernetes#70585)",
                  limited->group.path, limited->quota.cpus(), cpuset->group.path, named(cpuset->cpus)),
      knobs::fix_for_finding("cpu-quota-cpuset", kc));
  f.detail = {{"cgroup", limited->group.path},
              {"quota_cpus", limited->quota.cpus()},
              {"cpuset", cpuset->group.path},
              {"cpuset_cpus", cpuset->cpus}};
  return f;
}

// A container is a machine of its own only when its CPUs are: with a cpuset of every online CPU,
// other containers and the host's own tasks run on the benchmark's CPUs, and `--cpu` inside it
// pins the benchmark but keeps no one else off that CPU.
Finding check_container_unpinned(const CheckContext& ctx) {
  auto guess = sys::detect_container(ctx.root);
  if (!guess)
    return make_finding("container-unpinned", Status::unknown, ctx.targets,
                        "no /proc/self/cgroup: whether this is a container is unknown");
  if (!guess->detected)
    return make_finding("container-unpinned", Status::ok, ctx.targets,
                        "not a container (no container runtime's cgroup path or KUBERNETES_SERVICE_HOST, and no "
                        "/.dockerenv or /run/.containerenv outside the host's PID namespace)");
  const std::string which = fmt::format("{}container ({})", runtime_text(*guess), fmt::join(guess->evidence, ", "));
  auto cpuset = sys::read_cpuset(ctx.root);
  if (!cpuset)
    return make_finding("container-unpinned", Status::unknown, ctx.targets,
                        fmt::format("a {}, but no cpuset controller to read its CPUs from", which));
  const std::string cpus = cpus_text(cpuset->cpus);
  if (!holds_every_online_cpu(cpuset->cpus, ctx.available.online))
    return make_finding("container-unpinned", Status::ok, ctx.targets,
                        fmt::format("a {} pinned to {} (cpuset {}) of the online {}", which, named(cpuset->cpus),
                                    cpuset->group.path, cpus_text(ctx.available.online)));
  auto f = make_finding(
      "container-unpinned", Status::warn, ctx.targets,
      fmt::format("a {} whose cpuset {} holds every online CPU ({}): other containers and the host's tasks run on "
                  "the benchmark's CPUs, and migrations take it across all of them",
                  which, cpuset->group.path, cpus),
      knobs::fix_for_finding("container-unpinned", fix_context(ctx, ctx.targets)));
  f.detail = {{"runtime", guess->runtime},
              {"evidence", guess->evidence},
              {"cpuset", cpuset->group.path},
              {"cpuset_cpus", cpuset->cpus}};
  return f;
}

}  // namespace nw::check
