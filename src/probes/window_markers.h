// SPDX-License-Identifier: Apache-2.0
// Marked windows and the timeline on the kernel side's behalf: configuring the eBPF object for
// them before it is loaded, attaching the USDT markers, reading the windows a process run marked,
// and draining the timeline's ring buffer. bpf/windows.bpf.h and bpf/timeline.bpf.h say how the
// kernel side works.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct noise_bpf;
struct ring_buffer;
struct bpf_link;

namespace nw::probes {

struct TimelineOptions {
  bool on = false;
  uint64_t threshold_ns = 10'000;
  uint64_t rate_per_sec = 20'000;   // per CPU
  uint32_t ring_bytes = 16u << 20;  // a power of two
};

// One window as the markers left it (CLOCK_MONOTONIC).
struct WindowMark {
  uint64_t begin_ns = 0, end_ns = 0;  // end 0: never closed
  std::optional<int64_t> label;       // USDT argument
  std::string text_label;             // "begin LABEL" on the marker fd
  bool implicit_end = false;          // closed by the next begin, not by an end marker
  bool from_fd = false;
  uint32_t pid = 0;
  // The harness's own run, not one it reports (--windows gbench: a warm-up or a search for the
  // iteration count): a warm-up window.
  bool harness_warmup = false;
  // --windows gbench: the gaps while its opener's timer was stopped (PauseTiming to ResumeTiming)
  // and how many (nullopt: the window's timer was not followed).
  std::optional<uint64_t> paused_ns, pauses;
  // Other threads shared it (->Threads(N)): its gaps were measured, not cut out (their charges
  // are the window's): they are part of its time.
  bool paused_in_wall = false;
  // The time its opener's timer ran: from begin to end less its gaps (0 while never closed).
  uint64_t timed_ns() const {
    const uint64_t span = end_ns > begin_ns ? end_ns - begin_ns : 0;
    const uint64_t gaps = paused_ns.value_or(0);
    return span > gaps ? span - gaps : 0;
  }
  // Its wall time: the timed time, or the whole span where the gaps are in it.
  uint64_t wall_ns() const {
    if (paused_in_wall) return end_ns > begin_ns ? end_ns - begin_ns : 0;
    return timed_ns();
  }
  // How long the harness itself timed this run, where it says (--windows pyperf: the worker's
  // `duration` in pyperf's JSON output).
  std::optional<uint64_t> harness_duration_ns;
};

struct WindowReadout {
  std::vector<WindowMark> windows;  // in marking order; at most NW_MAX_WINDOWS
  // The probe's window slots that were not windows (--windows-exec: a fork whose child ran
  // something else) are left out of `windows`: slot k holds window slot_window[k] (k + 1 -> the
  // number in `windows` + 1; 0: none). Empty when every slot is a window.
  std::vector<uint32_t> slot_window;
  // An event's window key (slot + 1, 0 outside) as a key into `windows` (+ 1, 0 outside).
  uint32_t window_of(uint32_t key) const {
    if (slot_window.empty() || key == 0) return key;
    return key <= slot_window.size() ? slot_window[key - 1] : 0;
  }
  uint64_t dropped = 0;       // begins past NW_MAX_WINDOWS, not measured
  uint64_t stray_ends = 0;    // end markers with no window open
  uint64_t marker_lines = 0;  // marker-fd writes the kernel recognised
};

// Adds the probe's next window slot to `out`: a window, or a slot that was none (it maps to no
// window, and the windows after it are numbered as if it had never been).
void add_window_slot(WindowReadout& out, WindowMark m, bool is_window);

// A charged span at or above the timeline's threshold, as the ring buffer holds it.
struct RawTimelineEvent {
  uint64_t end_ns = 0, dur_ns = 0;
  uint32_t kind = 0, id = 0, cpu = 0, window = 0;
  char comm[16] = {};
};

struct TimelineDrops {
  uint64_t rate = 0, full = 0;  // over the per-CPU rate bound / the ring buffer was full
};

// How function windows (--windows-at, --windows gbench) are labelled and shared between threads.
struct CallWindowOptions {
  int label_offset = -1;  // the label: the int64 at this offset from the first argument (-1: none)
  bool shared = false;    // a thread's call while another's window is open joins it
  // The window is timed only while its opener's timer runs (--windows gbench: State::ResumeTiming
  // to PauseTiming, attached by attach_call_span): loads on_timer_start/on_timer_stop.
  bool timed = false;
};

// A function by its code's offset in a binary (the uprobes' place) and its name for messages.
struct CodeAt {
  std::string function;
  uint64_t file_offset = 0;
};

// Sets the object's read-only flags, map sizes and which marker programs load. Before load.
// `exec_comm` (--windows-exec): the command name whose execs are windows; empty: none.
// `exec_as_root` (--windows pyperf): the processes running the root process's program are.
void configure_windows(noise_bpf* skel, bool windows, const std::string& exec_comm, bool exec_as_root,
                       const CallWindowOptions& call, const TimelineOptions& timeline);
// Whether a program section belongs to the windows machinery (left to configure_windows).
bool is_window_program(const std::string& section);

class WindowMarkers {
 public:
  explicit WindowMarkers(noise_bpf* skel) : skel_(skel) {}
  ~WindowMarkers();
  WindowMarkers(const WindowMarkers&) = delete;
  WindowMarkers& operator=(const WindowMarkers&) = delete;

  // Attaches the noisewatch:window_begin/end USDT probes of `binary` (for every process running
  // it; the programs keep to tracked tasks). False, with the reason, when it has none.
  bool attach_usdt(const std::string& binary, std::string& why);
  // --windows-at: every outermost call of `function` (its symbol-table name, for messages; its
  // code at `file_offset` in `binary`) by the benchmark's threads is a window. Throws nw::Error
  // when the kernel refuses the uprobes.
  void attach_calls(const std::string& binary, const std::string& function, uint64_t file_offset);
  // --windows gbench: a window from the entry of one function to the entry of another (both in
  // `binary`), e.g. Google Benchmark's StartKeepRunning/FinishKeepRunning; with `timer` (the
  // functions that stop and start the opener's timer, PauseTiming/ResumeTiming; configured with
  // CallWindowOptions::timed), only while that timer runs.
  void attach_call_span(const std::string& binary, const CodeAt& open, const CodeAt& close,
                        const std::optional<std::pair<CodeAt, CodeAt>>& timer = std::nullopt);
  // Watches the benchmark's writes to its marker fd `fd` (number in the benchmark).
  void attach_marker_fd(int fd);
  // The marker fd's number in the benchmark (-1: none).
  void set_marker_fd(int fd);
  // Forget the windows of the last process run (between process runs: nothing tracked); `root`:
  // the process run's root process (--windows pyperf: not a window itself).
  void reset(pid_t root = 0);
  WindowReadout read() const;

 private:
  noise_bpf* skel_;
  std::vector<bpf_link*> links_;
};

class TimelineRing {
 public:
  explicit TimelineRing(noise_bpf* skel);
  ~TimelineRing();
  TimelineRing(const TimelineRing&) = delete;
  TimelineRing& operator=(const TimelineRing&) = delete;

  // Everything written since the last drain (between process runs).
  std::vector<RawTimelineEvent> drain();
  // Cumulative since load, summed over CPUs.
  TimelineDrops drops() const;

 private:
  noise_bpf* skel_;
  ring_buffer* rb_ = nullptr;
  std::vector<RawTimelineEvent> pending_;
};

}  // namespace nw::probes
