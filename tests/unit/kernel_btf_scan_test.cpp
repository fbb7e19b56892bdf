// SPDX-License-Identifier: Apache-2.0
// The one-pass BTF scanner against BTF built with libbpf (and, where the machine has it, the
// kernel's own, compared with libbpf's full parse).
#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "probes/kernel_btf_scan.h"
#include "support/btf.h"
#include "support/files.h"

namespace nw::probes {
namespace {

TEST(KernelBtfScan, FindsTracepointsTheFaultFunctionAndTheStealField) {
  btf* b = btf__new_empty();
  int u64 = btf__add_int(b, "unsigned long long", 8, 0);
  int proto = btf__add_func_proto(b, u64);
  btf__add_typedef(b, "btf_trace_sched_switch", proto);
  btf__add_typedef(b, "btf_trace_irq_handler_entry", proto);
  btf__add_typedef(b, "not_a_trace_typedef", u64);
  int rq = btf__add_struct(b, "rq", 16);
  btf__add_field(b, "clock", u64, 0, 0);
  btf__add_field(b, "prev_steal_time_rq", u64, 64, 0);
  btf__add_enum(b, "some_enum", 4);
  btf__add_enum_value(b, "A", 1);
  int func = btf__add_func(b, "handle_mm_fault", BTF_FUNC_GLOBAL, proto);
  btf__add_func(b, "bpf_iter_task", BTF_FUNC_STATIC, proto);
  btf__add_struct(b, "bpf_mem_alloc", 8);
  ASSERT_GT(rq, 0);
  auto facts = scan_kernel_btf(test::raw_btf(b));
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->tracepoints, (std::set<std::string>{"sched_switch", "irq_handler_entry"}));
  EXPECT_EQ(facts->handle_mm_fault_id, func);
  EXPECT_TRUE(facts->rq_has_prev_steal_time_rq);
  EXPECT_TRUE(facts->task_iterator);
  EXPECT_TRUE(facts->mem_alloc);
  btf__free(b);
}

// The members read with plain reads: the throttled group's name path (cfs_rq.tg, task_group.css,
// cgroup_subsys_state.cgroup, cgroup.kn, kernfs_node.id), hrtimer._softexpires, pid.level and
// pid.numbers; the first struct of each name.
TEST(KernelBtfScan, FindsTheOffsetsOfThePlainReads) {
  btf* b = btf__new_empty();
  int u64 = btf__add_int(b, "unsigned long long", 8, 0);
  int ptr = btf__add_ptr(b, u64);
  struct Field {
    const char* name;
    int type;
    uint32_t bit_offset;
  };
  auto add_struct = [&](const char* name, uint32_t size, std::initializer_list<Field> fields) {
    int id = btf__add_struct(b, name, size);
    for (const auto& f : fields) btf__add_field(b, f.name, f.type, f.bit_offset, 0);
    return id;
  };
  add_struct("cfs_rq", 24, {{"load", u64, 0}, {"tg", ptr, 128}});
  int css = add_struct("cgroup_subsys_state", 16, {{"cgroup", ptr, 0}, {"ss", ptr, 64}});
  add_struct("task_group", 24, {{"css", css, 0}, {"shares", u64, 128}});
  add_struct("cgroup", 40, {{"self", css, 0}, {"kn", ptr, 256}});
  add_struct("kernfs_node", 16, {{"parent", ptr, 0}, {"id", u64, 64}});
  add_struct("hrtimer", 48, {{"node", u64, 0}, {"_softexpires", u64, 256}});
  add_struct("pid", 160, {{"count", u64, 0}, {"level", u64, 32}, {"numbers", u64, 1152}});
  add_struct("cfs_rq", 16, {{"tg", ptr, 64}});  // a second of the name: ignored
  auto facts = scan_kernel_btf(test::raw_btf(b));
  ASSERT_TRUE(facts);
  const auto& o = facts->offsets;
  EXPECT_TRUE(o.group_name());
  EXPECT_EQ(o.cfs_rq_tg, 16);
  EXPECT_EQ(o.task_group_css, 0);
  EXPECT_EQ(o.css_cgroup, 0);
  EXPECT_EQ(o.cgroup_kn, 32);
  EXPECT_EQ(o.kernfs_node_id, 8);
  EXPECT_EQ(o.hrtimer_softexpires, 32);
  EXPECT_TRUE(o.pid());
  EXPECT_EQ(o.pid_level, 4);
  EXPECT_EQ(o.pid_numbers, 144);
  btf__free(b);
}

TEST(KernelBtfScan, AbsentFactsStayAbsent) {
  btf* b = btf__new_empty();
  int u64 = btf__add_int(b, "unsigned long long", 8, 0);
  btf__add_struct(b, "rq", 8);
  btf__add_field(b, "clock", u64, 0, 0);
  auto facts = scan_kernel_btf(test::raw_btf(b));
  ASSERT_TRUE(facts);
  EXPECT_TRUE(facts->tracepoints.empty());
  EXPECT_EQ(facts->handle_mm_fault_id, -1);
  EXPECT_FALSE(facts->rq_has_prev_steal_time_rq);
  EXPECT_FALSE(facts->task_iterator);
  EXPECT_FALSE(facts->mem_alloc);
  EXPECT_FALSE(facts->offsets.group_name());
  EXPECT_FALSE(facts->offsets.pid());
  EXPECT_EQ(facts->offsets.cfs_rq_tg, -1);
  EXPECT_EQ(facts->offsets.hrtimer_softexpires, -1);
  btf__free(b);
}

TEST(KernelBtfScan, RejectsWhatIsNotBtfOrIsTruncated) {
  EXPECT_FALSE(scan_kernel_btf(""));
  EXPECT_FALSE(scan_kernel_btf(std::string(64, 'x')));
  btf* b = btf__new_empty();
  int u64 = btf__add_int(b, "unsigned long long", 8, 0);
  btf__add_typedef(b, "btf_trace_sched_switch", u64);
  std::string raw = test::raw_btf(b);
  btf__free(b);
  // Cut inside the type section: the header's lengths now point past the end.
  EXPECT_FALSE(scan_kernel_btf(raw.substr(0, raw.size() / 2)));
  // An unknown kind (31) in the first type: the scanner refuses rather than guess its size.
  std::string odd = raw;
  uint32_t hdr_len = 0, type_off = 0;
  std::memcpy(&hdr_len, odd.data() + 4, 4);
  std::memcpy(&type_off, odd.data() + 8, 4);
  uint32_t info = 31u << 24;
  std::memcpy(odd.data() + hdr_len + type_off + 4, &info, 4);
  EXPECT_FALSE(scan_kernel_btf(odd));
}

// On a machine with kernel BTF: the scan agrees with libbpf's full parse on every fact.
TEST(KernelBtfScan, AgreesWithLibbpfOnThisKernel) {
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) GTEST_SKIP() << "no /sys/kernel/btf/vmlinux here";
  auto facts = scan_kernel_btf(test::slurp("/sys/kernel/btf/vmlinux"));
  ASSERT_TRUE(facts);
  btf* v = btf__parse("/sys/kernel/btf/vmlinux", nullptr);  // libbpf's own reading of the file
  ASSERT_TRUE(v);
  EXPECT_EQ(facts->handle_mm_fault_id, btf__find_by_name_kind(v, "handle_mm_fault", BTF_KIND_FUNC));
  EXPECT_EQ(facts->task_iterator, btf__find_by_name_kind(v, "bpf_iter_task", BTF_KIND_FUNC) >= 0);
  EXPECT_EQ(facts->mem_alloc, btf__find_by_name_kind(v, "bpf_mem_alloc", BTF_KIND_STRUCT) >= 0);
  size_t typedefs = 0;
  for (uint32_t id = 1; id < btf__type_cnt(v); ++id) {
    const btf_type* t = btf__type_by_id(v, id);
    if (!btf_is_typedef(t)) continue;
    std::string name = btf__name_by_offset(v, t->name_off);
    if (name.rfind("btf_trace_", 0) != 0) continue;
    ++typedefs;
    EXPECT_TRUE(facts->tracepoints.count(name.substr(10))) << name;
  }
  EXPECT_EQ(facts->tracepoints.size(), typedefs);
  EXPECT_GT(typedefs, 100u);
  // The group name's offsets, where the kernel has them all (CONFIG_FAIR_GROUP_SCHED, cgroups).
  auto offset = [&](const char* type, const char* member) -> int64_t {
    int id = btf__find_by_name_kind(v, type, BTF_KIND_STRUCT);
    if (id < 0) return -1;
    const btf_type* t = btf__type_by_id(v, uint32_t(id));
    const btf_member* m = btf_members(t);
    for (uint16_t i = 0; i < btf_vlen(t); ++i, ++m)
      if (std::strcmp(btf__name_by_offset(v, m->name_off), member) == 0) return btf_member_bit_offset(t, i) / 8;
    return -1;
  };
  const auto& o = facts->offsets;
  EXPECT_EQ(o.cfs_rq_tg, offset("cfs_rq", "tg"));
  EXPECT_EQ(o.task_group_css, offset("task_group", "css"));
  EXPECT_EQ(o.css_cgroup, offset("cgroup_subsys_state", "cgroup"));
  EXPECT_EQ(o.cgroup_kn, offset("cgroup", "kn"));
  EXPECT_EQ(o.kernfs_node_id, offset("kernfs_node", "id"));
  EXPECT_EQ(o.hrtimer_softexpires, offset("hrtimer", "_softexpires"));
  EXPECT_EQ(o.pid_level, offset("pid", "level"));
  EXPECT_EQ(o.pid_numbers, offset("pid", "numbers"));
  EXPECT_TRUE(o.pid());
  btf__free(v);
}

}  // namespace
}  // namespace nw::probes
