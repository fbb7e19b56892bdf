// Identity of the machine a run was recorded on: enough to tell two records' machines apart.
#pragma once
#include <string>

namespace nw {

// The machine a run was recorded on (the record's "host" object).
struct HostInfo {
  std::string hostname, kernel, cpu_model;
  bool virtualized = false;
  int online_cpus = 0;
};

}  // namespace nw

namespace nw::sys {

// Reads kernel, CPU model, hypervisor flag and online CPUs under `root` ("" = live machine).
// Hostname and kernel come from uname() on the live machine, from proc/sys/kernel for a sysroot.
HostInfo read_host_info(const std::string& root = "");

}  // namespace nw::sys
