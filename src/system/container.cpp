// SPDX-License-Identifier: Apache-2.0
#include "system/container.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace nw::sys {

namespace {

struct Pattern {
  std::string_view needle, runtime;
};

// What each runtime puts in a cgroup path (v1 cgroupfs driver and systemd driver alike), the
// most specific first: a Kubernetes pod on Docker or containerd shows /kubepods too. None matches
// the daemons' own units (/system.slice/docker.service, containerd.service): they are not containers.
constexpr std::array<Pattern, 8> kPatterns{{
    {"/kubepods", "kubernetes"},  // /kubepods/burstable/pod.., /kubepods.slice/...
    {"libpod-", "podman"},        // /machine.slice/libpod-<id>.scope, /libpod_parent/libpod-<id>
    {"/docker/", "docker"},       // cgroupfs driver
    {"/docker-", "docker"},       // systemd driver: /system.slice/docker-<id>.scope
    {"/lxc/", "lxc"},
    {"/lxc.payload", "lxc"},  // LXC 4+
    {"cri-containerd-", "containerd"},
    {"/containerd/", "containerd"},
}};

// The rank of a runtime in kPatterns (lower wins).
size_t rank(std::string_view runtime) {
  for (size_t i = 0; i < kPatterns.size(); ++i)
    if (kPatterns[i].runtime == runtime) return i;
  return kPatterns.size();
}

void name(ContainerGuess& g, std::string_view runtime, std::string evidence) {
  g.detected = true;
  g.evidence.push_back(std::move(evidence));
  if (!runtime.empty() && (g.runtime.empty() || rank(runtime) < rank(g.runtime))) g.runtime = std::string(runtime);
}

}  // namespace

ContainerGuess guess_container(const ContainerClues& clues) {
  ContainerGuess g;
  std::istringstream in(clues.proc_cgroup);
  std::string line;
  std::vector<std::string> seen;
  while (std::getline(in, line)) {
    auto c2 = line.find(':', line.find(':') + 1);
    if (c2 == std::string::npos) continue;
    std::string path = line.substr(c2 + 1);
    for (const auto& p : kPatterns) {
      if (path.find(p.needle) == std::string::npos) continue;
      if (std::find(seen.begin(), seen.end(), path) == seen.end()) {
        seen.push_back(path);
        name(g, p.runtime, "cgroup " + path);
      }
      break;
    }
  }
  if (!clues.host_pid_namespace) {
    if (clues.dockerenv) name(g, "docker", "/.dockerenv");
    if (const auto& env = clues.containerenv) {
      auto at = env->find("engine=\"");
      std::string engine = at == std::string::npos ? "" : env->substr(at + 8, env->find('"', at + 8) - at - 8);
      name(g, engine.rfind("podman", 0) == 0 ? "podman" : "",
           engine.empty() ? "/run/.containerenv" : "/run/.containerenv (engine " + engine + ")");
    }
  }
  if (clues.k8s_env) name(g, "kubernetes", "KUBERNETES_SERVICE_HOST");
  return g;
}

std::optional<ContainerGuess> detect_container(const Sysroot& root) {
  auto cgroup = root.read("/proc/self/cgroup");
  ContainerClues clues;
  clues.proc_cgroup = cgroup.value_or("");
  clues.dockerenv = root.exists("/.dockerenv");
  if (root.exists("/run/.containerenv")) clues.containerenv = root.read("/run/.containerenv").value_or("");
  // A machine's environment is not in its files: only the live process has one to read.
  clues.k8s_env = root.live() && std::getenv("KUBERNETES_SERVICE_HOST") != nullptr;
  clues.host_pid_namespace = root.read_line("/proc/2/comm") == std::optional<std::string>("kthreadd");
  auto g = guess_container(clues);
  if (!cgroup && !g.detected) return std::nullopt;
  return g;
}

}  // namespace nw::sys
