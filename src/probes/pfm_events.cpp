// SPDX-License-Identifier: Apache-2.0
#include "probes/pfm_events.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>
#include <perfmon/pfmlib_perf_event.h>

#include "common/errors.h"

namespace nw::probes {

namespace {

// libpfm4, loaded when an event is first named rather than with noisewatch: its event tables hold
// ~41,000 pointers the dynamic loader relocates at every start (63 % of noisewatch's relocations),
// 9 ms of each start-up on this project's VMs, where page faults are dear (bench/HISTORY.md,
// 2026-12-07); a run on a machine without a hardware PMU, the default there, never names one.
struct Pfm {
  decltype(&::pfm_initialize) initialize = nullptr;
  decltype(&::pfm_strerror) strerror = nullptr;
  decltype(&::pfm_get_os_event_encoding) get_os_event_encoding = nullptr;
  decltype(&::pfm_get_event_info) get_event_info = nullptr;
  decltype(&::pfm_get_pmu_info) get_pmu_info = nullptr;
  decltype(&::pfm_get_event_next) get_event_next = nullptr;
  decltype(&::pfm_get_event_attr_info) get_event_attr_info = nullptr;
};

constexpr const char* kPfmLibrary = "libpfm.so.4";  // the soname libpfm4-dev links against

template <typename F>
void bind(void* lib, F& f, const char* name, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) missing = name;
}

// The library, loaded and initialised once, whatever thread comes first (its tables are
// process-wide). Throws with what to install when it cannot be.
const Pfm& pfm() {
  static std::once_flag once;
  static Pfm p;
  static std::string error;
  std::call_once(once, [] {
    void* lib = dlopen(kPfmLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error =
          fmt::format("cannot load libpfm4 ({}): install it (Debian: apt install libpfm4) to count events", dlerror());
      return;
    }
    std::string missing;
    bind(lib, p.initialize, "pfm_initialize", missing);
    bind(lib, p.strerror, "pfm_strerror", missing);
    bind(lib, p.get_os_event_encoding, "pfm_get_os_event_encoding", missing);
    bind(lib, p.get_event_info, "pfm_get_event_info", missing);
    bind(lib, p.get_pmu_info, "pfm_get_pmu_info", missing);
    bind(lib, p.get_event_next, "pfm_get_event_next", missing);
    bind(lib, p.get_event_attr_info, "pfm_get_event_attr_info", missing);
    if (!missing.empty()) {
      error = fmt::format("{} lacks {}: reinstall libpfm4", kPfmLibrary, missing);
      return;
    }
    if (int status = p.initialize(); status != PFM_SUCCESS)
      error = fmt::format("libpfm4 could not initialise: {}", p.strerror(status));
  });
  if (!error.empty()) throw Error(error);
  return p;
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
  const Pfm& lib = pfm();
  int rc = lib.get_os_event_encoding(name.c_str(), PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (rc != PFM_SUCCESS) return rc;
  // libpfm4 leaves size 0, which the kernel reads as the first ABI version only.
  attr.size = sizeof attr;
  pfm_event_info_t info{};
  info.size = sizeof info;
  pfm_pmu_info_t pmu{};
  pmu.size = sizeof pmu;
  if (lib.get_event_info(arg.idx, PFM_OS_NONE, &info) == PFM_SUCCESS &&
      lib.get_pmu_info(info.pmu, &pmu) == PFM_SUCCESS) {
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
  const Pfm& lib = pfm();
  ResolvedEvent ev;
  int rc = encode(name, ev);
  if (rc == PFM_SUCCESS) return ev;
  if (rc == PFM_ERR_NOTFOUND) return std::nullopt;
  throw Error(fmt::format("event '{}': {} (see `noisewatch events`)", name, lib.strerror(rc)));
}

std::vector<PfmPmuInfo> pfm_present_pmus() {
  const Pfm& lib = pfm();
  std::vector<PfmPmuInfo> out;
  // pfm_for_all_pmus increments an enum, which C++ does not allow.
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof pinfo;
    if (lib.get_pmu_info(pfm_pmu_t(p), &pinfo) != PFM_SUCCESS || !pinfo.is_present) continue;
    PfmPmuInfo pmu{pinfo.name, pinfo.desc ? pinfo.desc : "", kind_name(pinfo.type), {}};
    for (int idx = pinfo.first_event; idx != -1; idx = lib.get_event_next(idx)) {
      pfm_event_info_t einfo{};
      einfo.size = sizeof einfo;
      if (lib.get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &einfo) != PFM_SUCCESS) continue;
      PfmEventInfo ev{einfo.name, einfo.desc ? einfo.desc : "", {}, std::nullopt};
      for (int a = 0; a < einfo.nattrs; ++a) {
        pfm_event_attr_info_t ainfo{};
        ainfo.size = sizeof ainfo;
        if (lib.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ainfo) == PFM_SUCCESS &&
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
  const Pfm& lib = pfm();
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof pinfo;
    if (lib.get_pmu_info(pfm_pmu_t(p), &pinfo) == PFM_SUCCESS && pinfo.is_present && pinfo.type == PFM_PMU_TYPE_CORE)
      return pinfo.name;
  }
  return {};
}

}  // namespace nw::probes
