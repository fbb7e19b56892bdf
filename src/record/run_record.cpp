// SPDX-License-Identifier: Apache-2.0
#include "record/run_record.h"
#include "record/source_detail.h"

#include <algorithm>

#include "sources/vocabulary.h"
#include "stats/descriptive.h"

namespace nw {

using nlohmann::json;

// The parts of a blocking entry (detail.parts, written by the runner): each a noise entry of its
// own. Malformed parts are skipped; whatever the parts leave of the total is blocking:other, so
// they always sum to it.
static std::vector<NoiseEntry> blocking_parts(const NoiseEntry& total) {
  std::vector<NoiseEntry> out;
  const json parts = SourceDetail::from_json(total.detail).parts;
  if (!parts.is_array()) return out;
  uint64_t sum = 0;
  for (const auto& p : parts) {
    if (!p.is_object() || !p.contains("source") || !p["source"].is_string()) continue;
    NoiseEntry e;
    e.source = p["source"].get<std::string>();
    e.count = p.value("count", uint64_t(0));
    e.time_ns = p.value("time_ns", uint64_t(0));
    e.max_ns = p.value("max_ns", uint64_t(0));
    if (p.contains("detail")) e.detail = p["detail"];
    if (sources::blocking_part(sources::parse(e.source)) == sources::BlockingPart::none ||
        sum + e.time_ns > total.time_ns)
      continue;
    sum += e.time_ns;
    out.push_back(std::move(e));
  }
  if (!out.empty() && sum < total.time_ns) {
    std::string other = sources::format(sources::kBlocking, sources::kBlockingOther);
    auto it = std::find_if(out.begin(), out.end(), [&](const NoiseEntry& e) { return e.source == other; });
    if (it == out.end()) it = out.insert(out.end(), NoiseEntry{other, 0, 0, 0, nullptr});
    it->time_ns += total.time_ns - sum;
  }
  return out;
}

std::vector<NoiseEntry> RunSample::all_noise() const {
  std::vector<NoiseEntry> out;
  for (const auto& e : noise) {
    auto parts = e.source == sources::kBlocking ? blocking_parts(e) : std::vector<NoiseEntry>{};
    if (parts.empty()) out.push_back(e);
    else out.insert(out.end(), parts.begin(), parts.end());
  }
  if (steal_ns > 0 && !find(std::string(sources::kSteal)))
    out.push_back({std::string(sources::kSteal), 0, steal_ns, steal_ns, nullptr});  // time, no events counted
  return out;
}

uint64_t RunSample::stolen_ns(std::string_view bench_comm) const {
  uint64_t s = 0;
  for (const auto& e : all_noise())
    if (sources::is_stolen(sources::parse(e.source), bench_comm)) s += e.time_ns;
  return s;
}

uint64_t RunSample::own_cpu_ns() const {
  if (!cpu_ns) return user_ns + sys_ns;
  uint64_t irq = cpu_irq_ns.value_or(0);
  return *cpu_ns > irq ? *cpu_ns - irq : 0;
}

std::optional<uint64_t> RunSample::accounted_ns() const {
  if (!cpu_ns) return std::nullopt;
  auto time_of = [&](std::string_view source) {
    const NoiseEntry* e = find(std::string(source));
    return e ? e->time_ns : uint64_t(0);
  };
  const uint64_t own = own_cpu_ns(), fault = time_of(sources::kFault), frequency = time_of(sources::kFrequency);
  const uint64_t stolen = stolen_ns();
  return (own > fault ? own - fault : 0) + blocking_ns + (stolen > frequency ? stolen - frequency : 0);
}

std::optional<uint64_t> RunSample::unaccounted_ns() const {
  auto a = accounted_ns();
  if (!a) return std::nullopt;
  return wall_ns > *a ? wall_ns - *a : 0;
}

const NoiseEntry* RunSample::find(const std::string& source) const {
  for (const auto& e : noise)
    if (e.source == source) return &e;
  return nullptr;
}

std::vector<const RunSample*> RunRecord::measured() const {
  std::vector<const RunSample*> out;
  for (const auto& r : samples)
    if (!r.warmup && !r.interrupted) out.push_back(&r);
  return out;
}

void RunRecord::add_unavailable(std::string probe, std::string reason) {
  for (const auto& u : unavailable)
    if (u.probe == probe) return;
  unavailable.push_back({std::move(probe), std::move(reason)});
}

Summary summarize(const RunRecord& rec) {
  Summary s;
  std::vector<double> w;
  for (const auto* r : rec.measured()) w.push_back(double(r->wall_ns));
  s.runs = int(w.size());
  if (w.empty()) return s;
  s.mean_ns = stats::mean(w);
  s.median_ns = stats::median(w);
  s.stddev_ns = w.size() > 1 ? stats::stddev(w) : 0.0;
  s.cv = s.mean_ns > 0 ? s.stddev_ns / s.mean_ns : 0.0;
  auto [lo, hi] = std::minmax_element(w.begin(), w.end());
  s.min_ns = *lo;
  s.max_ns = *hi;
  return s;
}

}  // namespace nw
