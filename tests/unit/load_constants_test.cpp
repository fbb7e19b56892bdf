// SPDX-License-Identifier: Apache-2.0
// The load constants (probes/load_constants.h): appended to a BTF as one enum whose values CO-RE
// writes into the programs, every other type keeping its id; and handed to libbpf with the
// kernel's BTF only while a scope lives.
#include "probes/load_constants.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "probes/kernel_btf_bytes.h"
#include "support/btf.h"

namespace nw::probes {
namespace {

// The enumerator `name` of enum nw_load_constant in `b`, or nullopt.
std::optional<uint32_t> constant_in(const btf* b, const char* name) {
  int id = btf__find_by_name_kind(b, kLoadConstantsEnum, BTF_KIND_ENUM);
  if (id < 0) return std::nullopt;
  const btf_type* t = btf__type_by_id(b, uint32_t(id));
  const struct btf_enum* e = btf_enum(t);
  for (uint16_t i = 0; i < btf_vlen(t); ++i, ++e)
    if (std::string(btf__name_by_offset(b, e->name_off)) == name) return uint32_t(e->val);
  return std::nullopt;
}

// A small BTF as the kernel lays one out: an int and a struct using it.
btf* small_btf() {
  btf* b = btf__new_empty();
  int i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
  btf__add_struct(b, "task_struct", 8);
  btf__add_field(b, "pid", i, 0, 0);
  btf__add_field(b, "tgid", i, 32, 0);
  const std::string raw = test::raw_btf(b);  // parsed again: as libbpf gets the kernel's
  btf__free(b);
  return btf__new(raw.data(), uint32_t(raw.size()));
}

TEST(LoadConstants, OneEnumOnTopEveryOtherTypeKeepingItsId) {
  btf* base = small_btf();
  ASSERT_TRUE(base);
  const uint32_t types = btf__type_cnt(base);
  const int task = btf__find_by_name_kind(base, "task_struct", BTF_KIND_STRUCT);
  const LoadConstantsScope scope({{"NW_LOAD_SLOT_MASK", 32767}, {"NW_LOAD_OTHER", 0xffffffffu}});
  btf* with = with_load_constants(base);
  ASSERT_TRUE(with);
  EXPECT_EQ(btf__type_cnt(with), types + 1);
  EXPECT_EQ(btf__find_by_name_kind(with, kLoadConstantsEnum, BTF_KIND_ENUM), int(types));
  EXPECT_EQ(constant_in(with, "NW_LOAD_SLOT_MASK"), 32767u);
  EXPECT_EQ(constant_in(with, "NW_LOAD_OTHER"), 0xffffffffu);  // the bits, whatever the sign
  EXPECT_EQ(constant_in(with, "NW_LOAD_ABSENT"), std::nullopt);
  EXPECT_EQ(btf__find_by_name_kind(with, "task_struct", BTF_KIND_STRUCT), task);
  EXPECT_EQ(btf__find_by_name_kind(with, "int", BTF_KIND_INT), btf__find_by_name_kind(base, "int", BTF_KIND_INT));
  EXPECT_STREQ(btf__name_by_offset(with, btf_members(btf__type_by_id(with, uint32_t(task)))[1].name_off), "tgid");
  btf__free(with);  // the base goes with the scope
}

TEST(LoadConstants, NothingOnTopOutsideAScope) {
  btf* base = small_btf();
  ASSERT_TRUE(base);
  EXPECT_EQ(with_load_constants(base), nullptr);
  EXPECT_EQ(with_load_constants(nullptr), nullptr);
  const LoadConstantsScope empty({});
  EXPECT_EQ(with_load_constants(base), nullptr);
  btf__free(base);
}

TEST(LoadConstants, TheKernelsBtfCarriesThemOnlyWhileTheScopeLives) {
  if (access(kVmlinuxBtf, R_OK) != 0) GTEST_SKIP() << "no " << kVmlinuxBtf << " here";
  btf* own = btf__parse(kVmlinuxBtf, nullptr);
  ASSERT_TRUE(own);
  {
    const LoadConstantsScope scope({{"NW_LOAD_SLOT_MASK", 4095}});
    btf* with = btf__load_vmlinux_btf();  // libbpf's entry point, as loading the probe calls it
    ASSERT_TRUE(with);
    EXPECT_EQ(constant_in(with, "NW_LOAD_SLOT_MASK"), 4095u);
    EXPECT_EQ(btf__type_cnt(with), btf__type_cnt(own) + 1);
    EXPECT_EQ(btf__find_by_name_kind(with, "task_struct", BTF_KIND_STRUCT),
              btf__find_by_name_kind(own, "task_struct", BTF_KIND_STRUCT));
    btf__free(with);  // the kernel's BTF under it goes with the scope
  }
  btf* without = btf__load_vmlinux_btf();
  ASSERT_TRUE(without);
  EXPECT_EQ(constant_in(without, "NW_LOAD_SLOT_MASK"), std::nullopt);
  EXPECT_EQ(btf__type_cnt(without), btf__type_cnt(own));
  btf__free(without);
  btf__free(own);
}

}  // namespace
}  // namespace nw::probes
