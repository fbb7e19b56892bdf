// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "system/cpulist.h"
#include "system/interrupts.h"

namespace nw::sys {
namespace {

TEST(CpuList, ParsesAndFormats) {
  EXPECT_EQ(parse_cpulist("0-3,5\n"), (std::vector<int>{0, 1, 2, 3, 5}));
  EXPECT_EQ(parse_cpulist(""), (std::vector<int>{}));
  EXPECT_EQ(parse_cpulist("7,2,2"), (std::vector<int>{2, 7}));
  EXPECT_EQ(format_cpulist({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
  EXPECT_THROW(parse_cpulist("a-b"), std::invalid_argument);
  EXPECT_THROW(parse_cpulist("3-1"), std::invalid_argument);
  EXPECT_EQ(parse_cpumask("00000003"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_cpumask("1,00000000"), (std::vector<int>{32}));
}

const char* kSample =
    "           CPU0       CPU1       \n"
    "  0:         44          0   IO-APIC   2-edge      timer\n"
    "  1:          0          9   IO-APIC   1-edge      i8042\n"
    " 36:          0      74715 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:      13872      15513   Local timer interrupts\n"
    "ERR:          0\n";

TEST(Interrupts, ParsesDeviceLinesAndVectors) {
  auto t = parse_interrupts(kSample);
  ASSERT_EQ(t.cpus, (std::vector<int>{0, 1}));
  ASSERT_EQ(t.lines.size(), 6u);
  const auto* d = t.find_irq(36);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "virtio1-req.0");
  EXPECT_EQ(d->chip, "PCI-MSIX-0000:00:02.0");
  EXPECT_EQ(t.count(*d, 1), 74715u);
  EXPECT_EQ(t.count(*d, 0), 0u);
  EXPECT_EQ(t.lines[4].id, "LOC");
  EXPECT_FALSE(t.lines[4].device);
  EXPECT_EQ(t.lines[4].description, "Local timer interrupts");
  EXPECT_EQ(t.lines[5].per_cpu.size(), 1u);
  EXPECT_EQ(irq_name(t, 36), "virtio1-req.0");
  EXPECT_EQ(irq_name(t, 99), "irq99");
}

TEST(Interrupts, ReadsFixtureTree) {
  auto t = read_interrupts(NW_SOURCE_DIR "/tests/data/sysroots/laptop-hybrid-untuned");
  EXPECT_EQ(t.cpus.size(), 14u);
  EXPECT_FALSE(t.lines.empty());
}

}  // namespace
}  // namespace nw::sys
