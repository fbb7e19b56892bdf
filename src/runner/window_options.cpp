#include "runner/window_options.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::cli {

void add_window_options(CLI::App& sub, bool& windows, std::optional<int>& warmup_windows, std::string& timeline,
                        std::string& threshold) {
  sub.add_flag("--windows", windows,
               "every window the benchmark marks is a repetition: USDT noisewatch:window_begin/end "
               "(include/noisewatch/markers.h) or lines \"begin\"/\"end\" written to the fd in "
               "$NOISEWATCH_MARKER_FD; --runs still counts process runs");
  sub.add_option("--warmup-windows", warmup_windows, "with --windows: the first N windows of each process run are "
                                                     "warm-ups (kept in the record, not measured)");
  sub.add_option("--timeline", timeline,
                 "write timestamped noise events, windows and runs to FILE as Chrome trace-event JSON "
                 "(Perfetto UI, chrome://tracing); the record keeps a summary for the HTML report");
  sub.add_option("--timeline-threshold", threshold,
                 "with --timeline: record events at least this long, e.g. 5us, 1ms (default 10us; a bare number "
                 "is microseconds)");
}

uint64_t parse_threshold_ns(const std::string& text) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  double scale = unit.empty() || unit == "us" || unit == "µs" ? 1e3 : unit == "ns" ? 1.0 : unit == "ms" ? 1e6 : 0;
  if (used == 0 || scale == 0 || !std::isfinite(v) || v < 0 || v * scale > 1e12)
    throw Error(fmt::format("--timeline-threshold: \"{}\" is not a duration: write e.g. 10us, 500ns or 1ms", text));
  return uint64_t(std::llround(v * scale));
}

void apply_window_options(runner::Plan& p, bool windows, std::optional<int> warmup_windows, const std::string& timeline,
                          const std::string& threshold) {
  p.windows = windows;
  if (warmup_windows && !windows)
    throw Error("--warmup-windows needs --windows (it drops the first windows the benchmark marks)");
  if (warmup_windows && *warmup_windows < 0)
    throw Error(fmt::format("--warmup-windows cannot be negative (got {})", *warmup_windows));
  p.warmup_windows = warmup_windows.value_or(0);
  if (!threshold.empty() && timeline.empty())
    throw Error("--timeline-threshold needs --timeline FILE (the file the events go to)");
  if (!threshold.empty()) p.timeline_threshold_ns = parse_threshold_ns(threshold);
  if (!timeline.empty()) {
    // Found out now, not after the benchmark ran.
    int fd = open(timeline.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(fmt::format("--timeline: cannot write {}: {}", timeline, std::strerror(errno)));
    close(fd);
    p.timeline = timeline;
  }
}

}  // namespace nw::cli
