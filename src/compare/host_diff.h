// SPDX-License-Identifier: Apache-2.0
// Were BASE and NEW measured on the same machine, set up the same way?
#pragma once
#include <vector>

#include "compare/input.h"
#include "compare/model.h"
#include "record/run_record.h"

namespace nw::compare {

// Host fields (hostname, kernel, cpu_model, virtualized, online_cpus), the benchmark CPUs and
// pinning that differ, the benchmark CPUs' mean frequency when it moved, plus probes unavailable
// on one side only (their noise is missing there).
std::vector<HostDifference> diff_hosts(const RunRecord& base, const RunRecord& next);

// The machine descriptions of foreign formats (Google Benchmark's context, pyperf's metadata):
// every field present on both sides whose values differ (numbers beyond the field's tolerance).
std::vector<HostDifference> diff_host_fields(const std::vector<HostField>& base, const std::vector<HostField>& next);

}  // namespace nw::compare
