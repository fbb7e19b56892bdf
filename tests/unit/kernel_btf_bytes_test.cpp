// SPDX-License-Identifier: Apache-2.0
// libbpf's loads of the kernel's BTF go through noisewatch's btf__load_vmlinux_btf
// (probes/kernel_btf_bytes.h): parsed from the mapping where the kernel maps the file, and the
// same bytes and types as libbpf's own reading of it.
#include "probes/kernel_btf_bytes.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/btf.h"

namespace nw::probes {
namespace {

TEST(KernelBtfForLibbpf, LibbpfGetsTheKernelsTypesFromTheMapping) {
  if (access(kVmlinuxBtf, R_OK) != 0) GTEST_SKIP() << "no " << kVmlinuxBtf << " here";
  const bool maps = KernelBtfBytes().mapped();
  const int before = libbpf_kernel_btf_loads_from_map();
  // A libbpf entry point that loads the kernel's BTF through its PLT, as loading the probe does.
  const int id = libbpf_find_vmlinux_btf_id("sched_switch", BPF_TRACE_RAW_TP);
  EXPECT_EQ(libbpf_kernel_btf_loads_from_map(), before + (maps ? 1 : 0));

  btf* own = btf__parse(kVmlinuxBtf, nullptr);  // libbpf's own reading of the file
  ASSERT_TRUE(own);
  EXPECT_GT(id, 0);
  EXPECT_EQ(id, btf__find_by_name_kind(own, "btf_trace_sched_switch", BTF_KIND_TYPEDEF));
  btf* ours = btf__load_vmlinux_btf();
  ASSERT_TRUE(ours);
  EXPECT_EQ(btf__type_cnt(ours), btf__type_cnt(own));
  EXPECT_TRUE(test::raw_btf(ours) == test::raw_btf(own));
  EXPECT_EQ(btf__find_by_name_kind(ours, "task_struct", BTF_KIND_STRUCT),
            btf__find_by_name_kind(own, "task_struct", BTF_KIND_STRUCT));
  btf__free(ours);
  btf__free(own);
}

}  // namespace
}  // namespace nw::probes
