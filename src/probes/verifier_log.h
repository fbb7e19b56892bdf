// SPDX-License-Identifier: Apache-2.0
// What the kernel's verifier says of each eBPF program, read from its log: the figures it prints
// at BPF_LOG_STATS (instructions processed, states, each subprogram's stack) and, for a program it
// refuses, the line that says why. Verifier limits differ between kernel builds (6.18.44 refused a
// call chain another 6.18 build accepted), so noisewatch measures its margin to them on every
// kernel it runs on (`noisewatch kernel`) instead of trusting the one it was built on.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct bpf_insn;

namespace nw::probes {

// The verifier's limits on a kernel without private BPF stacks: MAX_BPF_STACK for a whole call
// chain, each frame rounded up to 32 bytes; BPF_COMPLEXITY_LIMIT_INSNS (since 5.2).
inline constexpr uint32_t kVerifierStackLimit = 512;
inline constexpr uint32_t kVerifierFrameRound = 32;

struct VerifierStats {
  uint64_t insns_processed = 0, insns_limit = 0;
  uint64_t total_states = 0, peak_states = 0;
  uint64_t time_us = 0;
  std::vector<uint32_t> stack_depths;  // per subprogram, the program itself first
};

// The figures of a BPF_LOG_STATS log; nullopt when it has no "processed N insns" line.
std::optional<VerifierStats> parse_verifier_stats(std::string_view log);

// Why the verifier refused a program: the last line of its log that is not one of the statistics
// lines ("processed ...", "verification time ...", "stack depth ...").
std::string verifier_refusal(std::string_view log);

// A call chain and the stack it takes.
struct StackChain {
  uint32_t bytes = 0;               // the sum of the chain's frames, each rounded up as the verifier does
  std::vector<size_t> subprograms;  // the chain's subprogram indexes, the program itself first
};

// Which subprogram calls which, in a program as the kernel keeps it once loaded (its translated
// instructions and the start of each subprogram, from its func_info). The verifier has removed
// what it found dead by then, subprograms included, and its "stack depth" line counts what is
// left: the two agree. A BPF-to-BPF call keeps its relative target in `off` there.
std::vector<std::vector<size_t>> call_graph(const bpf_insn* insns, size_t count, const std::vector<uint32_t>& starts);

// The deepest call chain's stack, added up from the program's entry as the verifier's
// check_max_stack_depth does, each frame rounded up to 32 bytes (newer JITs round to 16: this is
// the larger); nullopt when `depths` does not have one entry per subprogram. (The verifier checks
// before it removes dead code, so a call in a branch dead in this set-up counts there with an
// empty frame: the set-up that makes it live measures it.)
std::optional<StackChain> deepest_stack_chain(const std::vector<std::vector<size_t>>& calls,
                                              const std::vector<uint32_t>& depths);

// One program's verification on this kernel, as `noisewatch kernel` reports it.
struct ProgramVerification {
  std::string program;
  std::string configuration;  // "run", "--timeline", "--windows", ...: what the loaded object was set up for
  VerifierStats stats;
  std::optional<StackChain> stack;
  std::vector<std::string> chain_names;  // the deepest chain's functions (when the kernel names them)
};

// A program the verifier refused, and the verifier's reason.
struct ProgramRefusal {
  std::string program, reason;
};

}  // namespace nw::probes
