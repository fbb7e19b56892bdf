// SPDX-License-Identifier: Apache-2.0
// cpu-quota-cpuset, memory-limit, container-cpuset: settings of the container around the
// benchmark. All manual: a container's cgroups belong to its runtime (Docker, the kubelet,
// systemd), which rewrites them from the container's spec, so the fix is an edit of that spec;
// `noisewatch tune` never writes to a cgroup it did not create. The by-hand line (a write to the
// group's file) is for a group made by hand, and is undone by the runtime's next update.
#include <fmt/format.h>

#include "knobs/families.h"
#include "knobs/render.h"

namespace nw::knobs::family {

namespace {

std::string group_of(const Context& c) { return c.cgroup.empty() ? "<group>" : c.cgroup; }

}  // namespace

std::string spec_note() {
  return "# in the container's spec (noisewatch tune never writes to a cgroup it did not create):";
}

std::string remove_quota_by_hand(const Context& c) {
  if (c.cgroup_version == 2)
    return render::priv(c,
                        fmt::format("sh -c 'echo max > /sys/fs/cgroup{}/cpu.max'   # remove it by hand", group_of(c)));
  return render::priv(
      c, fmt::format("sh -c 'echo -1 > /sys/fs/cgroup/cpu{}/cpu.cfs_quota_us'   # remove it by hand", group_of(c)));
}

// kubernetes#70585: the kubelet gave a container exclusive CPUs (a cpuset) and kept its CFS
// quota, which throttles it in bursts although no one else may run there.
Commands cmd_cpu_quota_cpuset(const Context& c) {
  return {spec_note(), "# Docker/Podman: keep --cpuset-cpus=" + render::targets(c) + " and drop --cpus / --cpu-quota",
          "# Kubernetes 1.33+: the kubelet sets no quota on containers with exclusive CPUs (static CPU manager, "
          "feature gate DisableCPUQuotaWithExclusiveCPUs, on by default); older: kubelet --cpu-cfs-quota=false, "
          "or CRI-O's pod annotation cpu-quota.crio.io: \"disable\"",
          "# systemd: systemctl set-property <unit> CPUQuota=   (empty: no quota; AllowedCPUs= keeps the CPUs)",
          remove_quota_by_hand(c)};
}

Commands cmd_memory_limit(const Context& c) {
  Commands out = {spec_note(),
                  "# Docker/Podman: a larger --memory (a running one: docker update --memory=<size> "
                  "--memory-swap=<size> <container>)",
                  "# Kubernetes: a larger resources.limits.memory in the pod spec",
                  "# systemd: systemctl set-property <unit> MemoryMax=<size>"};
  if (c.cgroup_version == 2)
    out.push_back(render::priv(
        c, fmt::format("sh -c 'echo max > /sys/fs/cgroup{}/memory.max'   # remove it by hand", group_of(c))));
  else
    out.push_back(render::priv(
        c, fmt::format("sh -c 'echo -1 > /sys/fs/cgroup/memory{}/memory.limit_in_bytes'   # remove it by hand",
                       group_of(c))));
  return out;
}

Commands cmd_container_cpuset(const Context& c) {
  const std::string cpus = render::targets(c);
  return {spec_note(),
          "# Docker/Podman: --cpuset-cpus=" + cpus + " (a running one: docker update --cpuset-cpus=" + cpus +
              " <container>), and no other container on those CPUs",
          "# Kubernetes: Guaranteed QoS (integer CPU requests = limits) with the kubelet's "
          "--cpu-manager-policy=static: the container gets CPUs of its own",
          "# systemd: systemctl set-property <unit> AllowedCPUs=" + cpus};
}

}  // namespace nw::knobs::family
