// SPDX-License-Identifier: Apache-2.0
// Conservation of time, checked on a run record (docs/contracts.md's accounting model): what every
// run of every workload shape must satisfy, whatever the machine did meanwhile. Shared by the
// host's end-to-end tests (tests/e2e/conservation_e2e_test.cpp says which shapes) and the guests'
// (tests/vm), so that each invariant is written once.
#pragma once
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/record_fields.h"

namespace nw::test {

struct Totals {
  uint64_t wall = 0, cpu = 0, cpu_irq = 0, blocking = 0, contention = 0, charged = 0;
  uint64_t overlap = 0;  // smt: time the benchmark ran beside another task, not taken from it
  std::vector<std::string> sources;
};

inline Totals totals_of(const nlohmann::json& run) {
  Totals t;
  t.wall = run["wall_ns"].get<uint64_t>();
  t.cpu = run.value("cpu_ns", uint64_t(0));
  t.cpu_irq = run.value("cpu_irq_ns", uint64_t(0));
  for (const auto& n : run["noise"]) {
    std::string src = n["source"];
    uint64_t time = n["time_ns"].get<uint64_t>();
    t.sources.push_back(src);
    if (src == "blocking") t.blocking += time;
    else if (src.rfind("contention:", 0) == 0) t.contention += time;
    else if (src.rfind("smt:", 0) == 0) t.overlap += time;
    else t.charged += time;
  }
  return t;
}

inline std::string describe(const nlohmann::json& run) {
  std::string s = "wall " + std::to_string(run["wall_ns"].get<uint64_t>()) + " cpu " +
                  std::to_string(run.value("cpu_ns", uint64_t(0))) + " cpu_irq " +
                  std::to_string(run.value("cpu_irq_ns", uint64_t(0))) + ";";
  for (const auto& n : run["noise"])
    s += " " + n["source"].get<std::string>() + "=" + std::to_string(n["time_ns"].get<uint64_t>());
  return s;
}

// What holds for a run and for a window alike: no source charges more than the wall time (on
// several CPUs, on any one of them), blocking <= wall and its parts sum to it.
inline void expect_charges_within_wall(const nlohmann::json& run, double ncpus) {
  const Totals t = totals_of(run);
  // No source takes more than the wall time on any CPU (on several CPUs its time is thread
  // time: it adds up over them, and the record keeps each CPU's part).
  for (const auto& n : run["noise"]) {
    const uint64_t time = n["time_ns"].get<uint64_t>();
    if (n.contains("detail") && n["detail"].contains("per_cpu_ns")) {
      for (const auto& part : n["detail"]["per_cpu_ns"])
        EXPECT_LE(part.get<uint64_t>(), t.wall) << n["source"] << " charges more than the wall time on one CPU";
      EXPECT_LE(double(time), ncpus * double(t.wall)) << n["source"];
    } else {
      EXPECT_LE(time, t.wall) << n["source"] << " charges more than the wall time";
    }
  }
  EXPECT_LE(t.blocking, t.wall);
  EXPECT_LE(run.value("blocking_ns", uint64_t(0)), t.wall);
  // Blocking's parts by cause (detail.parts) sum to it exactly.
  for (const auto& n : run["noise"]) {
    if (n["source"] != "blocking" || !n.contains("detail") || !n["detail"].contains("parts")) continue;
    uint64_t parts = 0;
    for (const auto& part : n["detail"]["parts"]) parts += part["time_ns"].get<uint64_t>();
    EXPECT_EQ(parts, t.blocking) << "blocking's parts do not sum to it";
  }
}

// The window entries of a --windows record (they have no CPU time, so no account): the charges
// within each window's wall time; on one CPU and one thread also all of them together.
inline void expect_windows_conserved(const nlohmann::json& rec, bool one_thread) {
  const double ncpus = double(rec["cpus"].size());
  for (const auto& w : rec["runs"]) {
    SCOPED_TRACE(describe(w));
    expect_charges_within_wall(w, ncpus);
    if (!one_thread || ncpus != 1) continue;
    const Totals t = totals_of(w);
    // (The slack of expect_conserved_on_one_cpu: steal, charged at context switches, can be a
    // little older than the window.)
    EXPECT_LE(double(t.charged + t.contention + t.blocking), 1.05 * double(t.wall) + 0.5e6)
        << "charged more than the window's time";
  }
}

// Every invariant that holds for any shape: expect_charges_within_wall, CPU time <= wall x CPUs,
// the run's account within wall; `own` are the comms of the benchmark's tasks, never reported as
// preemption.
inline void expect_time_conserved(const nlohmann::json& rec, const std::vector<std::string>& own) {
  const double ncpus = double(rec["cpus"].size());
  for (const auto& run : rec["runs"]) {
    Totals t = totals_of(run);
    SCOPED_TRACE(describe(run));
    expect_charges_within_wall(run, ncpus);
    EXPECT_TRUE(run.contains("cpu_ns")) << "the probe measured no CPU time";
    EXPECT_GT(t.cpu, 0u);
    EXPECT_LE(double(t.cpu), ncpus * double(t.wall)) << "CPU time above wall x CPUs";
    EXPECT_LE(t.cpu_irq, t.cpu);
    // The run's account: present wherever the CPU time is, and what it leaves never exceeds wall.
    EXPECT_TRUE(run.contains("accounted_ns") && run.contains("unaccounted_ns")) << "the run has no account";
    if (!run.contains("unaccounted_ns")) continue;
    EXPECT_LE(run["unaccounted_ns"].get<uint64_t>(), t.wall);
    // The benchmark's own tasks are contention, never preemption.
    for (const auto& s : t.sources)
      for (const auto& comm : own)
        EXPECT_NE(s, "preemption:" + comm) << "the workload's own task is reported as preemption";
  }
}

// On one CPU, what was charged (noise and blocking) fits in the time the benchmark did not run,
// and its overlap with a task on the SMT sibling in the time it ran. `slack`: the share of the
// wall time the charges may exceed it by (steal, charged at context switches, can be a little
// older than the window); a machine without steal can ask for less.
inline void expect_conserved_on_one_cpu(const nlohmann::json& rec, double slack = 0.05) {
  for (const auto& run : rec["runs"]) {
    Totals t = totals_of(run);
    SCOPED_TRACE(describe(run));
    EXPECT_LE(t.cpu, t.wall) << "CPU time above wall time on one CPU";
    EXPECT_LE(double(t.overlap), 1.05 * double(t.cpu) + 0.5e6) << "an SMT overlap longer than the benchmark ran";
    // Measured fault time (where the kernel lets the probe trace faults) is charged as a source
    // and is part of the CPU time: it is not the benchmark's own compute either.
    const double own = double(t.cpu) - double(t.cpu_irq) - double(e2e::run_source_time(run, "fault"));
    const double room = double(t.wall) - own;
    EXPECT_LE(double(t.charged + t.blocking), room + slack * double(t.wall) + 0.5e6)
        << "charged " << t.charged << " + blocking " << t.blocking << " ns in " << room
        << " ns when the benchmark was not running";
    // The record's own account of the run says the same: it never covers more than the wall time.
    EXPECT_LE(run["accounted_ns"].get<double>(), 1.05 * double(t.wall) + 0.5e6);
  }
}

// Blocking is only the wall time when no task of the benchmark ran or was runnable.
inline void expect_no_blocking(const nlohmann::json& rec) {
  for (const auto& run : rec["runs"]) {
    Totals t = totals_of(run);
    SCOPED_TRACE(describe(run));
    EXPECT_LE(double(t.blocking), 0.02 * double(t.wall) + 0.5e6) << "a CPU-bound workload reported as blocking";
  }
}

}  // namespace nw::test
