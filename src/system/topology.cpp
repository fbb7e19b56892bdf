// SPDX-License-Identifier: Apache-2.0
#include "system/topology.h"

#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "system/cpulist.h"
#include "system/sysroot.h"

namespace nw::sys {

namespace {

std::vector<int> bitmap_to_cpus(hwloc_const_bitmap_t set) {
  std::vector<int> cpus;
  unsigned i;
  hwloc_bitmap_foreach_begin(i, set) { cpus.push_back(int(i)); }
  hwloc_bitmap_foreach_end();
  return cpus;
}

std::optional<std::vector<int>> read_list(const Sysroot& root, const std::string& path) {
  auto line = root.read_line(path);
  if (!line || *line == "(null)") return std::nullopt;
  try {
    return parse_cpulist(*line);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// hwloc reads these itself: read them through the Sysroot too so a snapshot holds them.
void record_hwloc_inputs(const Sysroot& root, const std::vector<int>& cpus) {
  for (const char* p :
       {"/proc/cpuinfo", "/proc/meminfo", "/sys/devices/system/cpu/possible", "/sys/devices/system/cpu/present"})
    root.read(p);
  for (int c : cpus) {
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(c);
    root.record_tree(base + "/topology", 1);
    root.record_tree(base + "/cache", 2);
    root.read(base + "/cpu_capacity");
    root.read(base + "/cpufreq/cpuinfo_max_freq");
    root.read(base + "/cpufreq/base_frequency");
  }
  root.record_tree("/sys/devices/system/node", 2);
  root.record_tree("/sys/kernel/mm/hugepages", 2);
}

// Names the kinds from the kernel's hybrid PMUs (cpu_core = P-cores, cpu_atom = E-cores).
void name_kinds(const Sysroot& root, std::vector<CpuKind>& kinds) {
  auto core = read_list(root, "/sys/devices/cpu_core/cpus");
  auto atom = read_list(root, "/sys/devices/cpu_atom/cpus");
  if (!core) core = read_list(root, "/sys/bus/event_source/devices/cpu_core/cpus");
  if (!atom) atom = read_list(root, "/sys/bus/event_source/devices/cpu_atom/cpus");
  for (auto& k : kinds) {
    if (!k.name.empty() || k.cpus.empty()) continue;
    int c = k.cpus.front();
    if (core && std::binary_search(core->begin(), core->end(), c)) k.name = "P-core";
    if (atom && std::binary_search(atom->begin(), atom->end(), c)) k.name = "E-core";
  }
}

void fill_capacity(const Sysroot& root, std::vector<CpuKind>& kinds) {
  for (auto& k : kinds) {
    if (k.capacity || k.cpus.empty()) continue;
    auto cap = root.read_int("/sys/devices/system/cpu/cpu" + std::to_string(k.cpus.front()) + "/cpu_capacity");
    if (cap) k.capacity = int(*cap);
  }
}

bool load_with_hwloc(const Sysroot& root, Topology& t) {
  // HWLOC_FSROOT is the documented way to point hwloc's Linux backend at another root; it is
  // process-wide, so set it only around the load.
  const char* old = std::getenv("HWLOC_FSROOT");
  std::string saved = old ? old : "";
  if (!root.live()) setenv("HWLOC_FSROOT", root.root().c_str(), 1);
  // A partial tree is expected (we fall back to sysfs); hwloc must not print about it.
  setenv("HWLOC_HIDE_ERRORS", "2", 0);
  hwloc_topology_t topo;
  bool ok = hwloc_topology_init(&topo) == 0;
  if (ok) {
    // Report every CPU, not just those of our own cgroup, and only from sysfs: the x86 CPUID
    // backend would make the live answer differ from the answer on a snapshot of the same files.
    hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    ok = hwloc_topology_load(topo) == 0 && hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) > 0;
    // When the Linux backend gives up (no cpuN/topology), hwloc still "loads" a flat machine
    // from its generic backend: that would hide SMT siblings and NUMA nodes, so refuse it.
    const char* backend = ok ? hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "Backend") : nullptr;
    ok = ok && backend && std::string(backend) == "Linux";
  }
  if (!root.live()) {
    if (old) setenv("HWLOC_FSROOT", saved.c_str(), 1);
    else unsetenv("HWLOC_FSROOT");
  }
  if (!ok) {
    hwloc_topology_destroy(topo);
    return false;
  }
  hwloc_obj_t pu = nullptr;
  std::vector<int> pus;
  while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
    int cpu = int(pu->os_index);
    pus.push_back(cpu);
    hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
    std::vector<int> sib;
    if (core)
      for (int c : bitmap_to_cpus(core->cpuset))
        if (c != cpu) sib.push_back(c);
    t.siblings[cpu] = sib;
  }
  if (t.online.empty()) t.online = pus;
  t.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  int nkinds = hwloc_cpukinds_get_nr(topo, 0);
  for (int k = 0; k < nkinds; ++k) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int eff = -1;
    unsigned ninfos = 0;
    struct hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(topo, unsigned(k), set, &eff, &ninfos, &infos, 0) == 0) {
      CpuKind kind;
      kind.cpus = bitmap_to_cpus(set);
      kind.efficiency = eff;
      for (unsigned i = 0; i < ninfos; ++i) {
        std::string name = infos[i].name, value = infos[i].value;
        try {
          if (name == "LinuxCapacity") kind.capacity = std::stoi(value);
          if (name == "FrequencyMaxMHz") kind.max_mhz = std::stoi(value);
        } catch (const std::exception&) {
        }
        if (name == "CoreType") kind.name = value == "IntelAtom" ? "E-core" : value == "IntelCore" ? "P-core" : value;
      }
      t.kinds.push_back(std::move(kind));
    }
    hwloc_bitmap_free(set);
  }
  hwloc_topology_destroy(topo);
  t.source = "hwloc";
  return true;
}

void load_from_sysfs(const Sysroot& root, Topology& t) {
  t.source = "sysfs";
  std::map<int, std::vector<int>> by_capacity;
  for (int cpu : t.online) {
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
    auto sib = read_list(root, base + "/topology/thread_siblings_list");
    if (!sib) sib = read_list(root, base + "/topology/core_cpus_list");
    if (sib) {
      std::vector<int> others;
      for (int c : *sib)
        if (c != cpu) others.push_back(c);
      t.siblings[cpu] = others;
    }
    if (auto cap = root.read_int(base + "/cpu_capacity")) by_capacity[int(*cap)].push_back(cpu);
  }
  if (!by_capacity.empty()) {
    int eff = 0;
    for (auto& [cap, cpus] : by_capacity) {
      CpuKind k;
      k.cpus = cpus;
      k.capacity = cap;
      k.efficiency = eff++;
      t.kinds.push_back(k);
    }
  }
  auto nodes = read_list(root, "/sys/devices/system/node/online");
  if (nodes) t.numa_nodes = int(nodes->size());
}

}  // namespace

const CpuKind* Topology::kind_of(int cpu) const {
  for (const auto& k : kinds)
    if (std::find(k.cpus.begin(), k.cpus.end(), cpu) != k.cpus.end()) return &k;
  return nullptr;
}

Topology read_topology(const Sysroot& root) {
  Topology t;
  if (auto online = read_list(root, "/sys/devices/system/cpu/online")) t.online = *online;
  if (auto smt = root.read_int("/sys/devices/system/cpu/smt/active")) t.smt_active = *smt != 0;
  if (!load_with_hwloc(root, t)) load_from_sysfs(root, t);
  record_hwloc_inputs(root, t.online);
  std::sort(t.kinds.begin(), t.kinds.end(),
            [](const CpuKind& a, const CpuKind& b) { return a.efficiency < b.efficiency; });
  fill_capacity(root, t.kinds);
  name_kinds(root, t.kinds);
  if (t.numa_nodes == 0)
    if (auto nodes = read_list(root, "/sys/devices/system/node/online")) t.numa_nodes = int(nodes->size());
  return t;
}

}  // namespace nw::sys
