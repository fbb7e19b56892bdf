// SPDX-License-Identifier: Apache-2.0
// The noise-source vocabulary: what a source name means, in one place. A source is named
// `category:name` ("preemption:kworker/1:2", "irq:virtio1-req.0") or by its category alone
// ("steal"); docs/contracts.md "Source names" lists them. The probe and the runner write names
// with format(); the report engine, compare, check and the agent read them with parse() and ask
// this module what they mean: description, group, time or count, stolen or not.
//
// A new source: CONTRIBUTING.md, "Add a noise source", gives every step and file. This module's
// part is a category constant below and its row in kCategories (vocabulary.cpp): its group,
// whether the probes can only count it, and its description. Attribution, charts, headlines and
// warnings (reports/), the noise diff and its explanation (compare), check's gap attribution, the
// agent's series and the report's advice take it from here.
#pragma once
#include <compare>
#include <string>
#include <string_view>
#include <vector>

namespace nw::sources {

// The categories. The first eight are `category:name`; the others are bare words.
inline constexpr std::string_view kPreemption = "preemption";  // another task ran instead (name: its comm)
inline constexpr std::string_view kContention = "contention";  // one of the benchmark's own tasks did (its comm)
inline constexpr std::string_view kWakeup = "wakeup";          // "wakeup:idle": an idle CPU waking up for it
inline constexpr std::string_view kIrq = "irq";                // hard IRQ (action name) or APIC vector
inline constexpr std::string_view kSoftirq = "softirq";        // softirq vector, upper case
inline constexpr std::string_view kNmi = "nmi";                // NMI handler, or "nmi"
inline constexpr std::string_view kSmt = "smt";                // the comm of the task on the SMT sibling
inline constexpr std::string_view kThrottle =
    "throttle";  // runnable, but its cgroup's CPU quota was used up (name: the group)
inline constexpr std::string_view kBlocking = "blocking";        // none of the benchmark's tasks ran or was runnable
inline constexpr std::string_view kSteal = "steal";              // hypervisor steal (/proc/stat)
inline constexpr std::string_view kFrequency = "frequency";      // time lost to a lower CPU frequency (modelled)
inline constexpr std::string_view kMigration = "migration";      // moves between CPUs (counted)
inline constexpr std::string_view kFault = "fault";              // page faults (timed where the kernel allows)
inline constexpr std::string_view kUnexplained = "unexplained";  // the attribution's remainder, no probe's

// The parts of `blocking`, by what ended each blocking span (the total stays `blocking`; its parts,
// `blocking:<part>`, sum to it in every run): a timer, a device's interrupt, a task, or other.
inline constexpr std::string_view kBlockingSleep = "sleep";  // "blocking:sleep"
inline constexpr std::string_view kBlockingIo = "io";        // "blocking:io:<irq name or softirq>"
inline constexpr std::string_view kBlockingWait = "wait";    // "blocking:wait:<comm of the waker>"
inline constexpr std::string_view kBlockingOther = "other";  // "blocking:other"

struct SourceId {
  std::string category;
  std::string name;  // empty for a bare source
  auto operator<=>(const SourceId&) const = default;
};

// "irq:virtio1-req.0" -> {"irq", "virtio1-req.0"}. Split at the first colon: names may hold
// colons ("preemption:kworker/1:2"). "steal" -> {"steal", ""}.
SourceId parse(std::string_view source);
// The inverse: "category:name", or the category alone when the name is empty.
std::string format(std::string_view category, std::string_view name = {});
std::string format(const SourceId& id);

// "blocking:io:<name>", "blocking:wait:<comm>".
std::string blocking_io(std::string_view irq_or_softirq);
std::string blocking_wait(std::string_view comm);
enum class BlockingPart { none, sleep, io, wait, other };
// Which part of blocking a source is; `none` for the total (`blocking`) and for other categories.
BlockingPart blocking_part(const SourceId& id);
// The IRQ of an io part, the waker of a wait part ("" otherwise).
std::string blocking_party(const SourceId& id);

// The categories of the vocabulary (docs/contracts.md). Unknown ones (a newer probe's, a foreign
// record's) are still read: machine noise, time-valued, described by their own name.
std::vector<std::string_view> known_categories();

// Who is responsible for a source's time.
enum class Group {
  machine,      // noise: the OS, the hardware or the hypervisor took time the benchmark wanted
  workload,     // the benchmark's own doing: blocking, contention, its page faults
  unexplained,  // what the probes cannot see (on a VM, most likely the host)
};
// Its name in the JSON reports: "machine", "workload", "unexplained".
std::string_view group_name(Group g);

// The benchmark's comm as the kernel truncates it (the first 15 characters of argv[0]'s base
// name), to recognise its own tasks in records that named them by comm. "" for no command.
std::string benchmark_comm(const std::vector<std::string>& command);

// The benchmark's own tasks keeping each other waiting: `contention:*`, and in records written
// before that category existed, `preemption:<the benchmark's comm>`.
bool is_contention(const SourceId& id, std::string_view bench_comm);

Group group_of(const SourceId& id, std::string_view bench_comm);

// Whether a source's time was measured or only its events counted. The probes can only count
// migrations, and page faults where the kernel does not let them time the fault; such a source is
// time-valued exactly when its entries carry time (`carries_time`), as faults do where measured.
enum class Kind { time, count };
Kind kind_of(const SourceId& id, bool carries_time);

// Whether a source's time is an overlap: time the benchmark ran while the source ran beside it
// (`smt`: a task on the SMT sibling of its CPU). The benchmark was not kept from running, only
// slowed by some fraction the probes cannot measure (that needs cycle counters); the attribution
// fits that fraction (reports/ATTRIBUTION.md).
bool is_overlap(const SourceId& id);

// Stolen time, the one definition: time a source took from the benchmark while it wanted to run,
// by something other than the benchmark itself — the time of machine sources. Not blocking (it
// did not want to run), not contention nor measured fault time (its own doing), not an overlap
// (it ran), not `unexplained` (a remainder, not a source). RunSample::stolen_ns() sums it over a run.
bool is_stolen(const SourceId& id, std::string_view bench_comm);

// A source in words: a noun phrase for "comes from …", "mostly …" and, for the machine's sources
// (the ones compare names as noise), "more …"/"less …": "preemption by stress-ng", "IRQ time from
// nvme0q3", "NET_RX softirq time", "hypervisor steal".
// Named sources of one category share lead and tail, so several read as one phrase:
// lead + "A, B and C" + tail. A source described as a whole has an empty name.
struct Description {
  std::string lead, name, tail;
  std::string text() const { return lead + name + tail; }
};
Description description(const SourceId& id);
std::string describe(const SourceId& id);
std::string describe(std::string_view source);  // describe(parse(source))

}  // namespace nw::sources
