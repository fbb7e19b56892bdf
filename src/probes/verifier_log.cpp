// SPDX-License-Identifier: Apache-2.0
#include "probes/verifier_log.h"

#include <linux/bpf.h>

#include <algorithm>
#include <charconv>
#include <functional>

namespace nw::probes {

namespace {

// The number right after `key` in `text`, at or after `from`; nullopt when absent.
std::optional<uint64_t> number_after(std::string_view text, std::string_view key) {
  auto at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const char* p = text.data() + at + key.size();
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(p, text.data() + text.size(), v);
  if (ec != std::errc() || end == p) return std::nullopt;
  return v;
}

bool is_stats_line(std::string_view line) {
  return line.starts_with("processed ") || line.starts_with("verification time ") || line.starts_with("stack depth ") ||
         line.empty();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\0'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n')) s.remove_prefix(1);
  return s;
}

bool is_pseudo_call(const bpf_insn& in) { return in.code == (BPF_JMP | BPF_CALL) && in.src_reg == BPF_PSEUDO_CALL; }

uint32_t frame(uint32_t depth) {
  depth = std::max<uint32_t>(depth, 1);
  return (depth + kVerifierFrameRound - 1) / kVerifierFrameRound * kVerifierFrameRound;
}

}  // namespace

std::optional<VerifierStats> parse_verifier_stats(std::string_view log) {
  auto processed = log.rfind("processed ");
  if (processed == std::string_view::npos) return std::nullopt;
  std::string_view tail = log.substr(processed);
  VerifierStats s;
  auto insns = number_after(tail, "processed ");
  if (!insns) return std::nullopt;
  s.insns_processed = *insns;
  s.insns_limit = number_after(tail, "(limit ").value_or(0);
  s.total_states = number_after(tail, "total_states ").value_or(0);
  s.peak_states = number_after(tail, "peak_states ").value_or(0);
  s.time_us = number_after(log, "verification time ").value_or(0);
  if (auto at = log.find("stack depth "); at != std::string_view::npos) {
    std::string_view line = log.substr(at + 12);
    line = line.substr(0, line.find('\n'));
    const char* p = line.data();
    const char* end = line.data() + line.size();
    while (p < end) {
      uint32_t d = 0;
      auto [next, ec] = std::from_chars(p, end, d);
      if (ec != std::errc()) break;
      s.stack_depths.push_back(d);
      p = next;
      if (p < end && *p == '+') ++p;
    }
  }
  return s;
}

std::string verifier_refusal(std::string_view log) {
  log = trim(log);
  while (!log.empty()) {
    auto nl = log.rfind('\n');
    std::string_view line = trim(nl == std::string_view::npos ? log : log.substr(nl + 1));
    if (!is_stats_line(line)) return std::string(line);
    if (nl == std::string_view::npos) break;
    log = log.substr(0, nl);
  }
  return {};
}

std::vector<std::vector<size_t>> call_graph(const bpf_insn* insns, size_t count, const std::vector<uint32_t>& starts) {
  std::vector<std::vector<size_t>> calls(starts.size());
  if (starts.empty()) return calls;
  auto index_of = [&](size_t insn) {
    return size_t(std::upper_bound(starts.begin(), starts.end(), uint32_t(insn)) - starts.begin()) - 1;
  };
  for (size_t i = 0; i < count; ++i) {
    if (!is_pseudo_call(insns[i])) continue;
    long target = long(i) + insns[i].off + 1;
    if (target < long(starts.front()) || size_t(target) >= count) continue;
    size_t from = index_of(i), to = index_of(size_t(target));
    if (std::find(calls[from].begin(), calls[from].end(), to) == calls[from].end()) calls[from].push_back(to);
  }
  return calls;
}

std::optional<StackChain> deepest_stack_chain(const std::vector<std::vector<size_t>>& calls,
                                              const std::vector<uint32_t>& depths) {
  if (depths.empty() || depths.size() != calls.size()) return std::nullopt;
  // The verifier refuses recursion, so the call graph is a DAG: the deepest chain from each
  // subprogram is its frame plus the deepest of its callees'. (`level` bounds a graph read wrong.)
  std::vector<std::optional<StackChain>> memo(calls.size());
  std::function<StackChain(size_t, size_t)> deepest = [&](size_t s, size_t level) -> StackChain {
    if (memo[s]) return *memo[s];
    StackChain best;
    if (level < calls.size())
      for (size_t c : calls[s]) {
        StackChain sub = deepest(c, level + 1);
        if (sub.bytes > best.bytes) best = sub;
      }
    StackChain here{frame(depths[s]) + best.bytes, {s}};
    here.subprograms.insert(here.subprograms.end(), best.subprograms.begin(), best.subprograms.end());
    memo[s] = here;
    return here;
  };
  return deepest(0, 0);
}

}  // namespace nw::probes
