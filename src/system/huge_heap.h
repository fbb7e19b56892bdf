// SPDX-License-Identifier: Apache-2.0
// A scope in which large allocations come from the heap, in transparent huge pages where the
// kernel gives them (THP "always", or "madvise" as on Debian and these VMs). For one burst of
// large allocations touched at once: the kernel's BTF parsed for libbpf (a 5.5 MB copy and its
// type index) faulted in ~1,400 4 KiB pages, each a trap to the hypervisor on this project's VMs:
// 20 ms of noisewatch's ~75 ms since main; in 2 MiB pages a handful (bench/HISTORY.md, 2026-12-07).
#pragma once
#include <cstddef>

namespace nw::sys {

class HugeHeapScope {
 public:
  // Makes room for `bytes` (at most 30 MiB: glibc's largest mmap threshold is 32) at the heap's top.
  explicit HugeHeapScope(size_t bytes);
  // glibc's documented default thresholds again: later large allocations are mapped and freed
  // memory goes back to the kernel. (glibc no longer moves its mmap threshold by itself once a
  // program has set one: measured, no line of bench/overhead.sh got slower. What was allocated
  // inside the scope stays where it is.)
  ~HugeHeapScope();
  HugeHeapScope(const HugeHeapScope&) = delete;
  HugeHeapScope& operator=(const HugeHeapScope&) = delete;
};

}  // namespace nw::sys
