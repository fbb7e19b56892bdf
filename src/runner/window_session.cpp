// SPDX-License-Identifier: Apache-2.0
#include "runner/window_session.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "common/errors.h"
#include "common/files.h"
#include "runner/gbench_windows.h"

namespace nw::runner {

namespace {

bool is_marker_line(const std::string& l) {
  std::string line = l;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line == "begin" || line == "end" || line.starts_with("begin ");
}

}  // namespace

size_t count_marker_lines(std::string& rest, const std::string& chunk) {
  rest += chunk;
  size_t n = 0, from = 0;
  for (size_t nl; (nl = rest.find('\n', from)) != std::string::npos; from = nl + 1)
    n += is_marker_line(rest.substr(from, nl - from));
  rest.erase(0, from);
  return n;
}

WindowSession::WindowSession(probes::WindowMarkers& markers, const std::string& binary, const Plan& plan)
    : markers_(markers), exec_comm_(plan.windows.exec), exec_as_root_(plan.windows.harness == "pyperf") {
  if (exec_as_root_) pyperf_.emplace(plan.command);
  if (!exec_comm_.empty() || exec_as_root_) return;
  if (plan.windows.harness == "gbench") {
    gbench_ = true;
    auto at = [](const WindowPlan::CallSite& c) { return probes::CodeAt{c.shown, c.file_offset}; };
    markers_.attach_call_span(plan.windows.call->binary, at(*plan.windows.call), at(*plan.windows.call_close),
                              std::pair{at(*plan.windows.timer_stop), at(*plan.windows.timer_start)});
    const char* env_out = getenv(kGbenchOutEnv);
    const char* env_format = getenv(kGbenchOutFormatEnv);
    if (auto own = gbench_out_in_command(plan.command)) {
      gbench_out_ = *own;
    } else if (env_out && *env_out) {
      if (env_format && *env_format && std::string(env_format) != "json")
        throw Error(
            fmt::format("--windows gbench reads the benchmark's JSON output, but ${}={} asks for {}: unset it "
                        "or set it to json",
                        kGbenchOutFormatEnv, env_format, env_format));
      gbench_out_ = env_out;
    } else {
      char path[] = "/tmp/noisewatch-gbench-XXXXXX.json";
      int fd = mkstemps(path, 5);
      if (fd < 0) throw Error(fmt::format("--windows gbench: cannot create a file in /tmp: {}", std::strerror(errno)));
      close(fd);
      gbench_out_ = path;
      gbench_own_out_ = true;
      setenv(kGbenchOutEnv, path, 1);
      setenv(kGbenchOutFormatEnv, "json", 1);
    }
    return;
  }
  if (plan.windows.call) {
    call_ = plan.windows.call->shown;
    markers_.attach_calls(plan.windows.call->binary, plan.windows.call->symbol, plan.windows.call->file_offset);
    return;
  }
  usdt_ = markers_.attach_usdt(binary, usdt_why_);
  if (usdt_) return;  // one way of marking per benchmark: its USDT probes when it has them
  int p[2];
  if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
    throw Error(fmt::format("cannot create the marker pipe: {}", std::strerror(errno)));
  read_fd_ = p[0];
  // The write end blocks, as a benchmark's writes expect; it is inherited (no close-on-exec).
  // Room for tens of thousands of marker lines between two of noisewatch's reads.
  write_fd_ = p[1];
  fcntl(write_fd_, F_SETFL, fcntl(write_fd_, F_GETFL) & ~O_NONBLOCK);
  fcntl(write_fd_, F_SETFD, 0);
  fcntl(write_fd_, F_SETPIPE_SZ, 1 << 20);
  setenv(kMarkerFdEnv, std::to_string(write_fd_).c_str(), 1);
  markers_.attach_marker_fd(write_fd_);
}

WindowSession::~WindowSession() {
  markers_.set_marker_fd(-1);
  unsetenv(kMarkerFdEnv);
  if (gbench_own_out_) {
    unsetenv(kGbenchOutEnv);
    unsetenv(kGbenchOutFormatEnv);
    unlink(gbench_out_.c_str());
  }
  if (read_fd_ >= 0) close(read_fd_);
  if (write_fd_ >= 0) close(write_fd_);
}

void WindowSession::drain_pipe() {
  if (read_fd_ < 0) return;
  char buf[65536];
  ssize_t n;
  while ((n = read(read_fd_, buf, sizeof buf)) > 0) lines_ += count_marker_lines(rest_, std::string(buf, size_t(n)));
}

void WindowSession::arm(boost::asio::io_context& io, pid_t root) {
  markers_.reset(root);
  drain_pipe();
  if (pyperf_) pyperf_->before();
  if (gbench_own_out_) {
    if (truncate(gbench_out_.c_str(), 0) != 0) {
    }  // a run that writes nothing leaves nothing to misread
  } else if (gbench_) {
    struct stat st {};
    gbench_mtime_ = stat(gbench_out_.c_str(), &st) == 0 ? st.st_mtim : timespec{};
  }
  lines_ = 0;
  rest_.clear();
  timer_ = std::make_unique<boost::asio::steady_timer>(io);
  on_tick({});
}

void WindowSession::on_tick(const boost::system::error_code& ec) {
  if (ec || !timer_) return;  // cancelled at the end of the process run
  drain_pipe();
  timer_->expires_after(std::chrono::seconds(1));
  timer_->async_wait([this](const boost::system::error_code& e) { on_tick(e); });
}

probes::WindowReadout WindowSession::finish(boost::asio::io_context& io, std::vector<std::string>& warnings,
                                            int process_run) {
  if (timer_) {
    timer_->cancel();
    io.restart();
    io.poll();  // run the cancelled handler before the timer goes
    timer_.reset();
  }
  drain_pipe();
  probes::WindowReadout r = markers_.read();
  if (gbench_) name_gbench(r, warnings, process_run);
  if (pyperf_ && !r.windows.empty()) pyperf_->name(r.windows, warnings, process_run);
  if (exec_comm_.empty() && !exec_as_root_ && call_.empty() && lines_ != r.marker_lines)
    warnings.push_back(fmt::format(
        "process run {}: {} marker line(s) reached ${} but {} were seen at their write: write each line with "
        "a write(2) of its own (os.write, or flush after each line)",
        process_run + 1, lines_, kMarkerFdEnv, r.marker_lines));
  return r;
}

void WindowSession::name_gbench(probes::WindowReadout& r, std::vector<std::string>& warnings, int process_run) const {
  std::vector<GbenchRun> runs;
  std::string why;
  struct stat st {};
  if (stat(gbench_out_.c_str(), &st) != 0 || st.st_size == 0) {
    why = "it wrote nothing there";
  } else if (!gbench_own_out_ && st.st_mtim.tv_sec == gbench_mtime_.tv_sec &&
             st.st_mtim.tv_nsec == gbench_mtime_.tv_nsec) {
    why = "the file is the last run's";
  } else {
    try {
      runs = gbench_runs(nlohmann::json::parse(read_file(gbench_out_)));
    } catch (const std::exception& e) {
      why = e.what();
    }
  }
  if (!why.empty()) {
    warnings.push_back(fmt::format(
        "process run {}: --windows gbench could not read Google Benchmark's JSON output {} ({}): its windows are "
        "every State it timed, warm-up and iteration search included, labelled with their iteration count",
        process_run + 1, gbench_out_, why));
    return;
  }
  const size_t missing = name_gbench_windows(r.windows, runs);
  if (missing)
    warnings.push_back(
        fmt::format("process run {}: {} of the {} repetitions Google Benchmark reported had no window "
                    "of their iteration count: they are not in the record",
                    process_run + 1, missing, runs.size()));
}

std::optional<std::string> WindowSession::cost_warning(const std::vector<RunSample>& runs) const {
  // Google Benchmark's repetitions last --benchmark_min_time (0.5 s by default) or more.
  if (call_.empty() || gbench_) return std::nullopt;
  std::vector<uint64_t> walls;
  for (const auto& r : runs)
    if (r.window && !r.warmup) walls.push_back(r.wall_ns);
  if (walls.empty()) return std::nullopt;
  std::nth_element(walls.begin(), walls.begin() + long(walls.size() / 2), walls.end());
  const uint64_t median = walls[walls.size() / 2];
  if (median >= 100 * kCallWindowCostNs) return std::nullopt;
  return fmt::format(
      "--windows-at: the calls of {} last {:.1f} us (median), less than 100 times what the two uprobes around each "
      "cost on a VM (about {} us, bench/RESULTS.md): that cost is a visible part of every window. Choose a function "
      "that does more per call (the one that calls it in a loop)",
      call_, double(median) / 1e3, kCallWindowCostNs / 1000);
}

std::string WindowSession::no_window_message(int process_run) const {
  if (exec_as_root_)
    return fmt::format(
        "--windows pyperf: no process of the benchmark ran the program its first process runs (pyperf's "
        "workers) in process run {}: give the benchmark script itself after -- (python3 bench.py), not "
        "a wrapper that starts it",
        process_run + 1);
  if (gbench_)
    return fmt::format(
        "--windows gbench: no Google Benchmark repetition ran in process run {} (did "
        "--benchmark_filter leave none, or --benchmark_list_tests?)",
        process_run + 1);
  if (!call_.empty())
    return fmt::format(
        "--windows-at: the benchmark never called {} in process run {} (or no call returned): "
        "choose a function each repetition calls",
        call_, process_run + 1);
  if (!exec_comm_.empty())
    return fmt::format(
        "--windows-exec {}: no process of the benchmark ran a program named {} in process run {}. Give the name "
        "of the program each run starts as ps shows it (its file name, at most 15 characters), e.g. "
        "--windows-exec bench for hyperfine ./bench",
        exec_comm_, exec_comm_, process_run + 1);
  return fmt::format(
      "--windows: the benchmark marked no window in process run {}. Mark each window to measure: in C/C++, "
      "NOISEWATCH_WINDOW_BEGIN() and NOISEWATCH_WINDOW_END() from include/noisewatch/markers.h (USDT; {}); in any "
      "language, write the lines \"begin\" and \"end\" to the file descriptor in ${} ({}; see docs/guide.md, "
      "\"Windows\")",
      process_run + 1, usdt_ ? "attached to the benchmark's binary" : usdt_why_, kMarkerFdEnv,
      usdt_ ? "not given to a benchmark that has the USDT probes" : "given to this benchmark");
}

}  // namespace nw::runner
