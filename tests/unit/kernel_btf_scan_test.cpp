// The one-pass BTF scanner against BTF built with libbpf (and, where the machine has it, the
// kernel's own, compared with libbpf's full parse).
#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "probes/kernel_btf_scan.h"
#include "support/files.h"

namespace nw::probes {
namespace {

std::string raw_of(btf* b) {
  uint32_t size = 0;
  const void* data = btf__raw_data(b, &size);
  return std::string(static_cast<const char*>(data), size);
}

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
  ASSERT_GT(rq, 0);
  auto facts = scan_kernel_btf(raw_of(b));
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->tracepoints, (std::set<std::string>{"sched_switch", "irq_handler_entry"}));
  EXPECT_EQ(facts->handle_mm_fault_id, func);
  EXPECT_TRUE(facts->rq_has_prev_steal_time_rq);
  EXPECT_TRUE(facts->task_iterator);
  btf__free(b);
}

TEST(KernelBtfScan, AbsentFactsStayAbsent) {
  btf* b = btf__new_empty();
  int u64 = btf__add_int(b, "unsigned long long", 8, 0);
  btf__add_struct(b, "rq", 8);
  btf__add_field(b, "clock", u64, 0, 0);
  auto facts = scan_kernel_btf(raw_of(b));
  ASSERT_TRUE(facts);
  EXPECT_TRUE(facts->tracepoints.empty());
  EXPECT_EQ(facts->handle_mm_fault_id, -1);
  EXPECT_FALSE(facts->rq_has_prev_steal_time_rq);
  EXPECT_FALSE(facts->task_iterator);
  btf__free(b);
}

TEST(KernelBtfScan, RejectsWhatIsNotBtfOrIsTruncated) {
  EXPECT_FALSE(scan_kernel_btf(""));
  EXPECT_FALSE(scan_kernel_btf(std::string(64, 'x')));
  btf* b = btf__new_empty();
  int u64 = btf__add_int(b, "unsigned long long", 8, 0);
  btf__add_typedef(b, "btf_trace_sched_switch", u64);
  std::string raw = raw_of(b);
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
  btf* v = btf__load_vmlinux_btf();
  ASSERT_TRUE(v);
  EXPECT_EQ(facts->handle_mm_fault_id, btf__find_by_name_kind(v, "handle_mm_fault", BTF_KIND_FUNC));
  EXPECT_EQ(facts->task_iterator, btf__find_by_name_kind(v, "bpf_iter_task", BTF_KIND_FUNC) >= 0);
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
  btf__free(v);
}

}  // namespace
}  // namespace nw::probes
