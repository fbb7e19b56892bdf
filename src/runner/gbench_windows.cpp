// SPDX-License-Identifier: Apache-2.0
#include "runner/gbench_windows.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::runner {

std::vector<GbenchRun> gbench_runs(const nlohmann::json& out) {
  if (!out.is_object() || !out.contains("benchmarks") || !out["benchmarks"].is_array())
    throw Error("not Google Benchmark's JSON output (no \"benchmarks\" list)");
  std::vector<GbenchRun> runs;
  for (const auto& b : out["benchmarks"]) {
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) continue;
    if (b.value("run_type", std::string("iteration")) != "iteration") continue;
    if (b.value("error_occurred", false)) continue;
    GbenchRun r;
    r.name = b["name"].get<std::string>();
    if (b.contains("iterations") && b["iterations"].is_number_integer()) r.iterations = b["iterations"].get<int64_t>();
    if (b.contains("threads") && b["threads"].is_number_integer()) r.threads = std::max(1, b["threads"].get<int>());
    if (b.contains("real_time") && b["real_time"].is_number()) {
      const std::string unit = b.value("time_unit", std::string("ns"));
      const double scale = unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : 1;
      // The library divides its threads' summed time by their number, then by all their iterations:
      // real_time x iterations is the mean thread's time (benchmark_runner.cc, DoNIterations).
      r.timed_ns = b["real_time"].get<double>() * scale * double(r.iterations);
    }
    if (r.iterations > 0) runs.push_back(std::move(r));
  }
  return runs;
}

namespace {

// A window's State ran this many iterations across the run's threads (0: no label read).
int64_t window_iterations(const probes::WindowMark& w, int threads) {
  return w.label && *w.label > 0 ? *w.label * threads : 0;
}

}  // namespace

namespace {

// The repetitions of one benchmark: reported one after the other, with one count.
struct Block {
  size_t first = 0, reps = 0;
};

std::vector<Block> blocks_of(const std::vector<GbenchRun>& runs) {
  std::vector<Block> out;
  for (size_t b = 0; b < runs.size();) {
    size_t e = b + 1;
    while (e < runs.size() && runs[e].name == runs[b].name && runs[e].iterations == runs[b].iterations &&
           runs[e].threads == runs[b].threads)
      ++e;
    out.push_back({b, e - b});
    b = e;
  }
  return out;
}

}  // namespace

size_t name_gbench_windows(std::vector<probes::WindowMark>& windows, const std::vector<GbenchRun>& runs) {
  for (auto& w : windows) w.harness_warmup = true;  // until a run takes it
  const std::vector<Block> blocks = blocks_of(runs);
  const size_t n = windows.size();
  auto fits = [&](const Block& b, size_t p) {
    if (p + b.reps > n) return false;
    for (size_t k = p; k < p + b.reps; ++k)
      if (window_iterations(windows[k], runs[b.first].threads) != runs[b.first].iterations) return false;
    return true;
  };
  // The latest start each block can have with every later one still placed after it (working
  // back from the end); a block with none is missing and leaves the limit as it found it.
  std::vector<std::optional<size_t>> latest(blocks.size());
  size_t limit = n;
  for (size_t b = blocks.size(); b-- > 0;) {
    for (size_t q = limit >= blocks[b].reps ? limit - blocks[b].reps + 1 : 0; q-- > 0;)
      if (fits(blocks[b], q)) {
        latest[b] = q;
        break;
      }
    if (latest[b]) limit = *latest[b];
  }
  // Forward: each block takes, among the places that leave room for the later ones, the windows
  // whose durations are nearest what the library measured (a warm-up State can have the
  // repetition's count; its time is its own), and of equals the earliest.
  size_t cursor = 0, missing = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    const Block& blk = blocks[b];
    std::optional<size_t> best;
    double best_cost = 0;
    if (latest[b])
      for (size_t q = cursor; q <= *latest[b]; ++q) {
        if (!fits(blk, q)) continue;
        double cost = 0;
        for (size_t k = 0; k < blk.reps; ++k) {
          const GbenchRun& r = runs[blk.first + k];
          const auto& w = windows[q + k];
          const double wall = double(w.timed_ns());
          if (r.timed_ns > 0) cost += std::abs(wall - r.timed_ns) / r.timed_ns;
        }
        if (!best || cost < best_cost) {
          best = q;
          best_cost = cost;
        }
      }
    if (!best) {
      missing += blk.reps;
      continue;
    }
    for (size_t k = 0; k < blk.reps; ++k) {
      auto& w = windows[*best + k];
      w.harness_warmup = false;
      w.text_label = runs[blk.first + k].name;
      w.label.reset();
    }
    cursor = *best + blk.reps;
  }
  return missing;
}

std::optional<std::string> gbench_out_in_command(const std::vector<std::string>& command) {
  std::optional<std::string> out;
  std::string format = "json";  // --benchmark_out's default
  // Google Benchmark takes its flags as --name=value (or -name=value) only.
  auto value = [&](const std::string& arg, const std::string& name) -> std::optional<std::string> {
    for (const char* dashes : {"--", "-"}) {
      const std::string flag = dashes + name + "=";
      if (arg.starts_with(flag)) return arg.substr(flag.size());
    }
    return std::nullopt;
  };
  for (size_t i = 1; i < command.size(); ++i) {
    if (auto v = value(command[i], "benchmark_out_format")) format = *v;
    if (auto p = value(command[i], "benchmark_out")) out = *p;
  }
  if (out && format != "json")
    throw Error(
        fmt::format("--windows gbench reads the benchmark's JSON output, but the command writes {} to {}: "
                    "drop --benchmark_out_format (JSON is its default) or give json",
                    format, *out));
  return out;
}

}  // namespace nw::runner
