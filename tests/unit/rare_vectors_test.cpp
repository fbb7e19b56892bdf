// SPDX-License-Identifier: Apache-2.0
// The rare APIC vectors left untraced: which, from /proc/interrupts (this project's VM, recorded
// 2026-12-03: no THR, DFR or PLT line, TRM, SPU and ERR at 0), and the warning when one fired
// during the session after all.
#include <gtest/gtest.h>

#include "probes/rare_vectors.h"
#include "sources/kernel_names.h"

namespace nw::probes {
namespace {

const char* kVm = R"(           CPU0       CPU1       
  1:          0          9  IO-APIC   1-edge      i8042
 24:          0      52071  PCI-MSIX-0000:00:05.0   1-edge      virtio1-req.0
NMI:          0          0   Non-maskable interrupts
LOC:     420583     599001   Local timer interrupts
SPU:          0          0   Spurious interrupts
PMI:          0          0   Performance monitoring interrupts
IWI:         50         26   IRQ work interrupts
RES:      47145      18321   Rescheduling interrupts
CAL:      96063      66312   Function call interrupts
TLB:       5272       4432   TLB shootdowns
TRM:          0          0   Thermal event interrupts
HYP:         68         53   Hypervisor callback interrupts
ERR:          0
MIS:          0
)";

std::vector<std::string> names(const std::vector<uint32_t>& vs) {
  std::vector<std::string> out;
  for (uint32_t v : vs) out.emplace_back(sources::vector_name(v));
  return out;
}

TEST(RareVectors, NeverFiredOnesAreLeftOutAndFrequentOnesNever) {
  auto untraced = never_fired_vectors(sys::parse_interrupts(kVm));
  EXPECT_EQ(names(untraced), (std::vector<std::string>{"thermal", "threshold", "deferred_error", "error", "spurious",
                                                       "x86_platform_ipi", "reboot"}));
  // A machine that has seen a thermal event and a spurious interrupt traces them.
  std::string seen = kVm;
  seen.replace(seen.find("TRM:          0"), 15, "TRM:          3");
  seen.replace(seen.find("SPU:          0          0"), 26, "SPU:          0          1");
  auto fewer = names(never_fired_vectors(sys::parse_interrupts(seen)));
  EXPECT_EQ(std::count(fewer.begin(), fewer.end(), "thermal"), 0);
  EXPECT_EQ(std::count(fewer.begin(), fewer.end(), "spurious"), 0);
  // The tick and the IPIs are traced even at 0; nothing is left out when the file is unreadable.
  std::string zero = kVm;
  zero.replace(zero.find("IWI:         50         26"), 26, "IWI:          0          0");
  auto z = names(never_fired_vectors(sys::parse_interrupts(zero)));
  EXPECT_EQ(std::count(z.begin(), z.end(), "irq_work"), 0);
  EXPECT_TRUE(never_fired_vectors(sys::parse_interrupts("")).empty());
}

TEST(RareVectors, OneThatFiredAfterAllIsSaidOnTheBenchmarksCpus) {
  auto before = sys::parse_interrupts(kVm);
  std::string later = kVm;
  later.replace(later.find("TRM:          0          0"), 26, "TRM:          0          2");
  later.replace(later.find("ERR:          0"), 15, "ERR:          1");
  auto after = sys::parse_interrupts(later);
  auto untraced = never_fired_vectors(before);
  auto on1 = untraced_vectors_fired(untraced, before, after, {1});
  ASSERT_EQ(on1.size(), 2u);  // ERR counts for the whole machine
  EXPECT_NE(on1[0].find("irq:thermal fired 2 times on CPU 1 during the session without being traced"),
            std::string::npos)
      << on1[0];
  EXPECT_NE(on1[1].find("irq:error fired 1 time "), std::string::npos) << on1[1];
  auto on0 = untraced_vectors_fired(untraced, before, after, {0});
  ASSERT_EQ(on0.size(), 1u);  // the thermal event was on CPU 1
  EXPECT_TRUE(untraced_vectors_fired(untraced, before, before, {}).empty());
}

}  // namespace
}  // namespace nw::probes
