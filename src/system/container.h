// Whether this process runs in a container, and which runtime made it. A container is a machine
// of its own for a benchmark (its cpuset, quota and memory limit are its machine), so `run`
// records it and `check` judges the container's pinning.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "system/sysroot.h"

namespace nw::sys {

struct ContainerGuess {
  bool detected = false;
  std::string runtime;                // "kubernetes", "podman", "docker", "lxc", "containerd"; "" unknown
  std::vector<std::string> evidence;  // what said so: "cgroup /docker/ab12", "/.dockerenv", ...
};

// Pure. `proc_cgroup`: /proc/self/cgroup; `containerenv`: /run/.containerenv's content when the
// file exists (podman writes it; engine="podman-..." names the runtime); `k8s_env`: whether
// KUBERNETES_SERVICE_HOST is set. Inside a cgroup namespace /proc/self/cgroup says "0::/" and
// only the files and the environment can tell.
ContainerGuess guess_container(const std::string& proc_cgroup, bool dockerenv,
                               const std::optional<std::string>& containerenv, bool k8s_env);

// This process under `root`: /proc/self/cgroup, /.dockerenv, /run/.containerenv, and on the live
// machine only, the environment. nullopt when /proc/self/cgroup is unreadable and no file says
// "container" (a tree captured without /proc/self: unknown, not "no").
std::optional<ContainerGuess> detect_container(const Sysroot& root);

}  // namespace nw::sys
