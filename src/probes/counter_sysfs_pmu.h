// SPDX-License-Identifier: Apache-2.0
// Events the kernel publishes under /sys/bus/event_source/devices/<pmu>/ that libpfm4 has no
// table for, such as the msr PMU's tsc, aperf and mperf ("msr/aperf/" in perf's syntax).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "probes/pfm_events.h"

namespace nw::probes {

inline constexpr const char* kSysfsPmuDir = "/sys/bus/event_source/devices";

// "msr/aperf/" or "msr/aperf" -> {"msr", "aperf"}; nullopt for anything else.
std::optional<std::pair<std::string, std::string>> split_sysfs_name(const std::string& name);

// The events <devices>/<pmu>/events lists (empty when the PMU is absent).
std::vector<std::string> sysfs_pmu_events(const std::string& pmu, const std::string& devices = kSysfsPmuDir);

// Encodes <pmu>/<event> from the PMU's type, its events/<event> terms ("event=0x01,umask=0x3")
// and the format/<term> bit layout ("config:0-7,32-35"). nullopt when the PMU or the event does
// not exist; throws nw::Error when the description cannot be encoded (e.g. a term left as "?").
// `key` becomes ResolvedEvent::name.
std::optional<ResolvedEvent> sysfs_resolve(const std::string& key, const std::string& pmu, const std::string& event,
                                           const std::string& devices = kSysfsPmuDir);

}  // namespace nw::probes
