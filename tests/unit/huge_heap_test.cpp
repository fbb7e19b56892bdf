// SPDX-License-Identifier: Apache-2.0
// HugeHeapScope: large allocations come from the heap inside it (where its huge pages are), and
// are mapped on their own again after it, as glibc does by default.
#include "system/huge_heap.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace nw::sys {
namespace {

// Whether `p` lies in the brk heap (below its current end), not in a mapping of its own (glibc
// maps those far above it).
bool in_heap(void* p) { return uintptr_t(p) < uintptr_t(sbrk(0)); }

TEST(HugeHeapScope, LargeAllocationsComeFromTheHeapOnlyInsideIt) {
  constexpr size_t kLarge = size_t(6) << 20;  // the size of the kernel's BTF copy
  {
    HugeHeapScope scope(2 * kLarge);
    void* inside = std::malloc(kLarge);
    ASSERT_NE(inside, nullptr);
    EXPECT_TRUE(in_heap(inside));
    std::free(inside);
  }
  // After it, a request larger than the room the heap has left (at most twice what was asked,
  // with the top pad) is mapped on its own again.
  const size_t mapped_before = mallinfo2().hblks;
  void* after = std::malloc(28 << 20);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mapped_before + 1);
  EXPECT_FALSE(in_heap(after));
  std::free(after);
}

}  // namespace
}  // namespace nw::sys
