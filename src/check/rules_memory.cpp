// SPDX-License-Identifier: Apache-2.0
// memory-limit: a memory limit on the benchmark's cgroup (or one above it). Near the limit every
// allocation of the group may first have to reclaim (page cache, then swap) in the allocating
// task's own time, and past it the OOM killer ends it: run time then depends on what else the
// container holds. A limit with room is only worth knowing.
#include <fmt/format.h>

#include "check/rule_helpers.h"
#include "check/rules.h"
#include "knobs/catalogue.h"
#include "system/cgroup_limits.h"

namespace nw::check {

namespace {

// The share of the limit in use from which reclaim is likely on the next allocations.
constexpr double kNearLimit = 0.90;

std::string mib(int64_t bytes) { return fmt::format("{:.0f} MiB", double(bytes) / (1 << 20)); }

}  // namespace

Finding check_memory_limit(const CheckContext& ctx) {
  auto own = sys::controller_cgroup_of(ctx.root, "memory");
  auto m = own ? sys::read_memory_limit(ctx.root) : std::nullopt;
  if (!m)
    return make_finding("memory-limit", Status::unknown, ctx.targets,
                        own ? fmt::format("no memory usage file in cgroup {}: the memory limit is unknown", own->dir)
                            : "no memory controller in /proc/self/mountinfo and /proc/self/cgroup: the memory limit is "
                              "unknown");
  if (!m->limit_bytes)
    return make_finding("memory-limit", Status::ok, ctx.targets,
                        fmt::format("no memory limit on cgroup {} or above it (cgroup v{}); it uses {}", own->path,
                                    own->version, mib(m->usage_bytes)));
  const std::string where = m->group.path == own->path
                                ? fmt::format("cgroup {}", own->path)
                                : fmt::format("cgroup {} (above this process's {})", m->group.path, own->path);
  const double used = m->used();
  const std::string amount =
      fmt::format("{} has a memory limit of {} and uses {} of it ({:.0f} %, page cache included)", where,
                  mib(*m->limit_bytes), mib(m->usage_bytes), used * 100);
  Finding f;
  if (used >= kNearLimit) {
    auto kc = fix_context(ctx, ctx.targets);
    kc.cgroup = m->group.path;
    kc.cgroup_version = m->group.version;
    f = make_finding("memory-limit", Status::warn, ctx.targets,
                     amount +
                         ": the benchmark's allocations reclaim first (stalls in its own time), and past the "
                         "limit the OOM killer ends it",
                     knobs::fix_for_finding("memory-limit", kc));
  } else {
    f = make_finding("memory-limit", Status::info, ctx.targets,
                     fmt::format("{}: {} of room; a benchmark needing more stalls in reclaim", amount,
                                 mib(*m->limit_bytes - m->usage_bytes)));
  }
  f.detail = {{"cgroup", m->group.path},
              {"limit_bytes", *m->limit_bytes},
              {"usage_bytes", m->usage_bytes},
              {"cgroup_version", m->group.version}};
  return f;
}

}  // namespace nw::check
