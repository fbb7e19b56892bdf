// SPDX-License-Identifier: Apache-2.0
#include "probes/window_markers.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "common/errors.h"
#include "noise.h"
#include "noise.skel.h"

namespace nw::probes {

namespace {

// Noise keys with --windows: one set of sources per window, so far more than one run needs, as
// many as about 32 MiB of preallocated per-CPU entries hold (16,384 to 65,536). Preallocated: a
// hash that allocates on use can fail to in the scheduler's context (its per-CPU free list is
// refilled later, from irq_work), and a lost key is a preemption charged to nobody.
uint32_t window_noise_keys() {
  const size_t per_key = 96 + 24 * size_t(std::max(libbpf_num_possible_cpus(), 1));
  return uint32_t(std::clamp<size_t>((32u << 20) / per_key, 16384, 65536));
}

template <typename T>
T load(const T& field) {
  return __atomic_load_n(&field, __ATOMIC_RELAXED);
}

}  // namespace

bool is_window_program(const std::string& section) {
  return section == "usdt" || section == "tp_btf/sys_enter" || section == "uprobe" || section == "uretprobe";
}

void configure_windows(noise_bpf* skel, bool windows, const std::string& exec_comm, bool exec_as_root,
                       const CallWindowOptions& call, const TimelineOptions& timeline) {
  skel->rodata->windows_on = windows;
  skel->rodata->windows_exec_as_root = windows && exec_as_root;
  skel->rodata->call_label_offset = call.label_offset;
  skel->rodata->call_window_shared = call.shared;
  skel->rodata->call_window_timed = windows && call.timed;
  skel->rodata->windows_exec_on = windows && (!exec_comm.empty() || exec_as_root);
  std::memset(const_cast<char*>(skel->rodata->windows_exec_comm), 0, sizeof skel->rodata->windows_exec_comm);
  std::memcpy(const_cast<char*>(skel->rodata->windows_exec_comm), exec_comm.data(),
              std::min(exec_comm.size(), sizeof skel->rodata->windows_exec_comm - 1));
  skel->rodata->timeline_on = timeline.on;
  skel->rodata->tl_threshold_ns = timeline.threshold_ns;
  skel->rodata->tl_rate_per_sec = timeline.rate_per_sec;
  if (timeline.on) bpf_map__set_max_entries(skel->maps.timeline, timeline.ring_bytes);
  if (windows) {
    bpf_map__set_max_entries(skel->maps.noise, window_noise_keys());
  } else {
    bpf_map__set_max_entries(skel->maps.windows, 1);
  }
  // All are attached on demand: the USDT programs per binary (attach_usdt), the marker-fd
  // program only for a benchmark without the USDT probes (attach_marker_fd): while attached, the
  // raw sys_enter tracepoint puts every system call of the machine on the traced path. None
  // loads without --windows.
  for (bpf_program* p : {skel->progs.on_usdt_begin, skel->progs.on_usdt_end, skel->progs.on_marker_write,
                         skel->progs.on_call_entry, skel->progs.on_call_return}) {
    bpf_program__set_autoload(p, windows);
    bpf_program__set_autoattach(p, false);
  }
  for (bpf_program* p : {skel->progs.on_timer_stop, skel->progs.on_timer_start}) {
    bpf_program__set_autoload(p, windows && call.timed);
    bpf_program__set_autoattach(p, false);
  }
}

WindowMarkers::~WindowMarkers() {
  for (auto* l : links_) bpf_link__destroy(l);
}

bool WindowMarkers::attach_usdt(const std::string& binary, std::string& why) {
  bpf_link* begin =
      bpf_program__attach_usdt(skel_->progs.on_usdt_begin, -1, binary.c_str(), "noisewatch", "window_begin", nullptr);
  if (!begin) {
    int err = errno;
    why = err == ENOENT ? fmt::format("{} has no noisewatch:window_begin USDT probe", binary)
                        : fmt::format("cannot attach to the USDT probes of {}: {}", binary, std::strerror(err));
    return false;
  }
  bpf_link* end =
      bpf_program__attach_usdt(skel_->progs.on_usdt_end, -1, binary.c_str(), "noisewatch", "window_end", nullptr);
  if (!end) {
    int err = errno;
    bpf_link__destroy(begin);
    why = err == ENOENT ? fmt::format("{} has noisewatch:window_begin but no noisewatch:window_end USDT probe", binary)
                        : fmt::format("cannot attach to the USDT probes of {}: {}", binary, std::strerror(err));
    return false;
  }
  links_.push_back(begin);
  links_.push_back(end);
  return true;
}

void WindowMarkers::attach_calls(const std::string& binary, const std::string& function, uint64_t file_offset) {
  // By offset, not by name: the symbol was found already (versioned libc names, which libbpf's
  // own lookup refuses as ambiguous, included).
  for (bool ret : {false, true}) {
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = ret);
    bpf_program* prog = ret ? skel_->progs.on_call_return : skel_->progs.on_call_entry;
    bpf_link* l = bpf_program__attach_uprobe_opts(prog, -1, binary.c_str(), size_t(file_offset), &opts);
    if (!l)
      throw Error(fmt::format("--windows-at: cannot attach a {} to {} in {}: {}", ret ? "uretprobe" : "uprobe",
                              function, binary, std::strerror(errno)));
    links_.push_back(l);
  }
}

void WindowMarkers::attach_call_span(const std::string& binary, const CodeAt& open, const CodeAt& close,
                                     const std::optional<std::pair<CodeAt, CodeAt>>& timer) {
  // All at the function's entry: on_call_return is a plain uprobe program (a uretprobe is the same
  // program type, attached at the return instead).
  std::vector<std::pair<bpf_program*, const CodeAt*>> probes{{skel_->progs.on_call_entry, &open},
                                                             {skel_->progs.on_call_return, &close}};
  if (timer) {
    probes.emplace_back(skel_->progs.on_timer_stop, &timer->first);
    probes.emplace_back(skel_->progs.on_timer_start, &timer->second);
  }
  for (const auto& [prog, at] : probes) {
    LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = false);
    bpf_link* l = bpf_program__attach_uprobe_opts(prog, -1, binary.c_str(), size_t(at->file_offset), &opts);
    if (!l)
      throw Error(fmt::format("cannot attach a uprobe to {} in {}: {}", at->function, binary, std::strerror(errno)));
    links_.push_back(l);
  }
}

void WindowMarkers::attach_marker_fd(int fd) {
  __atomic_store_n(&skel_->data->marker_fd, fd, __ATOMIC_RELAXED);
  bpf_link* l = bpf_program__attach(skel_->progs.on_marker_write);
  if (!l)
    throw Error(fmt::format("--windows: cannot attach the marker-fd program to the sys_enter tracepoint: {}",
                            std::strerror(errno)));
  links_.push_back(l);
}

void WindowMarkers::set_marker_fd(int fd) { __atomic_store_n(&skel_->data->marker_fd, fd, __ATOMIC_RELAXED); }

void WindowMarkers::reset(pid_t root) {
  auto* bss = skel_->bss;
  __atomic_store_n(&bss->exec_window_root, uint32_t(root), __ATOMIC_RELAXED);
  std::memset(bss->exec_window_root_comm, 0, sizeof bss->exec_window_root_comm);
  __atomic_store_n(&bss->cur_window, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->windows_seen, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->windows_dropped, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->stray_ends, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->marker_lines, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->exec_window_pid, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->exec_window_tentative, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->exec_window_closer, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->paused_window, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&bss->paused_since, 0, __ATOMIC_RELAXED);
}

WindowReadout WindowMarkers::read() const {
  WindowReadout out;
  const auto* bss = skel_->bss;
  uint64_t seen = load(bss->windows_seen);
  out.dropped = load(bss->windows_dropped);
  out.stray_ends = load(bss->stray_ends);
  out.marker_lines = load(bss->marker_lines);
  // --windows pyperf: the program is what the first process ends up running. Through a shim (pyenv,
  // asdf: a bash script that execs the interpreter, itself through `pyenv exec`), the first process
  // runs bash before python, and the shim's own helpers (bash scripts it forks) ran "the program"
  // while it was bash: a window labelled with anything but the final program is none.
  std::string root_program;
  if (skel_->rodata->windows_exec_as_root)
    root_program.assign(bss->exec_window_root_comm, strnlen(bss->exec_window_root_comm, NW_LABEL_LEN));
  int fd = bpf_map__fd(skel_->maps.windows);
  for (uint32_t k = 0; k < std::min<uint64_t>(seen, NW_MAX_WINDOWS); ++k) {
    nw_window w{};
    if (bpf_map_lookup_elem(fd, &k, &w) != 0) break;
    WindowMark m;
    m.begin_ns = w.begin_ns;
    m.end_ns = w.end_ns;
    if (w.flags & NW_WIN_LABEL) m.label = w.label;
    if (w.flags & NW_WIN_TEXT_LABEL) m.text_label.assign(w.text, strnlen(w.text, sizeof w.text));
    m.implicit_end = w.flags & NW_WIN_IMPLICIT_END;
    m.from_fd = w.flags & NW_WIN_FROM_FD;
    m.pid = w.pid;
    if (skel_->rodata->call_window_timed) {
      m.paused_ns = w.paused_ns;
      m.pauses = w.pauses;
      m.paused_in_wall = w.flags & NW_WIN_SHARED;
    }
    // A fork whose child ran something else, or had not run anything yet at the end; a process that
    // ran what the first process ran before its last execve.
    const bool stale = !root_program.empty() && (w.flags & NW_WIN_FROM_EXEC) && m.text_label != root_program;
    add_window_slot(out, std::move(m), !(w.flags & (NW_WIN_DISCARDED | NW_WIN_TENTATIVE)) && !stale);
  }
  return out;
}

void add_window_slot(WindowReadout& out, WindowMark m, bool is_window) {
  if (is_window) {
    if (!out.slot_window.empty()) out.slot_window.push_back(uint32_t(out.windows.size() + 1));
    out.windows.push_back(std::move(m));
    return;
  }
  if (out.slot_window.empty()) {  // the first slot that is not a window: the ones before it were
    out.slot_window.resize(out.windows.size());
    std::iota(out.slot_window.begin(), out.slot_window.end(), 1u);
  }
  out.slot_window.push_back(0);
}

TimelineRing::TimelineRing(noise_bpf* skel) : skel_(skel) {
  auto on_event = [](void* ctx, void* data, size_t size) -> int {
    if (size < sizeof(nw_tl_event)) return 0;
    const auto* e = static_cast<const nw_tl_event*>(data);
    RawTimelineEvent r;
    r.end_ns = e->end_ns;
    r.dur_ns = e->dur_ns;
    r.kind = e->kind;
    r.id = e->id;
    r.cpu = e->cpu;
    r.window = e->window;
    std::memcpy(r.comm, e->comm, sizeof r.comm);
    static_cast<TimelineRing*>(ctx)->pending_.push_back(r);
    return 0;
  };
  rb_ = ring_buffer__new(bpf_map__fd(skel->maps.timeline), on_event, this, nullptr);
  if (!rb_) throw Error(fmt::format("cannot open the timeline's ring buffer: {}", std::strerror(errno)));
}

TimelineRing::~TimelineRing() {
  if (rb_) ring_buffer__free(rb_);
}

std::vector<RawTimelineEvent> TimelineRing::drain() {
  ring_buffer__consume(rb_);
  return std::exchange(pending_, {});
}

TimelineDrops TimelineRing::drops() const {
  TimelineDrops d;
  int n = libbpf_num_possible_cpus();
  std::vector<nw_tl_rate> per_cpu(size_t(std::max(n, 1)));
  uint32_t zero = 0;
  if (bpf_map_lookup_elem(bpf_map__fd(skel_->maps.tl_rate), &zero, per_cpu.data()) != 0) return d;
  for (const auto& r : per_cpu) {
    d.rate += r.dropped_rate;
    d.full += r.dropped_full;
  }
  return d;
}

}  // namespace nw::probes
