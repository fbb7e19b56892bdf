// SPDX-License-Identifier: Apache-2.0
// One knob of the catalogue (src/knobs/catalogue.h): what it removes, how to apply it by hand,
// what it costs, and, for the knobs `noisewatch tune` sets at run time, which files to write.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace nw::sys {
class Sysroot;
}

namespace nw::knobs {

enum class Scope {
  runtime,    // /proc or /sys values (and services) that `noisewatch tune` sets and restores
  boot,       // a kernel boot parameter: an edit of the boot loader's command line and a reboot
  benchmark,  // the benchmark process only: a `noisewatch run` flag (--fifo, --clean-env, ...)
  manual,     // by hand only (stop a process)
};
std::string_view scope_name(Scope s);  // "runtime" | "boot" | "benchmark" | "manual"

// What rendered commands are about. Nothing here is read from the machine, so a saved record or
// a snapshot renders the same commands as the live machine.
struct Context {
  std::vector<int> cpus;            // the benchmark's CPUs; empty renders "<cpu>"
  std::vector<int> online;          // online CPUs; empty: unknown ("<housekeeping cpus>")
  std::string command = "./bench";  // the benchmark command line, already shell-quoted
  bool sudo = false;                // prefix privileged commands with sudo (check) or not (report)
  std::vector<int> irqs;            // irq-affinity: only these IRQs (empty: every IRQ)
  std::string process;              // stop-process: the command name (comm)
  std::vector<int> pids;            // stop-process: some of its pids
  std::vector<int> siblings;        // smt-off: the siblings to take offline (empty: found by hand)
  std::string cgroup;               // cpu-quota, cpu-quota-cpuset: the group whose quota throttles;
                                    // memory-limit: the group whose limit is nearest ("" when unknown)
  int cgroup_version = 0;           // those knobs: 1 or 2 (0: unknown)
};

// The benchmark CPUs split from the housekeeping CPUs. At least one online CPU always stays for
// housekeeping (timers, RCU, IRQs, kernel threads): when the benchmark CPUs cover every online
// CPU, the lowest one is given back and `note` says so.
struct CpuSplit {
  std::vector<int> isolated, housekeeping;
  std::string note;  // "CPU 0 stays for housekeeping (...)"
};
CpuSplit split_cpus(const std::vector<int>& cpus, const std::vector<int>& online);

// How a file's content is compared and put back (sysfs files do not all read back what was
// written to them).
enum class Format {
  text,     // the trimmed content ("2", "performance")
  choice,   // a list with the current choice in brackets: "always [madvise] never"
  cpulist,  // "0-3,5"
  cpumask,  // hex mask, comma every 32 bits: "ff,ffffffff"
};
std::string_view format_name(Format f);
Format format_from_name(std::string_view name);  // throws std::invalid_argument
// The value a content stands for: "madvise" for "always [madvise] never\n", "0-1" for "3".
std::string value_of(Format f, std::string_view content);
// Whether `content` already holds the value `written` sets.
bool same_value(Format f, std::string_view content, std::string_view written);
// What to write so that the file reads back `before` ("madvise\n" for "always [madvise] never\n").
std::string restore_write(Format f, std::string_view before);

// One file write of a runtime knob: a machine path (/proc/..., /sys/...) and the bytes to write.
struct Write {
  std::string path;
  std::string value;
  Format format = Format::text;
  // Where the kernel says when it has acted on the write, read back after it (a cpulist): an IRQ's
  // effective_affinity_list moves only at its next interrupt on x86's IO-APIC.
  std::string effective = {};
};

// What a runtime knob would do on a machine, read just before it is applied.
struct Plan {
  std::vector<Write> writes;
  std::vector<std::string> stop_services;  // systemd units to stop ("irqbalance.service")
  std::string absent;                      // non-empty: the knob does not exist here, and why
  std::string note;                        // why nothing needs doing, or a caveat worth printing
};

// The CPUs a runtime knob is planned for.
struct Targets {
  std::vector<int> cpus;  // the benchmark CPUs
  std::vector<int> online;
  std::vector<int> housekeeping;  // online minus cpus (never empty when online has 2 CPUs)
};

using Planner = Plan (*)(const sys::Sysroot& root, const Targets& t);
using Renderer = std::vector<std::string> (*)(const Context& c);
// A boot parameter for the isolated and housekeeping CPU lists: ("2-7", "0-1") -> "nohz_full=2-7".
using BootParam = std::string (*)(const std::string& isolated, const std::string& housekeeping);

struct Knob {
  std::string_view id{};  // stable: recommendations and the tune journal use it
  std::string_view title{};
  Scope scope = Scope::runtime;
  std::string_view removes{};  // the noise it removes, in words
  // Noise sources it addresses: "frequency" (exact), "smt:*" (category), "preemption:kworker/u*"
  // (prefix); "!irq:local_timer" excludes. Coarse: a recommendation may ask more of a source.
  std::vector<std::string_view> sources{};
  std::vector<std::string_view> findings{};  // `check` finding ids it fixes
  std::string_view tradeoff{};
  std::string_view run_flag{};  // the `run` flag that applies it to one benchmark, or ""
  std::string_view run_arg{};   // the flag's value ("1" for --fifo); --cpu takes the benchmark CPUs
  bool opt_in = false;          // `tune apply` sets it only when named in --only
  std::string_view needs{};     // runtime: only worth applying along with this knob (irqbalance)
  Renderer commands = nullptr;  // the commands to apply it by hand (boot knobs: see boot_edit)
  Planner plan = nullptr;       // runtime scope: what `tune` writes
  BootParam boot = nullptr;     // boot scope: the parameter for these CPUs
  std::string_view boot_key{};  // boot scope: the parameter's name on /proc/cmdline
  bool boot_on_targets = true;  // boot scope: its CPU list names the benchmark CPUs (or housekeeping)

  bool reboot() const { return scope == Scope::boot; }
  bool addresses(std::string_view source) const;
};

}  // namespace nw::knobs
