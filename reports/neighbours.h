// SPDX-License-Identifier: Apache-2.0
// Leads beyond the exact decomposition (issue #24 §4): a neighbour, a process busy on another
// CPU than the benchmark's (runs[].neighbours), whose share of each run follows the part of the
// run time no source explains. It shares the caches, the memory bandwidth and, on a VM, the
// host's CPUs with the benchmark, which no probe can charge: the report names it as the likely
// cause of that remainder. A lead is a correlation across runs, never a noise source: it is kept
// out of the decomposition, charges no time and takes no share.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "reports/attribution.h"

namespace nw::report {

// Below this many measured runs a correlation over runs means little: no lead.
inline constexpr size_t kMinRunsForLead = 6;
// A neighbour busy in fewer measured runs than this is not tested (a one-off is an outlier's
// business, patterns.h).
inline constexpr size_t kMinRunsSeen = 3;
// A neighbour whose share of a run ranges over less than this (of one CPU) across the runs is not
// tested: one busy throughout has a share that follows the run time by construction (its window
// is the run plus a fixed margin), and one that barely varies cannot move the run time.
inline constexpr double kMinShareRange = 0.05;
// Family-wise level over the neighbours tested (Holm).
inline constexpr double kLeadAlpha = 0.05;

struct NeighbourLead {
  int pid = 0;
  std::string comm;
  int cpu = -1;                    // the CPU it ran on in the run it was busiest
  double correlation = 0;          // Pearson r of its share of each run with the unexplained remainder
  double p_value = 1;              // two-sided, Student t
  double p_adjusted = 1;           // Holm over the neighbours tested
  size_t tested = 0;               // how many neighbours were tested
  size_t runs_seen = 0, runs = 0;  // measured runs it was among a run's busiest in, of all
  double mean_cpu_ns = 0;          // its CPU time per run, over the runs it was seen in
};

// The neighbours whose share of each run (cpu_ns / wall_ns: a neighbour busy throughout has a
// CPU time that grows with the run itself, its share does not) correlates positively and
// significantly with the attribution's remainder U, most correlated first. Empty unless every
// measured run recorded its neighbours, there are kMinRunsForLead of them and the attribution
// holds. A neighbour not among a run's busiest counts 0 there (it ran less than the last one kept).
std::vector<NeighbourLead> neighbour_leads(const RunRecord& rec, const AttributionResult& a);

// "nw_stream (pid 4242, CPU 0)"
std::string describe_lead(const NeighbourLead& lead);
// The lead as one sentence of the report's warnings.
std::string lead_sentence(const NeighbourLead& lead);

}  // namespace nw::report
