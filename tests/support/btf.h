// SPDX-License-Identifier: Apache-2.0
// BTF helpers shared by the tests of the kernel-BTF code (the probe's scan, libbpf's load).
#pragma once
#include <bpf/btf.h>

#include <cstdint>
#include <string>

namespace nw::test {

// A BTF object's raw bytes (header, types, strings), as the kernel's file holds them.
inline std::string raw_btf(const btf* b) {
  uint32_t size = 0;
  const void* data = btf__raw_data(b, &size);
  return std::string(static_cast<const char*>(data), size);
}

}  // namespace nw::test
