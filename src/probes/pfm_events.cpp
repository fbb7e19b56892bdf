// SPDX-License-Identifier: Apache-2.0
#include "probes/pfm_events.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>
#include <perfmon/pfmlib_perf_event.h>

#include "common/errors.h"

namespace nw::probes {

namespace {

// libpfm4 keeps process-wide tables; initialise them once, whatever thread comes first.
void ensure_initialized() {
  static std::once_flag once;
  static int status = PFM_SUCCESS;
  std::call_once(once, [] { status = pfm_initialize(); });
  if (status != PFM_SUCCESS) throw Error(fmt::format("libpfm4 could not initialise: {}", pfm_strerror(status)));
}

bool is_hardware(const perf_event_attr& attr, pfm_pmu_type_t pmu_type) {
  switch (attr.type) {
    case PERF_TYPE_SOFTWARE:
    case PERF_TYPE_TRACEPOINT:
    case PERF_TYPE_BREAKPOINT:
      return false;
    case PERF_TYPE_HARDWARE:
    case PERF_TYPE_HW_CACHE:
    case PERF_TYPE_RAW:
      return true;
    default:
      return pmu_type == PFM_PMU_TYPE_CORE || pmu_type == PFM_PMU_TYPE_UNCORE;
  }
}

const char* kind_name(pfm_pmu_type_t t) {
  switch (t) {
    case PFM_PMU_TYPE_CORE:
      return "core";
    case PFM_PMU_TYPE_UNCORE:
      return "uncore";
    case PFM_PMU_TYPE_OS_GENERIC:
      return "os";
    default:
      return "unknown";
  }
}

// Encodes without judging: returns the libpfm4 status.
int encode(const std::string& name, ResolvedEvent& out) {
  perf_event_attr attr{};
  char* fstr = nullptr;
  pfm_perf_encode_arg_t arg{};
  arg.attr = &attr;
  arg.fstr = &fstr;
  arg.size = sizeof arg;
  int rc = pfm_get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (rc != PFM_SUCCESS) return rc;
  // libpfm4 leaves size 0, which the kernel reads as the first ABI version only.
  attr.size = sizeof attr;
  pfm_event_info_t info{};
  info.size = sizeof info;
  pfm_pmu_info_t pmu{};
  pmu.size = sizeof pmu;
  if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &info) == PFM_SUCCESS &&
      pfm_get_pmu_info(info.pmu, &pmu) == PFM_SUCCESS) {
    out.pmu = pmu.name ? pmu.name : "";
  }
  out.name = name;
  out.canonical = fstr ? fstr : name;
  std::free(fstr);
  out.hardware = is_hardware(attr, pmu.type);
  out.attr = attr;
  return PFM_SUCCESS;
}

}  // namespace

std::optional<ResolvedEvent> pfm_resolve(const std::string& name) {
  ensure_initialized();
  ResolvedEvent ev;
  int rc = encode(name, ev);
  if (rc == PFM_SUCCESS) return ev;
  if (rc == PFM_ERR_NOTFOUND) return std::nullopt;
  throw Error(fmt::format("event '{}': {} (see `noisewatch events`)", name, pfm_strerror(rc)));
}

std::vector<PfmPmuInfo> pfm_present_pmus() {
  ensure_initialized();
  std::vector<PfmPmuInfo> out;
  // pfm_for_all_pmus increments an enum, which C++ does not allow.
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof pinfo;
    if (pfm_get_pmu_info(pfm_pmu_t(p), &pinfo) != PFM_SUCCESS || !pinfo.is_present) continue;
    PfmPmuInfo pmu{pinfo.name, pinfo.desc ? pinfo.desc : "", kind_name(pinfo.type), {}};
    for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
      pfm_event_info_t einfo{};
      einfo.size = sizeof einfo;
      if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS) continue;
      PfmEventInfo ev{einfo.name, einfo.desc ? einfo.desc : "", {}, std::nullopt};
      for (int a = 0; a < einfo.nattrs; ++a) {
        pfm_event_attr_info_t ainfo{};
        ainfo.size = sizeof ainfo;
        if (pfm_get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) == PFM_SUCCESS &&
            ainfo.type == PFM_ATTR_UMASK)
          ev.umasks.emplace_back(ainfo.name);
      }
      ResolvedEvent enc;
      std::string full = fmt::format("{}::{}", pmu.name, ev.name);
      if (encode(full, enc) == PFM_SUCCESS) ev.encoding = enc;
      pmu.events.push_back(std::move(ev));
    }
    out.push_back(std::move(pmu));
  }
  return out;
}

std::string pfm_core_pmu() {
  ensure_initialized();
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof pinfo;
    if (pfm_get_pmu_info(pfm_pmu_t(p), &pinfo) == PFM_SUCCESS && pinfo.is_present && pinfo.type == PFM_PMU_TYPE_CORE)
      return pinfo.name;
  }
  return {};
}

}  // namespace nw::probes
