// SPDX-License-Identifier: Apache-2.0
#include "probes/noise_probe.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/files.h"
#include "common/phase_timing.h"
#include "noise.skel.h"
#include "probes/kernel_btf_bytes.h"
#include "probes/kernel_features.h"
#include "probes/load_constants.h"
#include "probes/rare_vectors.h"
#include "probes/source_names.h"
#include "probes/task_iterator.h"
#include "probes/verifier_log.h"
#include "record/source_detail.h"
#include "sources/kernel_names.h"
#include "sources/vocabulary.h"
#include "system/cpulist.h"
#include "system/host_info.h"
#include "system/interrupts.h"
#include "system/monotonic_clock.h"
#include "system/sysctl.h"
#include "system/sysroot.h"

namespace nw::probes {

namespace {

// libbpf's own messages are kept for the error we report, not printed as they come.
std::string& libbpf_log() {
  static std::string log;
  return log;
}

int libbpf_print(enum libbpf_print_level level, const char* fmt, va_list args) {
  // NOISEWATCH_BPF_LOG: everything libbpf and the verifier say, as they say it, for whoever
  // debugs a kernel that refuses a program.
  static const bool to_stderr = getenv("NOISEWATCH_BPF_LOG") != nullptr;
  if (to_stderr) return vfprintf(stderr, fmt, args);
  if (level == LIBBPF_DEBUG) return 0;
  char buf[1024];
  vsnprintf(buf, sizeof(buf), fmt, args);
  auto& log = libbpf_log();
  if (log.size() < 64 * 1024) log += buf;
  return 0;
}

std::string last_log_line() {
  std::string log = libbpf_log();
  while (!log.empty() && log.back() == '\n') log.pop_back();
  auto nl = log.rfind('\n');
  return nl == std::string::npos ? log : log.substr(nl + 1);
}

}  // namespace

struct NoiseProbe::Impl {
  noise_bpf* skel = nullptr;
  int ncpus = 0;
  uint32_t slot_mask = 0;
  std::vector<nw::Unavailable> unavailable;
  EventNamer namer;
  // The `cpus` array, memory-mapped: fields are read and cleared one at a time, so user space
  // never writes back a stale copy of what the programs are updating.
  nw_cpu_state* cpus = nullptr;
  size_t cpus_len = 0;

  std::unique_ptr<WindowMarkers> markers;
  std::unique_ptr<TimelineRing> timeline;

  void track(pid_t tid, uint32_t flags, uint64_t cpu_base);
  bool measures_steal = false;
  std::vector<uint32_t> untraced_vectors;
  sys::Interrupts interrupts_at_start;
  std::set<int> with_sibling;           // read once here; the runner asks (machine limits)
  std::map<int, uint64_t> cpufreq_khz;  // the CPUs a cpufreq driver serves: their frequency at start
  // The programs' insert count (noise_inserts) when collect last left the hash empty; nullopt
  // while it may hold keys (collect walks it then).
  std::optional<uint64_t> noise_emptied_at = 0;
  std::vector<std::pair<const bpf_program*, VerifierStats>> verifier_stats;  // each loaded program's

  ~Impl() {
    markers.reset();  // their links and ring buffer before the object
    timeline.reset();
    if (cpus) munmap(cpus, cpus_len);
    if (skel) noise_bpf__destroy(skel);
  }

  template <typename T>
  static T load(const T& field) {
    return __atomic_load_n(&field, __ATOMIC_RELAXED);
  }
};

// Every program is loaded with a small log of the verifier's own statistics (BPF_LOG_STATS: a few
// lines, no instruction trace, nothing the kernel spends time on): its figures are the margins
// `noisewatch kernel` reports, NOISEWATCH_TIMING prints each program's verification time, and a
// program the kernel refuses is named with the verifier's reason. (Without a buffer of ours,
// libbpf would load the program again at log level 1 to explain a refusal, and its message would
// arrive in pieces.)
class VerifierLogs {
 public:
  explicit VerifierLogs(bpf_object* obj) {
    // NOISEWATCH_BPF_LOG: libbpf's own handling, which loads a refused program again at log level
    // 1 and prints the verifier's whole account of it.
    if (getenv("NOISEWATCH_BPF_LOG")) return;
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj) {
      if (!bpf_program__autoload(prog)) continue;
      // Roomy: a kernel before 6.4 fails the whole load (ENOSPC) when the log does not fit.
      auto& log = logs_.emplace_back(prog, std::string(16384, '\0'));
      bpf_program__set_log_buf(prog, log.second.data(), log.second.size());
      bpf_program__set_log_level(prog, 4);  // BPF_LOG_STATS
    }
  }
  // After a successful load: each program's figures (the logs are dropped).
  std::vector<std::pair<const bpf_program*, VerifierStats>> take_stats() {
    std::vector<std::pair<const bpf_program*, VerifierStats>> out;
    uint64_t total_us = 0;
    for (auto& [prog, log] : logs_) {
      auto st = parse_verifier_stats(log.c_str());
      if (!st) continue;
      total_us += st->time_us;
      timing::detail(fmt::format("verifier {} {:.2f} ms ({} insns processed)", bpf_program__name(prog),
                                 double(st->time_us) / 1e3, st->insns_processed));
      out.emplace_back(prog, std::move(*st));
    }
    if (!out.empty())
      timing::detail(fmt::format("verifier total {:.2f} ms over {} programs", double(total_us) / 1e3, out.size()));
    logs_.clear();
    return out;
  }
  // After a failed load: the program the verifier refused (libbpf stops at the first) and why.
  std::optional<ProgramRefusal> refusal() const {
    for (const auto& [prog, log] : logs_) {
      if (bpf_program__fd(prog) >= 0) continue;
      std::string why = verifier_refusal(log.c_str());
      if (!why.empty()) return ProgramRefusal{bpf_program__name(prog), why};
    }
    return std::nullopt;
  }

 private:
  std::deque<std::pair<bpf_program*, std::string>> logs_;  // the buffers stay put until the load
};

std::string kernel_release() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "unknown";
}

// The options that change what the programs are verified as, for a refusal's advice.
std::string options_in_effect(const ProbeOptions& opts) {
  std::vector<std::string> on;
  if (opts.timeline.on) on.push_back("--timeline");
  if (opts.windows)
    on.push_back(!opts.windows_exec.empty() || opts.windows_exec_as_root ? "--windows-exec" : "--windows");
  return fmt::format("{}", fmt::join(on, " and "));
}

// The per-CPU state is memory-mapped and padded to keep CPUs off each other's cache lines.
static_assert(sizeof(nw_cpu_state) == 320, "nw_cpu_state: keep the padding at 320 bytes (five cache lines)");

// PIDFD_THREAD from <linux/pidfd.h> (Linux 6.9); Debian 12's headers predate it.
constexpr unsigned kPidfdThread = 0200000;  // O_EXCL

NoiseProbe::NoiseProbe(const ProbeOptions& opts) : impl_(std::make_unique<Impl>()) {
  libbpf_set_print(libbpf_print);
  if (access(kVmlinuxBtf, R_OK) != 0)
    throw Error(
        "this kernel has no BTF (/sys/kernel/btf/vmlinux is missing): noisewatch's eBPF "
        "probes need a kernel built with CONFIG_DEBUG_INFO_BTF=y");
  impl_->ncpus = libbpf_num_possible_cpus();
  if (impl_->ncpus <= 0) throw Error("cannot count the possible CPUs (/sys/devices/system/cpu/possible)");
  if (impl_->ncpus > NW_MAX_CPUS)
    throw Error(fmt::format("this machine has {} possible CPUs; noisewatch supports {}", impl_->ncpus, NW_MAX_CPUS));

  auto* skel = noise_bpf__open();
  if (!skel) throw Error(fmt::format("cannot open the eBPF object: {}", std::strerror(errno)));
  impl_->skel = skel;
  timing::mark("probe open");
  bpf_map__set_max_entries(skel->maps.cpus, uint32_t(impl_->ncpus));
  bpf_map__set_max_entries(skel->maps.leaving_at, uint32_t(impl_->ncpus));
  // The noise hash has an entry per source and CPU: room for NW_MAX_NOISE_KEYS sources on each of
  // up to four CPUs at once (a run's pinned CPUs; check's watched CPUs share it beyond that).
  bpf_map__set_max_entries(skel->maps.noise, uint32_t(NW_MAX_NOISE_KEYS * std::min(impl_->ncpus, 4)));
  // One slot per possible pid where pid_max allows (no two tracked tasks can then share one).
  const long long pid_max = sys::read_sysctl_int(sys::Sysroot(), "kernel.pid_max").value_or(NW_MAX_TASK_SLOTS);
  uint32_t slots = 1;
  while (slots < NW_MAX_TASK_SLOTS && slots < pid_max) slots <<= 1;
  // Testing knob: NOISEWATCH_TASK_SLOTS=N (a power of two) shrinks the array so that tracked
  // tasks collide and take the overflow path, which a real pid_max seldom exercises.
  if (const char* forced = getenv("NOISEWATCH_TASK_SLOTS")) {
    unsigned long n = std::strtoul(forced, nullptr, 10);
    if (n >= 1 && n <= NW_MAX_TASK_SLOTS && (n & (n - 1)) == 0) slots = uint32_t(n);
  }
  bpf_map__set_max_entries(skel->maps.task_slots, slots + NW_OVERFLOW_SLOTS);
  skel->rodata->slot_mask = slots - 1;
  impl_->slot_mask = slots - 1;
  // Testing knob: NOISEWATCH_TEST_UNSEEN_COMM=NAME hides that task's switches and wake-ups from
  // the programs, as these VMs hide their init agent's (bpf/noise.bpf.c, resync).
  if (const char* unseen = getenv("NOISEWATCH_TEST_UNSEEN_COMM"); unseen && *unseen) {
    skel->rodata->test_unseen_on = true;
    std::strncpy(const_cast<char*>(skel->rodata->test_unseen_comm), unseen, NW_COMM_LEN - 1);
  }
  // Testing knob: NOISEWATCH_TEST_REFUSE=1 makes the verifier refuse on_exit (bpf/noise.bpf.c).
  if (const char* refuse = getenv("NOISEWATCH_TEST_REFUSE"); refuse && *refuse == '1') skel->rodata->test_refuse = true;
  configure_windows(skel, opts.windows, opts.windows_exec, opts.windows_exec_as_root, opts.call, opts.timeline);

  for (int c = 0; c < impl_->ncpus; ++c) {
    std::string cur = read_file(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_cur_freq", c));
    if (!cur.empty()) impl_->cpufreq_khz[c] = std::stoull(cur);
  }
  // Without a cpufreq driver the frequency never changes as far as the kernel knows: no program
  // to load, attach and detach (the run says why frequency is not measured).
  if (impl_->cpufreq_khz.empty()) bpf_program__set_autoload(skel->progs.on_cpu_frequency, false);
  ProgramPlan plan = plan_programs(skel->obj, is_window_program);
  impl_->measures_steal = plan.measures_steal;
  // Preallocating the noise hash (32,768 entries on two CPUs) cost 6-8 ms of a ~65 ms start-up
  // here (strace -T: zeroing 3 MB and threading every element onto a free list). Where the kernel
  // has BPF's any-context allocator its elements come on demand instead: a run without windows
  // inserts each source once per repetition and CPU, at most a few per program run, which the
  // allocator's per-CPU cache holds. --windows keeps the preallocation (bpf/noise.bpf.c, noise).
  if (plan.mem_alloc && !opts.windows)
    bpf_map__set_map_flags(skel->maps.noise, bpf_map__map_flags(skel->maps.noise) | BPF_F_NO_PREALLOC);
  skel->rodata->has_rdonly_cast = plan.rdonly_cast;
  const KernelOffsets& off = plan.offsets;
  if (off.group_name()) {
    skel->rodata->group_name_ok = true;
    skel->rodata->off_cfs_rq_tg = uint32_t(off.cfs_rq_tg);
    skel->rodata->off_tg_cgroup = uint32_t(off.task_group_css + off.css_cgroup);
    skel->rodata->off_cgroup_kn = uint32_t(off.cgroup_kn);
    skel->rodata->off_kn_id = uint32_t(off.kernfs_node_id);
  }
  if (off.hrtimer_softexpires >= 0) {
    skel->rodata->timer_late_ok = true;
    skel->rodata->off_hrtimer_softexpires = uint32_t(off.hrtimer_softexpires);
  }
  if (off.pid()) {
    skel->rodata->off_pid_level = uint32_t(off.pid_level);
    skel->rodata->off_pid_numbers = uint32_t(off.pid_numbers);
  }
  impl_->untraced_vectors = plan.untraced_vectors;
  impl_->interrupts_at_start = std::move(plan.interrupts_at_start);
  for (auto& u : plan.unavailable) impl_->unavailable.push_back(std::move(u));
  timing::mark("BTF scan and program plan");
  VerifierLogs verifier(skel->obj);
  // The slot mask also as an immediate (load_constants.h), where libbpf finds every name the
  // object needs in the kernel's own BTF: the one kfunc is there from 6.2 (on 6.1 libbpf looks
  // for it in the modules' BTF, which the constants' split would skew).
  std::vector<LoadConstant> immediates;
  if (plan.rdonly_cast) immediates.push_back({"NW_LOAD_SLOT_MASK", impl_->slot_mask});
  const LoadConstantsScope constants(std::move(immediates));

  if (int err = noise_bpf__load(skel)) {
    // The verifier's refusal (EACCES for most, EINVAL for some) is the kernel's judgement of a
    // program, not of who loads it: said as such, with what avoids it.
    if (auto refused = verifier.refusal()) {
      std::string opts_on = options_in_effect(opts);
      throw Error(fmt::format(
          "this kernel ({}) refuses the eBPF program {}{}: \"{}\" — {}; `noisewatch kernel` "
          "shows what this kernel accepts",
          kernel_release(), refused->program, opts_on.empty() ? "" : " (set up for " + opts_on + ")", refused->reason,
          opts_on.empty() ? "noisewatch cannot measure here: report it with that line"
                          : "run without " + opts_on + ", or on a kernel that accepts it"));
    }
    std::string why = last_log_line();
    if (err == -EPERM || err == -EACCES)
      throw Error(
          "not allowed to load eBPF programs: run as root, or grant CAP_BPF and CAP_PERFMON "
          "(sudo setcap cap_bpf,cap_perfmon,cap_sys_resource+ep $(command -v noisewatch))");
    throw Error(
        fmt::format("cannot load the eBPF programs ({}){}", std::strerror(-err), why.empty() ? "" : ": " + why));
  }
  // libbpf has freed the kernel's BTF it parsed in a huge-page heap (kernel_btf_bytes.cpp): give
  // those pages back now, not whenever a later free trims the heap (the agent runs for days).
  malloc_trim(0);
  timing::mark("probe load (verifier)");
  impl_->verifier_stats = verifier.take_stats();

  impl_->cpus_len = size_t(impl_->ncpus) * sizeof(nw_cpu_state);
  void* mem = mmap(nullptr, impl_->cpus_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(skel->maps.cpus), 0);
  if (mem == MAP_FAILED) throw Error(fmt::format("cannot map the per-CPU state: {}", std::strerror(errno)));
  impl_->cpus = static_cast<nw_cpu_state*>(mem);

  // Per-CPU configuration: watched CPUs and their measurers, SMT siblings, frequency seed
  // (nothing runs yet).
  std::set<int> watch(opts.watch_cpus.begin(), opts.watch_cpus.end());
  for (int c = 0; c < impl_->ncpus; ++c) {
    nw_cpu_state& cfg = impl_->cpus[c];
    cfg.watched = watch.count(c) ? 1 : 0;
    auto measurer = opts.measurer_by_cpu.find(c);
    if (measurer != opts.measurer_by_cpu.end()) {
      cfg.watch_measurer = uint32_t(measurer->second);
      cfg.watch_min_ns = opts.watch_min_ns;
    }
    std::string base = fmt::format("/sys/devices/system/cpu/cpu{}/", c);
    try {
      auto sibs = sys::parse_cpulist(read_file(base + "topology/thread_siblings_list"));
      for (int s : sibs)
        if (s != c) cfg.sibling = uint32_t(s + 1);  // two-way SMT: the other thread of the core
      if (cfg.sibling) impl_->with_sibling.insert(c);
    } catch (const std::exception&) {
    }
    if (auto f = impl_->cpufreq_khz.find(c); f != impl_->cpufreq_khz.end()) {
      cfg.freq_khz = f->second;
      cfg.freq_ts = sys::monotonic_ns();
    }
  }

  timing::mark("probe configuration");
  if (int err = noise_bpf__attach(skel)) {
    std::string why = last_log_line();
    throw Error(
        fmt::format("cannot attach the eBPF programs ({}){}", std::strerror(-err), why.empty() ? "" : ": " + why));
  }
  if (plan.fault_time) {
    bpf_link* entry = bpf_program__attach(skel->progs.on_fault_entry);
    bpf_link* exit = entry ? bpf_program__attach(skel->progs.on_fault_exit) : nullptr;
    if (entry && exit) {
      skel->links.on_fault_entry = entry;  // destroyed with the skeleton
      skel->links.on_fault_exit = exit;
    } else {
      std::string why = last_log_line();
      if (entry) bpf_link__destroy(entry);
      impl_->unavailable.push_back({"fault time", fmt::format("cannot trace handle_mm_fault ({}): page faults are "
                                                              "counted (getrusage), their cost is estimated",
                                                              why.empty() ? std::strerror(errno) : why)});
    }
  }
  if (opts.windows) impl_->markers = std::make_unique<WindowMarkers>(skel);
  if (opts.timeline.on) impl_->timeline = std::make_unique<TimelineRing>(skel);
  impl_->namer.use_interrupts(impl_->interrupts_at_start);  // read by plan_programs just now
  timing::mark("probe attach");
}

WindowMarkers* NoiseProbe::markers() { return impl_->markers.get(); }

std::vector<timeline::Event> NoiseProbe::drain_timeline() {
  std::vector<timeline::Event> out;
  if (!impl_->timeline) return out;
  for (const auto& r : impl_->timeline->drain()) {
    nw_noise_key key{};
    key.kind = r.kind;
    key.id = r.id;
    std::memcpy(key.comm, r.comm, sizeof key.comm);
    NoiseEvent named = impl_->namer.name(key);
    timeline::Event e;
    e.start_ns = r.end_ns - std::min(r.end_ns, r.dur_ns);
    e.dur_ns = r.dur_ns;
    e.cpu = int(r.cpu);
    e.source = std::move(named.source);
    if (auto pid = SourceDetail::from_json(named.detail).pid) e.pid = *pid;
    e.window = r.window;
    out.push_back(std::move(e));
  }
  return out;
}

TimelineDrops NoiseProbe::timeline_drops() const {
  return impl_->timeline ? impl_->timeline->drops() : TimelineDrops{};
}

NoiseProbe::~NoiseProbe() = default;

void NoiseProbe::track(pid_t tid) { impl_->track(tid, 0, 0); }

void NoiseProbe::track_held(pid_t pid, uint64_t runtime_ns) {
  __atomic_store_n(&impl_->skel->bss->bench_exit_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&impl_->skel->bss->bench_tgid, uint32_t(pid), __ATOMIC_RELAXED);
  impl_->track(pid, NW_TASK_HELD, runtime_ns);
}

void NoiseProbe::Impl::track(pid_t tid, uint32_t flags, uint64_t cpu_base) {
  nw_task_info info{};  // NW_PHASE_NEW: its state shows at its next switch or wake-up
  info.gen = __atomic_load_n(&skel->data->generation, __ATOMIC_RELAXED);
  info.pid = uint32_t(tid);
  info.flags = flags;
  info.cpu_base = cpu_base;
  // The held child may not have reached its wait yet (under TCG, milliseconds from it): its run
  // from here to its next switch-out is noisewatch's, measured from now like any held slice (a
  // switch-in seen first restarts the slice there).
  if (flags & NW_TASK_HELD) info.held_since = sys::monotonic_ns();
  uint32_t idx = uint32_t(tid) & slot_mask;
  int slots_fd = bpf_map__fd(skel->maps.task_slots);
  nw_task_info held{};
  if (bpf_map_lookup_elem(slots_fd, &idx, &held) == 0 && (held.gen != info.gen || held.pid == info.pid)) {
    if (bpf_map_update_elem(slots_fd, &idx, &info, BPF_ANY))
      throw Error(fmt::format("cannot track task {}: {}", tid, std::strerror(errno)));
    return;
  }
  // Its slot is taken: the next entry of the overflow part, named in the task's storage, keyed by
  // a pidfd. PIDFD_THREAD (Linux 6.9) lets that name a thread that is not a process leader, as
  // check's spinner threads are.
  uint64_t n = __atomic_fetch_add(&skel->bss->overflow_tasks, 1, __ATOMIC_RELAXED);
  if (n >= NW_OVERFLOW_SLOTS)
    throw Error(fmt::format("cannot track task {}: more than {} tracked tasks share pids modulo {}", tid,
                            NW_OVERFLOW_SLOTS, slot_mask + 1));
  uint32_t at = slot_mask + 1 + n;
  if (bpf_map_update_elem(slots_fd, &at, &info, BPF_ANY))
    throw Error(fmt::format("cannot track task {}: {}", tid, std::strerror(errno)));
  int pidfd = int(syscall(SYS_pidfd_open, tid, kPidfdThread));
  if (pidfd < 0 && errno == EINVAL) pidfd = int(syscall(SYS_pidfd_open, tid, 0));
  if (pidfd < 0) throw Error(fmt::format("cannot track task {}: pidfd_open: {}", tid, std::strerror(errno)));
  int rc = bpf_map_update_elem(bpf_map__fd(skel->maps.task_overflow), &pidfd, &at, BPF_ANY);
  int err = errno;
  close(pidfd);
  if (rc) throw Error(fmt::format("cannot track task {}: {}", tid, std::strerror(err)));
}

void NoiseProbe::set_watched(int cpu, bool on) {
  if (cpu < 0 || cpu >= impl_->ncpus) return;
  nw_cpu_state& st = impl_->cpus[cpu];
  // Opening forgets the mark of an earlier window, so the first span charged starts at a switch
  // seen while open. Run on `cpu`, these stores are seen in this order by its programs.
  if (on) __atomic_store_n(&st.watch_mark_ns, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&st.watched, on ? 1u : 0u, __ATOMIC_RELEASE);
}

void NoiseProbe::untrack_all() {
  // Every entry of the old generation stops counting at once, and the overflow part is handed out
  // from its start again; task storage frees itself with its task (or with the map), so nothing
  // needs deleting.
  __atomic_add_fetch(&impl_->skel->data->generation, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&impl_->skel->bss->overflow_tasks, 0, __ATOMIC_RELAXED);
  // The benchmark-wide activity count starts again from nothing tracked.
  __atomic_store_n(&impl_->skel->bss->active_tasks, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&impl_->skel->bss->idle_since, 0, __ATOMIC_RELAXED);
  // A task that left while runnable (killed) would leave its CPU looking contended forever.
  for (int c = 0; c < impl_->ncpus; ++c) {
    nw_cpu_state& st = impl_->cpus[c];
    __atomic_store_n(&st.waiting, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st.throttled_n, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st.curr_tracked, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st.tracked_since, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&st.wake_queued_from, 0, __ATOMIC_RELAXED);  // a cause from the last repetition
  }
}

void NoiseProbe::begin_run() { __atomic_store_n(&impl_->skel->bss->idle_since, 0, __ATOMIC_RELAXED); }

namespace {

// Every value of a per-CPU array, entry-major (entry i's CPUs at [i * ncpus, (i + 1) * ncpus)), in
// one system call: collect() runs twice per repetition, and element by element it was ~40 calls,
// ~0.1 ms of each repetition of a short benchmark. Element lookups where the kernel has no batch
// operations (before 5.6). Entries that cannot be read stay zero (nothing to add).
template <typename V>
std::vector<V> read_percpu_array(int fd, uint32_t entries, size_t ncpus) {
  static_assert(sizeof(V) % 8 == 0, "per-CPU values are laid out 8-byte aligned");
  std::vector<V> all(size_t(entries) * ncpus);
  std::vector<uint32_t> keys(entries);
  uint32_t count = entries, next = 0;
  int rc = bpf_map_lookup_batch(fd, nullptr, &next, keys.data(), all.data(), &count, nullptr);
  if ((rc == 0 || errno == ENOENT) && count == entries) return all;
  std::fill(all.begin(), all.end(), V{});
  for (uint32_t i = 0; i < entries; ++i) bpf_map_lookup_elem(fd, &i, all.data() + size_t(i) * ncpus);
  return all;
}

}  // namespace

std::vector<NoiseEvent> NoiseProbe::collect(bool reset) {
  const size_t ncpus = size_t(impl_->ncpus);
  // Per (key, CPU): the hash, the fixed slots and the preemption cache can each hold a part.
  std::map<std::pair<std::string, int>, std::pair<nw_noise_key, nw_noise_val>> acc;
  // Returns whether there was anything to add: slots that held nothing need no clearing.
  auto add = [&](nw_noise_key k, int cpu, const nw_noise_val& v) {
    if (!v.count) return false;
    k.cpu = 0;  // the CPU is the second half of the map's key: one entry per source and CPU
    auto& [key, val] = acc[{std::string(reinterpret_cast<const char*>(&k), sizeof k), cpu}];
    key = k;
    val.count += v.count;
    val.time_ns += v.time_ns;
    val.max_ns = std::max(val.max_ns, v.max_ns);
    return true;
  };

  // The cache first: an entry evicted into the hash while we read is then seen twice at worst
  // (only on watched CPUs, where records keep coming; a run's tracked tasks are gone by now).
  int cache_fd = bpf_map__fd(impl_->skel->maps.preempt_cache);
  const auto entries = read_percpu_array<nw_noise_entry>(cache_fd, NW_PREEMPT_CACHE, ncpus);
  const std::vector<nw_noise_entry> zero_entries(ncpus);
  for (uint32_t i = 0; i < NW_PREEMPT_CACHE; ++i) {
    bool held = false;
    for (size_t c = 0; c < ncpus; ++c) held |= add(entries[i * ncpus + c].key, int(c), entries[i * ncpus + c].val);
    if (reset && held) bpf_map_update_elem(cache_fd, &i, zero_entries.data(), BPF_ANY);
  }
  int fixed_fd = bpf_map__fd(impl_->skel->maps.fixed);
  const auto fixed = read_percpu_array<nw_noise_val>(fixed_fd, NW_FIXED_COUNT, ncpus);
  const std::vector<nw_noise_val> zero_vals(ncpus);
  for (uint32_t i = 0; i < NW_FIXED_COUNT; ++i) {
    nw_noise_key k = fixed_slot_key(i);
    bool held = false;
    for (size_t c = 0; c < ncpus; ++c) held |= add(k, int(c), fixed[i * ncpus + c]);
    if (reset && held) bpf_map_update_elem(fixed_fd, &i, zero_vals.data(), BPF_ANY);
  }

  // The hash is walked only when it may hold a key: an empty one's walk still reads every bucket
  // (~20 us here for 32,768, twice a repetition, when a short benchmark seldom leaves a key). The
  // programs count each insert after it is made, and the count is read before the walk, so a key
  // the walk could not see was counted after that read and makes the next collect walk.
  const uint64_t inserts = __atomic_load_n(&impl_->skel->bss->noise_inserts, __ATOMIC_ACQUIRE);
  const bool maybe_keys = !impl_->noise_emptied_at || *impl_->noise_emptied_at != inserts;
  int fd = bpf_map__fd(impl_->skel->maps.noise);
  std::vector<nw_noise_key> keys;
  nw_noise_key key{}, next{};
  nw_noise_key* prev = nullptr;
  while (maybe_keys && bpf_map_get_next_key(fd, prev, &next) == 0) {
    keys.push_back(next);
    key = next;
    prev = &key;
  }
  bool emptied = reset;
  for (const auto& k : keys) {
    nw_noise_val v{};
    int rc = reset ? bpf_map_lookup_and_delete_elem(fd, &k, &v) : bpf_map_lookup_elem(fd, &k, &v);
    if (rc != 0 && reset) {  // kernels before 5.14: no lookup-and-delete on hashes
      rc = bpf_map_lookup_elem(fd, &k, &v);
      if (rc == 0 && bpf_map_delete_elem(fd, &k) != 0) emptied = false;
    }
    if (rc == 0 && k.cpu < ncpus) add(k, int(k.cpu), v);
  }
  if (maybe_keys) impl_->noise_emptied_at = emptied ? std::optional<uint64_t>(inserts) : std::nullopt;

  std::vector<NoiseEvent> out;
  for (const auto& [where, kv] : acc) {
    NoiseEvent e = impl_->namer.name(kv.first);
    e.cpu = where.second;
    e.count = kv.second.count;
    e.time_ns = kv.second.time_ns;
    e.max_ns = kv.second.max_ns;
    e.window = kv.first.window;
    out.push_back(std::move(e));
  }
  return out;
}

uint64_t NoiseProbe::lost_events() const {
  std::vector<nw_probe_stats> st(size_t(impl_->ncpus));
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(impl_->skel->maps.probe_stats), &zero, st.data())) return 0;
  uint64_t lost = 0;
  for (const auto& s : st) lost += s.lost_noise_keys + s.lost_tracked;
  // A program the kernel did not run because one was already running on that CPU (its recursion
  // guard): the event it would have seen is lost too.
  bpf_program* prog;
  bpf_object__for_each_program(prog, impl_->skel->obj) {
    int fd = bpf_program__fd(prog);
    if (fd < 0) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
      lost += info.recursion_misses;
    }
  }
  return lost;
}

ProbeSwitches NoiseProbe::switches() const {
  ProbeSwitches n;
  for (int c = 0; c < impl_->ncpus; ++c) {
    n.seen.voluntary += Impl::load(impl_->cpus[c].switches_voluntary);
    n.seen.involuntary += Impl::load(impl_->cpus[c].switches_involuntary);
    n.unseen += Impl::load(impl_->cpus[c].switches_unseen);
  }
  return n;
}

namespace {

// A loaded program's subprograms as the kernel keeps them: where each starts in its translated
// instructions, its name (from the BTF loaded with it), and those instructions.
struct LoadedProgram {
  std::vector<uint32_t> starts;
  std::vector<std::string> names;
  std::vector<bpf_insn> insns;
};

std::optional<LoadedProgram> loaded_program(int prog_fd) {
  bpf_prog_info info{};
  uint32_t len = sizeof info;
  if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len) || !info.nr_func_info || !info.xlated_prog_len)
    return std::nullopt;
  std::vector<bpf_func_info> funcs(info.nr_func_info);
  LoadedProgram p;
  p.insns.resize(info.xlated_prog_len / sizeof(bpf_insn));
  bpf_prog_info with{};
  with.nr_func_info = info.nr_func_info;
  with.func_info_rec_size = sizeof(bpf_func_info);
  with.func_info = uint64_t(uintptr_t(funcs.data()));
  with.xlated_prog_len = uint32_t(p.insns.size() * sizeof(bpf_insn));
  with.xlated_prog_insns = uint64_t(uintptr_t(p.insns.data()));
  len = sizeof with;
  if (bpf_obj_get_info_by_fd(prog_fd, &with, &len)) return std::nullopt;
  btf* b = info.btf_id ? btf__load_from_kernel_by_id(info.btf_id) : nullptr;
  for (const auto& f : funcs) {
    p.starts.push_back(f.insn_off);
    const btf_type* t = b ? btf__type_by_id(b, f.type_id) : nullptr;
    p.names.push_back(t ? btf__name_by_offset(b, t->name_off) : fmt::format("#{}", p.names.size()));
  }
  if (b) btf__free(b);
  return p;
}

}  // namespace

std::vector<ProgramVerification> NoiseProbe::verification() const {
  std::vector<ProgramVerification> out;
  for (const auto& [prog, stats] : impl_->verifier_stats) {
    ProgramVerification v;
    v.program = bpf_program__name(prog);
    v.stats = stats;
    if (auto loaded = loaded_program(bpf_program__fd(prog))) {
      v.stack = deepest_stack_chain(call_graph(loaded->insns.data(), loaded->insns.size(), loaded->starts),
                                    stats.stack_depths);
      if (v.stack)
        for (size_t s : v.stack->subprograms) v.chain_names.push_back(loaded->names[s]);
    }
    out.push_back(std::move(v));
  }
  return out;
}

bool NoiseProbe::measures_steal() const { return impl_->measures_steal; }

std::optional<std::vector<sys::TaskTime>> NoiseProbe::task_times() const {
  const bpf_link* link = impl_->skel->links.task_times;
  if (!link) return std::nullopt;
  return read_task_iterator(bpf_link__fd(link));
}

std::vector<std::string> NoiseProbe::untraced_vectors_fired(const std::vector<int>& cpus) const {
  if (impl_->untraced_vectors.empty()) return {};
  return probes::untraced_vectors_fired(impl_->untraced_vectors, impl_->interrupts_at_start, sys::read_interrupts(),
                                        cpus);
}

bool NoiseProbe::has_sibling(int cpu) const { return impl_->with_sibling.count(cpu) > 0; }

bool NoiseProbe::has_cpufreq(int cpu) const { return impl_->cpufreq_khz.count(cpu) > 0; }

uint64_t NoiseProbe::benchmark_exit_ns() const {
  return __atomic_load_n(&impl_->skel->bss->bench_exit_ns, __ATOMIC_RELAXED);
}
uint64_t NoiseProbe::cpu_ns() const { return __atomic_load_n(&impl_->skel->bss->cpu_ns, __ATOMIC_RELAXED); }

uint64_t NoiseProbe::intr_running_ns() const {
  uint64_t n = 0;
  for (int c = 0; c < impl_->ncpus; ++c) n += Impl::load(impl_->cpus[c].intr_running);
  return n;
}

std::vector<nw::Unavailable> NoiseProbe::unavailable() const { return impl_->unavailable; }

FrequencySnapshot NoiseProbe::frequency(int cpu) const {
  FrequencySnapshot f;
  if (cpu < 0 || cpu >= impl_->ncpus) return f;
  const nw_cpu_state& st = impl_->cpus[cpu];
  // A frequency event between these loads can mix two updates; it moves the integral by at most
  // one interval's worth, and cpufreq changes are rare next to a repetition.
  uint64_t ts = Impl::load(st.freq_ts);
  if (!ts) return f;
  uint64_t now = sys::monotonic_ns();
  f.known = true;
  f.changes = Impl::load(st.freq_changes);
  f.at_ns = now;
  f.khz_ns = double(Impl::load(st.freq_khz_ns)) + double(Impl::load(st.freq_khz)) * double(now > ts ? now - ts : 0);
  return f;
}

}  // namespace nw::probes
