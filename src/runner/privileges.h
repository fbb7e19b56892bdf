// SPDX-License-Identifier: Apache-2.0
// Can this process load eBPF programs?
#pragma once

namespace nw::runner {

// Throws nw::Error naming the missing capabilities and the setcap command when neither root nor
// CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN) is effective.
void require_bpf_privileges();

}  // namespace nw::runner
