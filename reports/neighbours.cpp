// SPDX-License-Identifier: Apache-2.0
#include "reports/neighbours.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/durations.h"
#include "stats/correlation.h"
#include "stats/inference.h"

namespace nw::report {

std::vector<NeighbourLead> neighbour_leads(const RunRecord& rec, const AttributionResult& a) {
  std::vector<NeighbourLead> leads;
  const auto runs = rec.measured();
  const size_t n = runs.size();
  if (n < kMinRunsForLead || !a.attributable || a.residual.size() != n) return leads;
  for (const RunSample* r : runs)
    if (!r->neighbours || r->wall_ns == 0) return leads;

  // One series per neighbour (a pid and its name: a reused pid is another process).
  struct Series {
    NeighbourLead lead;
    std::vector<double> share;
    uint64_t busiest_ns = 0, total_ns = 0;
  };
  std::map<std::pair<int, std::string>, Series> all;
  for (size_t i = 0; i < n; ++i)
    for (const Neighbour& nb : *runs[i]->neighbours) {
      if (nb.cpu_ns == 0) continue;
      Series& s = all[{nb.pid, nb.comm}];
      if (s.share.empty()) {
        s.share.assign(n, 0.0);
        s.lead.pid = nb.pid;
        s.lead.comm = nb.comm;
      }
      s.share[i] += double(nb.cpu_ns) / double(runs[i]->wall_ns);
      s.total_ns += nb.cpu_ns;
      ++s.lead.runs_seen;
      if (nb.cpu_ns > s.busiest_ns) {
        s.busiest_ns = nb.cpu_ns;
        s.lead.cpu = nb.cpu;
      }
    }
  std::vector<Series*> tested;
  std::vector<double> p;
  for (auto& [key, s] : all) {
    auto [lo, hi] = std::minmax_element(s.share.begin(), s.share.end());
    if (s.lead.runs_seen < kMinRunsSeen || *hi - *lo < kMinShareRange) continue;
    auto c = stats::pearson(s.share, a.residual);
    s.lead.correlation = c.r;
    s.lead.p_value = c.p_value;
    s.lead.runs = n;
    s.lead.mean_cpu_ns = double(s.total_ns) / double(s.lead.runs_seen);
    tested.push_back(&s);
    p.push_back(c.p_value);
  }
  const auto adjusted = stats::holm_adjusted(p);
  for (size_t k = 0; k < tested.size(); ++k) {
    NeighbourLead& lead = tested[k]->lead;
    lead.p_adjusted = adjusted[k];
    lead.tested = tested.size();
    // Only a neighbour busier in the slower runs is a lead: one busier in the faster runs
    // explains nothing about them.
    if (lead.correlation > 0 && lead.p_adjusted < kLeadAlpha) leads.push_back(lead);
  }
  std::sort(leads.begin(), leads.end(), [](const NeighbourLead& x, const NeighbourLead& y) {
    return x.correlation != y.correlation ? x.correlation > y.correlation : x.pid < y.pid;
  });
  return leads;
}

std::string describe_lead(const NeighbourLead& lead) {
  return lead.cpu >= 0 ? fmt::format("{} (pid {}, CPU {})", lead.comm, lead.pid, lead.cpu)
                       : fmt::format("{} (pid {})", lead.comm, lead.pid);
}

std::string lead_sentence(const NeighbourLead& lead) {
  return fmt::format(
      "Likely cause of the unexplained time: {}, busy on another CPU in the slow runs. Its share of each run follows "
      "what no source explains (r = {:.2f}, p = {:.2g}{}; among the busiest in {} of {} runs, {} per run there). It "
      "shares the caches and memory bandwidth (on a VM also the host's CPUs) with the benchmark; a lead from a "
      "correlation, not part of the attribution above.",
      describe_lead(lead), lead.correlation, lead.p_adjusted,
      lead.tested > 1 ? fmt::format(" Holm-adjusted over {} neighbours", lead.tested) : std::string{}, lead.runs_seen,
      lead.runs, format_duration(lead.mean_cpu_ns));
}

}  // namespace nw::report
