// SPDX-License-Identifier: Apache-2.0
#include "system/huge_heap.h"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace nw::sys {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
constexpr int kMaxThreshold = 32 << 20;    // glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit
constexpr int kGlibcDefault = 128 * 1024;  // M_MMAP_THRESHOLD, M_TRIM_THRESHOLD and M_TOP_PAD (mallopt(3))
}  // namespace

HugeHeapScope::HugeHeapScope(size_t bytes) {
  const int room = int(std::min(bytes, size_t(kMaxThreshold) - kHugePage));
  // Served from the heap, not each its own mapping (glibc maps a request of the threshold or
  // more); kept there when freed, so the room made below is what they get.
  mallopt(M_MMAP_THRESHOLD, kMaxThreshold);
  mallopt(M_TRIM_THRESHOLD, 2 * kMaxThreshold);
  mallopt(M_TOP_PAD, room);
  // Grow the heap by the room, mark its whole 2 MiB pages for huge pages, and give it back to the
  // allocator untouched: the first touch of each faults in a huge page.
  void* p = std::malloc(size_t(room));
  if (!p) return;
  const auto begin = (uintptr_t(p) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (uintptr_t(p) + size_t(room)) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // no THP: 4 KiB pages
  std::free(p);
}

HugeHeapScope::~HugeHeapScope() {
  mallopt(M_MMAP_THRESHOLD, kGlibcDefault);
  mallopt(M_TRIM_THRESHOLD, kGlibcDefault);
  mallopt(M_TOP_PAD, kGlibcDefault);
}

}  // namespace nw::sys
