// Per-repetition series of every noise source, aligned on the measured runs: the input of
// attribution, pattern detection and the charts.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/run_record.h"

namespace nw::report {

// How a source's per-run value turns into time.
enum class Kind {
  time,   // the probes measured the time it took (preemption, irq, steal, fault in new records, ...)
  count,  // only events are counted (migration; fault in older records): cost per event is estimated
};

// Who is responsible for a source's variance.
enum class Group { machine, workload, unexplained };

struct SourceSeries {
  std::string name;
  Kind kind = Kind::time;
  std::vector<double> time_ns;  // per measured run; 0 where the source did not occur
  std::vector<double> count;    // per measured run
  double max_ns = 0;            // longest single event over the measured runs
  bool major_faults = false;    // `fault` only: some measured run had a major fault
  nlohmann::json detail = nlohmann::json::object();  // e.g. {"pid": 42}, {"irq": 24}
};

struct RunMatrix {
  std::vector<int> run_index;       // RunSample::index of each measured run
  std::vector<double> wall_ns;      // T_i
  std::vector<SourceSeries> sources;  // time-valued sources first, then count-valued
  bool frequency_modelled = false;  // "frequency" was derived from mean_khz (see sources.cpp)
  // CPUs the benchmark ran on. A source's time is thread time: on several CPUs it adds up over
  // them (two copies of a process holding two of its CPUs for 10 ms is 20 ms), so the most a
  // source can take in a run is wall x cpus.
  double cpus = 1;
  size_t runs() const { return wall_ns.size(); }
};

RunMatrix collect_sources(const RunRecord& rec);

std::string category_of(const std::string& source);  // "preemption:x" -> "preemption"
std::string name_of(const std::string& source);      // "preemption:x" -> "x"
// The benchmark's own comm as the kernel truncates it (15 chars), to recognise its own threads.
std::string benchmark_comm(const RunRecord& rec);
Group group_of(const std::string& source, const std::string& bench_comm);
// Human phrase for headlines: "preemption by stress-ng", "IRQ virtio1-req.0", ...
// A `contention:` source is the benchmark's own threads and is never called preemption.
std::string describe_source(const std::string& source);
// Kernel threads cannot be stopped; they are moved or isolated instead.
bool is_kernel_thread(const std::string& comm);

}  // namespace nw::report
