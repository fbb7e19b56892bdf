// cpu-quota: the container around the benchmark — a CPU quota on its cgroup (CFS bandwidth
// control) stops it while it is runnable, whatever the machine's tuning.
#include <fmt/format.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cgroup.h"

namespace nw::check {

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
  std::string where = group->path == own->path ? fmt::format("cgroup {}", own->path)
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
      fmt::format("{} has a CPU quota of {:.2f} CPUs ({} us per {} us){}{}: a benchmark that is runnable while the "
                  "quota is used up waits for the next period (noisewatch charges it to throttle:{})",
                  where, cpus, *quota->quota_us, quota->period_us,
                  status == Status::fail ? fmt::format(", below the {} CPU{} measured", used, used == 1 ? "" : "s") : "",
                  stat, group->path),
      knobs::fix_for_finding("cpu-quota", kc));
  f.detail = {{"cgroup", group->path}, {"quota_us", *quota->quota_us}, {"period_us", quota->period_us},
              {"quota_cpus", cpus}, {"cgroup_version", group->version}};
  return f;
}

}  // namespace nw::check
