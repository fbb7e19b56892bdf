// How the probe's in-kernel keys become sources: contention is keyed by the task's name alone
// (no pid: a program starting thousands of threads would otherwise insert a key per thread),
// preemption keeps the pid the advice names.
#include <cstring>

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

}  // namespace
}  // namespace nw::probes
