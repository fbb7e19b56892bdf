// SPDX-License-Identifier: Apache-2.0
#include "probes/load_constants.h"

#include <fmt/format.h>
#include <linux/btf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace nw::probes {

namespace {

struct Scope {
  std::vector<LoadConstant> constants;
  std::vector<btf*> bases;  // under the splits handed out
};

// One per thread: libbpf loads the kernel's BTF in the thread that loads the object, and two
// threads loading probes at once would each have their own scope.
Scope& current() {
  thread_local Scope scope;
  return scope;
}

template <typename T>
void append(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The raw split BTF: a header, the enum, its names. A split's string offsets continue the base's,
// so without the base's header there is none (empty).
std::string split_blob(const btf* base, const std::vector<LoadConstant>& constants) {
  uint32_t size = 0;
  const void* raw = btf__raw_data(base, &size);
  if (!raw || size < sizeof(btf_header)) return {};
  btf_header base_h;
  std::memcpy(&base_h, raw, sizeof base_h);
  const uint32_t base_strings = base_h.str_len;
  std::string names;
  auto name_off = [&](const std::string& name) {
    uint32_t off = base_strings + uint32_t(names.size());
    names.append(name);
    names.push_back('\0');
    return off;
  };
  std::string type;
  struct btf_type t {};
  t.name_off = name_off(kLoadConstantsEnum);
  t.info = (uint32_t(BTF_KIND_ENUM) << 24) | uint32_t(constants.size());
  t.size = 4;
  append(type, t);
  for (const auto& c : constants) {
    struct btf_enum e {};
    e.name_off = name_off(c.name);
    e.val = int32_t(c.value);  // the relocation hands the bits over; the programs read them unsigned
    append(type, e);
  }
  btf_header h{};
  h.magic = BTF_MAGIC;
  h.version = BTF_VERSION;
  h.hdr_len = sizeof h;
  h.type_off = 0;
  h.type_len = uint32_t(type.size());
  h.str_off = h.type_len;
  h.str_len = uint32_t(names.size());
  std::string blob;
  append(blob, h);
  blob += type;
  blob += names;
  return blob;
}

}  // namespace

LoadConstantsScope::LoadConstantsScope(std::vector<LoadConstant> constants) {
  current().constants = std::move(constants);
}

LoadConstantsScope::~LoadConstantsScope() {
  for (btf* base : current().bases) btf__free(base);
  current() = {};
}

btf* with_load_constants(btf* base) {
  Scope& scope = current();
  if (!base || scope.constants.empty() || scope.constants.size() > 0xffff) return nullptr;
  // libbpf 1.1 (Debian 12's) parses a split BTF only from a file: a memory one, named by its
  // descriptor.
  const std::string blob = split_blob(base, scope.constants);
  if (blob.empty()) return nullptr;
  const int fd = memfd_create("nw_load_constants", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  btf* split = nullptr;
  if (write(fd, blob.data(), blob.size()) == ssize_t(blob.size()))
    split = btf__parse_raw_split(fmt::format("/proc/self/fd/{}", fd).c_str(), base);
  close(fd);
  if (!split) return nullptr;
  scope.bases.push_back(base);
  return split;
}

}  // namespace nw::probes
