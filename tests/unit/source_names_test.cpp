// SPDX-License-Identifier: Apache-2.0
// How the probe's in-kernel keys become sources: contention is keyed by the task's name alone
// (no pid: a program starting thousands of threads would otherwise insert a key per thread),
// preemption keeps the pid the advice names.
#include <cstring>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "probes/source_names.h"
#include "record/source_detail.h"

namespace nw::probes {
namespace {

nw_noise_key key(uint32_t kind, uint32_t id, const char* comm) {
  nw_noise_key k{};
  k.kind = kind;
  k.id = id;
  std::strncpy(k.comm, comm, sizeof k.comm - 1);
  return k;
}

TEST(SourceNames, ContentionHasNoPidPreemptionKeepsIt) {
  EventNamer namer;
  NoiseEvent c = namer.name(key(NW_KIND_CONTENTION, 0, "worker"));
  EXPECT_EQ(c.source, "contention:worker");
  EXPECT_FALSE(SourceDetail::from_json(c.detail).pid) << c.detail.dump();
  NoiseEvent p = namer.name(key(NW_KIND_PREEMPT, 4242, "stress-ng"));
  EXPECT_EQ(p.source, "preemption:stress-ng");
  EXPECT_EQ(SourceDetail::from_json(p.detail).pid, 4242);
}

// Every fixed per-CPU slot stands for one source, and each source for one slot: a slot named
// wrongly (the layout of enum nw_fixed_slot changed on one side only) merges or renames sources.
TEST(SourceNames, EachFixedSlotIsOneSource) {
  std::set<std::pair<uint32_t, uint32_t>> seen;
  for (uint32_t slot = 0; slot < NW_FIXED_COUNT; ++slot) {
    nw_noise_key k = fixed_slot_key(slot);
    EXPECT_TRUE(seen.insert({k.kind, k.id}).second) << "slot " << slot;
  }
  EXPECT_EQ(fixed_slot_key(NW_FIXED_IRQ + 29).kind, uint32_t(NW_KIND_IRQ));
  EXPECT_EQ(fixed_slot_key(NW_FIXED_IRQ + 29).id, 29u);
  EXPECT_EQ(fixed_slot_key(NW_FIXED_SOFTIRQ + 4).kind, uint32_t(NW_KIND_SOFTIRQ));
  EXPECT_EQ(fixed_slot_key(NW_FIXED_STEAL).kind, uint32_t(NW_KIND_STEAL));
  EXPECT_EQ(fixed_slot_key(NW_FIXED_COUNT - 1).id, uint32_t(NW_IRQ_SLOTS - 1));
}

// PREEMPT_RT runs a device's handler in a thread, "irq/26-virtio0-req.1" (its comm cut to 15
// characters): the time it takes is that device's interrupt, named as /proc/interrupts names it.
TEST(SourceNames, AnIrqThreadIsItsDevicesInterrupt) {
  EventNamer namer;
  namer.use_interrupts(
      sys::parse_interrupts("           CPU0       CPU1\n"
                            " 26:          0       4711  PCI-MSI 49153-edge      virtio0-req.1\n"));
  NoiseEvent e = namer.name(key(NW_KIND_PREEMPT, 77, "irq/26-virtio0-"));
  EXPECT_EQ(e.source, "irq:virtio0-req.1");
  auto d = SourceDetail::from_json(e.detail);
  EXPECT_EQ(d.irq, 26);
  EXPECT_EQ(d.pid, 77);
  EXPECT_TRUE(d.irq_thread_event);
  // Not an IRQ thread: irq_work/3 (RT's irq_work thread), a user's "irq/x" process, a bare "irq/".
  for (const char* comm : {"irq_work/3", "irq/x", "irq/", "irq/12x"})
    EXPECT_EQ(namer.name(key(NW_KIND_PREEMPT, 1, comm)).source, std::string("preemption:") + comm);
}

// On PREEMPT_RT the disk's completion wakes the waiting benchmark from the handler's thread: the
// wait was for the device (blocking:io:<name>), as when the hard handler wakes it elsewhere.
TEST(SourceNames, AWakeUpByAnIrqThreadIsThatDevicesIo) {
  EventNamer namer;
  namer.use_interrupts(
      sys::parse_interrupts("           CPU0       CPU1\n"
                            " 29:          0       4711  PCI-MSI 49153-edge      virtio1-req.1\n"));
  NoiseEvent e = namer.name(key(NW_KIND_BLOCK_WAIT, 127, "irq/29-virtio1-"));
  EXPECT_EQ(e.source, "blocking:io:virtio1-req.1");
  EXPECT_EQ(SourceDetail::from_json(e.detail).irq, 29);
  EXPECT_EQ(namer.name(key(NW_KIND_BLOCK_WAIT, 5, "jbd2/vdb-8")).source, "blocking:wait:jbd2/vdb-8");
}

}  // namespace
}  // namespace nw::probes
