// SPDX-License-Identifier: Apache-2.0
#include "runner/privileges.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "common/errors.h"

namespace nw::runner {

namespace {

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

bool has_cap(const __user_cap_data_struct (&data)[2], int cap) { return data[cap / 32].effective & (1u << (cap % 32)); }

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "noisewatch";
}

}  // namespace

void require_bpf_privileges() {
  if (geteuid() == 0) return;
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &hdr, data) == 0) {
    if (has_cap(data, CAP_SYS_ADMIN)) return;
    if (has_cap(data, CAP_BPF) && has_cap(data, CAP_PERFMON)) return;
  }
  throw Error(
      "missing privileges: loading the eBPF probes needs root or CAP_BPF and CAP_PERFMON; run "
      "with sudo, or grant them once: sudo setcap cap_bpf,cap_perfmon+ep " +
      self_path());
}

}  // namespace nw::runner
