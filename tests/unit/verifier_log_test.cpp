// SPDX-License-Identifier: Apache-2.0
// The verifier's log as noisewatch reads it: the BPF_LOG_STATS figures, a refusal's reason, the
// deepest call chain's stack (as check_max_stack_depth adds it up), and the margins
// `noisewatch kernel` holds every program to. The logs are the kernel's own lines (6.18.44, this
// project's CI kind, 2026-12-04: on_switch as --timeline set it up before its stack was cut, and
// after).
#include <gtest/gtest.h>
#include <linux/bpf.h>

#include "probes/kernel_report.h"
#include "probes/verifier_log.h"

namespace nw::probes {
namespace {

const char* kAccepted =
    "Func#1 ('tl_write') is global and assumed valid.\n"
    "verification time 8690 usec\n"
    "stack depth 160+32+72+32+40+32+8+56+40\n"
    "processed 6811 insns (limit 1000000) max_states_per_insn 9 total_states 488 peak_states 470 mark_read 0\n";

const char* kRefused =
    "Func#7 ('throttled_group') is safe for any args that match its prototype\n"
    "combined stack size of 3 calls is 608. Too large\n"
    "verification time 9120 usec\n"
    "stack depth 216+104+72+96+144+32+88+40\n"
    "processed 8489 insns (limit 1000000) max_states_per_insn 9 total_states 565 peak_states 543 mark_read 0\n";

TEST(VerifierLog, StatsLinesGiveEachFigure) {
  auto s = parse_verifier_stats(kAccepted);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->insns_processed, 6811u);
  EXPECT_EQ(s->insns_limit, 1000000u);
  EXPECT_EQ(s->total_states, 488u);
  EXPECT_EQ(s->peak_states, 470u);
  EXPECT_EQ(s->time_us, 8690u);
  EXPECT_EQ(s->stack_depths, (std::vector<uint32_t>{160, 32, 72, 32, 40, 32, 8, 56, 40}));
  EXPECT_FALSE(parse_verifier_stats("R1 type=scalar expected=fp\n"));
  // A kernel that prints no stack line (a log cut short) still gives its instruction count.
  auto bare = parse_verifier_stats(
      "processed 12 insns (limit 1000000) max_states_per_insn 0 total_states 1 "
      "peak_states 1 mark_read 0\n");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->insns_processed, 12u);
  EXPECT_TRUE(bare->stack_depths.empty());
}

TEST(VerifierLog, RefusalIsTheLastLineThatIsNotAStatistic) {
  EXPECT_EQ(verifier_refusal(kRefused), "combined stack size of 3 calls is 608. Too large");
  // 6.1's refusal of a global function's memory argument as a map key, as the issue quoted it.
  EXPECT_EQ(verifier_refusal(
                "; hash_add(&e->key, ...)\nR2 type=mem expected=fp, pkt, pkt_meta, map_key, map_value\n"
                "processed 42 insns (limit 1000000) max_states_per_insn 0 total_states 3 peak_states 3 mark_read 1\n"),
            "R2 type=mem expected=fp, pkt, pkt_meta, map_key, map_value");
  EXPECT_EQ(verifier_refusal("processed 1 insns (limit 1000000)\n"), "");
}

bpf_insn call_to(int32_t relative) {
  bpf_insn in{};
  in.code = BPF_JMP | BPF_CALL;
  in.src_reg = BPF_PSEUDO_CALL;
  in.off = int16_t(relative);  // as the kernel keeps a BPF-to-BPF call once loaded
  in.imm = 0;                  // zeroed for a reader without the right to raw dumps
  return in;
}

bpf_insn plain() {
  bpf_insn in{};
  in.code = BPF_ALU64 | BPF_MOV | BPF_K;
  return in;
}

bpf_insn exit_insn() {
  bpf_insn in{};
  in.code = BPF_JMP | BPF_EXIT;
  return in;
}

// main (0-3) calls a (4-6) and b (7-9); a calls b. The chain main > a > b is the deepest.
std::vector<bpf_insn> three_subprograms() {
  std::vector<bpf_insn> p(10, plain());
  p[1] = call_to(4 - 1 - 1);  // main -> a
  p[2] = call_to(7 - 2 - 1);  // main -> b
  p[3] = exit_insn();
  p[5] = call_to(7 - 5 - 1);  // a -> b
  p[6] = exit_insn();
  p[9] = exit_insn();
  return p;
}

TEST(VerifierLog, DeepestChainAddsFramesRoundedAsTheVerifierDoes) {
  auto p = three_subprograms();
  auto calls = call_graph(p.data(), p.size(), {0, 4, 7});
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], (std::vector<size_t>{1, 2}));
  EXPECT_EQ(calls[1], (std::vector<size_t>{2}));
  EXPECT_TRUE(calls[2].empty());
  // 216 -> 224, 104 -> 128, 0 -> 32 (an empty frame still takes 32 bytes).
  auto chain = deepest_stack_chain(calls, {216, 104, 0});
  ASSERT_TRUE(chain);
  EXPECT_EQ(chain->bytes, 224u + 128u + 32u);
  EXPECT_EQ(chain->subprograms, (std::vector<size_t>{0, 1, 2}));
  // When b's frame is larger than a's and b's together, main > b is the deepest.
  chain = deepest_stack_chain(calls, {8, 8, 300});
  ASSERT_TRUE(chain);
  EXPECT_EQ(chain->bytes, 32u + 32u + 320u);
  // One depth per subprogram, or nothing is claimed.
  EXPECT_FALSE(deepest_stack_chain(calls, {216, 104}));
}

TEST(VerifierLog, ARefusedChainIsOverTheLimitAndTodaysIsWithinTheMargin) {
  // The refused layout: on_switch > resync > throttle_end, 224 + 128 + 96 = 448 bytes even before
  // --timeline added its 160: past the margin, which is what the test of every program on every
  // kernel (tests/e2e/kernel_e2e_test.cpp, tests/vm) would have said first.
  ProgramVerification v;
  v.program = "on_switch";
  v.stats = *parse_verifier_stats(kRefused);
  v.stack = StackChain{448, {0, 1, 6}};
  auto problems = margin_problems(v);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("448 B > 384 B"), std::string::npos) << problems[0];
  v.stats = *parse_verifier_stats(kAccepted);
  v.stack = StackChain{320, {0, 2, 3, 1}};
  EXPECT_TRUE(margin_problems(v).empty());
  // Close to the instruction limit is a problem too, and so is a stack nobody could measure.
  v.stats.insns_processed = 200000;
  v.stack.reset();
  EXPECT_EQ(margin_problems(v).size(), 2u);
}

}  // namespace
}  // namespace nw::probes
