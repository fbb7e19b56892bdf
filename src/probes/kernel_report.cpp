// SPDX-License-Identifier: Apache-2.0
#include "probes/kernel_report.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/errors.h"
#include "probes/kernel_btf_bytes.h"
#include "probes/noise_probe.h"

namespace nw::probes {

std::vector<std::string> margin_problems(const ProgramVerification& v) {
  std::vector<std::string> out;
  if (!v.stack) out.push_back("stack: the verifier's log gave no depth for each subprogram");
  else if (v.stack->bytes > kStackMargin)
    out.push_back(fmt::format("stack {} B > {} B (3/4 of the verifier's {} B)", v.stack->bytes, kStackMargin,
                              kVerifierStackLimit));
  if (v.stats.insns_limit && v.stats.insns_processed * kInsnsMarginDivisor > v.stats.insns_limit)
    out.push_back(fmt::format("{} instructions processed > 1/{} of the verifier's limit of {}", v.stats.insns_processed,
                              kInsnsMarginDivisor, v.stats.insns_limit));
  return out;
}

namespace {

struct Setup {
  const char* name;
  ProbeOptions options;
};

std::vector<Setup> setups() {
  ProbeOptions timeline;
  timeline.timeline.on = true;
  ProbeOptions windows;
  windows.windows = true;
  ProbeOptions exec = windows;
  exec.windows_exec = "noisewatch";
  ProbeOptions pyperf = windows;
  pyperf.windows_exec_as_root = true;
  ProbeOptions calls = windows;
  calls.call = {0, true, true};
  ProbeOptions all = exec;
  all.windows_exec_as_root = true;
  all.call = {0, true, true};
  all.timeline.on = true;
  return {{"run", {}},
          {"--timeline", timeline},
          {"--windows", windows},
          {"--windows-exec", exec},
          {"--windows pyperf", pyperf},
          {"--windows gbench / --windows-at", calls},
          {"all of them at once", all}};
}

}  // namespace

KernelReport examine_kernel() {
  KernelReport r;
  utsname u{};
  if (uname(&u) == 0) {
    r.release = u.release;
    r.machine = u.machine;
  }
  r.btf = access(kVmlinuxBtf, R_OK) == 0;
  for (auto& s : setups()) {
    SetupResult res{s.name, false, ""};
    try {
      NoiseProbe probe(s.options);
      res.loaded = true;
      for (auto& v : probe.verification()) {
        v.configuration = s.name;
        r.programs.push_back(std::move(v));
      }
      if (r.setups.empty()) {
        r.unavailable = probe.unavailable();
        if (!probe.measures_steal())
          r.unavailable.push_back({"steal",
                                   "this kernel keeps no rq.prev_steal_time_rq "
                                   "(CONFIG_PARAVIRT_TIME_ACCOUNTING): steal is read from /proc/stat, in 10 ms ticks"});
        if (!probe.task_times())
          r.unavailable.push_back({"task iterator",
                                   "no BPF task iterator: the neighbours' CPU time is read from /proc (slower, "
                                   "the same figures)"});
      }
    } catch (const Error& e) {
      res.refusal = e.what();
    }
    r.setups.push_back(std::move(res));
  }
  return r;
}

std::string render_kernel_text(const KernelReport& r) {
  std::string out =
      fmt::format("Linux {} ({}), BTF {}\n", r.release, r.machine, r.btf ? "yes" : "no (/sys/kernel/btf/vmlinux)");
  out += "\nSet-ups (the probe as each command line loads it)\n";
  for (const auto& s : r.setups)
    out += fmt::format("  {:<34} {}\n", s.configuration, s.loaded ? "loads" : "REFUSED: " + s.refusal);
  out += "\nNot available on this kernel\n";
  if (r.unavailable.empty()) out += "  nothing\n";
  for (const auto& u : r.unavailable) out += fmt::format("  {:<16} {}\n", u.probe, u.reason);
  out += fmt::format(
      "\neBPF programs: the largest of each over the set-ups (verifier limits: {} B of stack per call chain, "
      "{} instructions processed;\nnoisewatch's margins: {} B, 1/{})\n",
      kVerifierStackLimit, r.programs.empty() ? 0 : r.programs.front().stats.insns_limit, kStackMargin,
      kInsnsMarginDivisor);
  // One line per program: its largest stack, and its largest instruction count, over the set-ups.
  std::vector<std::string> names;
  for (const auto& p : r.programs)
    if (std::find(names.begin(), names.end(), p.program) == names.end()) names.push_back(p.program);
  out +=
      fmt::format("  {:<30} {:>8} {:>8}  {:<8}  {}\n", "program", "insns", "states", "stack", "deepest chain (set-up)");
  for (const auto& name : names) {
    const ProgramVerification *by_stack = nullptr, *by_insns = nullptr;
    for (const auto& p : r.programs) {
      if (p.program != name) continue;
      if (!by_insns || p.stats.insns_processed > by_insns->stats.insns_processed) by_insns = &p;
      uint32_t bytes = p.stack ? p.stack->bytes : 0;
      if (!by_stack || bytes > (by_stack->stack ? by_stack->stack->bytes : 0)) by_stack = &p;
    }
    std::string stack = by_stack->stack ? fmt::format("{} B", by_stack->stack->bytes) : "?";
    std::string chain = fmt::format("{} ({})", fmt::join(by_stack->chain_names, " > "), by_stack->configuration);
    auto problems = margin_problems(*by_stack);
    for (auto& m : margin_problems(*by_insns))
      if (std::find(problems.begin(), problems.end(), m) == problems.end()) problems.push_back(m);
    out += fmt::format("  {:<30} {:>8} {:>8}  {:<8}  {}{}\n", name, by_insns->stats.insns_processed,
                       by_insns->stats.peak_states, stack, chain,
                       problems.empty() ? "" : "  ! " + fmt::format("{}", fmt::join(problems, "; ")));
  }
  return out;
}

std::string render_kernel_json(const KernelReport& r) {
  nlohmann::json j;
  j["schema"] = "noisewatch.kernel/1";
  j["release"] = r.release;
  j["machine"] = r.machine;
  j["btf"] = r.btf;
  j["limits"] = {{"stack_bytes", kVerifierStackLimit},
                 {"stack_margin_bytes", kStackMargin},
                 {"insns_margin_fraction", 1.0 / double(kInsnsMarginDivisor)}};
  j["setups"] = nlohmann::json::array();
  for (const auto& s : r.setups) {
    nlohmann::json e{{"configuration", s.configuration}, {"loaded", s.loaded}};
    if (!s.loaded) e["refusal"] = s.refusal;
    j["setups"].push_back(e);
  }
  j["unavailable"] = nlohmann::json::array();
  for (const auto& u : r.unavailable) j["unavailable"].push_back({{"probe", u.probe}, {"reason", u.reason}});
  j["programs"] = nlohmann::json::array();
  for (const auto& p : r.programs) {
    nlohmann::json e{{"program", p.program},
                     {"configuration", p.configuration},
                     {"insns_processed", p.stats.insns_processed},
                     {"insns_limit", p.stats.insns_limit},
                     {"peak_states", p.stats.peak_states},
                     {"total_states", p.stats.total_states},
                     {"verification_us", p.stats.time_us},
                     {"subprogram_stack_bytes", p.stats.stack_depths},
                     {"margin_problems", margin_problems(p)}};
    e["stack_bytes"] = p.stack ? nlohmann::json(p.stack->bytes) : nlohmann::json(nullptr);
    e["stack_chain"] = p.chain_names;
    j["programs"].push_back(e);
  }
  return j.dump(2) + "\n";
}

}  // namespace nw::probes
