// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/proc_util.h"

#include <dirent.h>
#include <sched.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/files.h"

namespace nw::inject {

namespace {
std::string proc(pid_t pid, const char* file) { return "/proc/" + std::to_string(pid) + "/" + file; }

std::string first_line(std::string s) { return s.substr(0, s.find('\n')); }
}  // namespace

void die(const std::string& msg) {
  std::fprintf(stderr, "noisewatch_inject: %s\n", msg.c_str());
  std::exit(125);
}

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

bool pin_self(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

uint64_t schedstat_runtime(pid_t pid) {
  std::istringstream in(read_file(proc(pid, "schedstat")));
  uint64_t ns = 0;
  in >> ns;
  return ns;
}

std::optional<uint64_t> nr_migrations(pid_t pid) {
  std::istringstream in(read_file(proc(pid, "sched")));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("se.nr_migrations", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon != std::string::npos) return std::strtoull(line.c_str() + colon + 1, nullptr, 10);
  }
  return std::nullopt;
}

int last_cpu(pid_t pid) {
  std::string s = read_file(proc(pid, "stat"));
  auto rp = s.rfind(')');
  if (rp == std::string::npos || rp + 2 > s.size()) return -1;
  std::istringstream in(s.substr(rp + 2));
  std::string f;
  for (int field = 3; in >> f; ++field)
    if (field == 39) return std::atoi(f.c_str());
  return -1;
}

pid_t parent_of(pid_t pid) {
  std::istringstream in(read_file(proc(pid, "status")));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("PPid:", 0) == 0) return pid_t(std::atoi(line.c_str() + 5));
  return -1;
}

std::string comm_of(pid_t pid) { return first_line(read_file(proc(pid, "comm"))); }

std::vector<std::string> thread_comms(pid_t pid) {
  std::vector<std::string> comms;
  DIR* d = opendir(proc(pid, "task").c_str());
  if (!d) return comms;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::string c = first_line(read_file(proc(pid, "task/") + e->d_name + "/comm"));
    if (!c.empty()) comms.push_back(c);
  }
  closedir(d);
  return comms;
}

const sys::InterruptLine* find_irq(const sys::Interrupts& table, const std::string& name) {
  for (const auto& l : table.lines) {
    if (!l.device) continue;
    // Shared lines list several actions; any of them names the line.
    std::istringstream actions(l.name);
    std::string a;
    while (std::getline(actions, a, ' '))
      if (!a.empty() && (a == name || a == name + ",")) return &l;
  }
  return nullptr;
}

uint64_t irq_count_on(const std::string& name, int cpu) {
  auto table = sys::read_interrupts();
  const auto* l = find_irq(table, name);
  return l ? table.count(*l, cpu) : 0;
}

}  // namespace nw::inject
