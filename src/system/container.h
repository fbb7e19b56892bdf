// SPDX-License-Identifier: Apache-2.0
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

// What the guess is made from.
struct ContainerClues {
  std::string proc_cgroup{};                  // /proc/self/cgroup
  bool dockerenv = false;                     // /.dockerenv exists (Docker creates it)
  std::optional<std::string> containerenv{};  // /run/.containerenv's content when it exists (podman;
                                              // engine="podman-..." names the runtime)
  bool k8s_env = false;                       // KUBERNETES_SERVICE_HOST is set
  // PID 2 is kthreadd: the host's own PID namespace, which no container shares unless told to
  // (--pid=host). There the two files are leftovers of an image the root file system was made
  // from (this project's VMs have a /.dockerenv), not evidence.
  bool host_pid_namespace = false;
};

// Pure. Inside a cgroup namespace /proc/self/cgroup says "0::/" and only the files and the
// environment can tell.
ContainerGuess guess_container(const ContainerClues& clues);

// This process under `root`: /proc/self/cgroup, /.dockerenv, /run/.containerenv, /proc/2/comm, and
// on the live machine only, the environment. nullopt when /proc/self/cgroup is unreadable and no file says
// "container" (a tree captured without /proc/self: unknown, not "no").
std::optional<ContainerGuess> detect_container(const Sysroot& root);

}  // namespace nw::sys
