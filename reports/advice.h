// SPDX-License-Identifier: Apache-2.0
// The report's recommendations: which knobs of the catalogue (src/knobs/) this run calls for, and
// advice on the measurement itself.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "knobs/knob.h"
#include "record/run_record.h"
#include "reports/attribution.h"
#include "reports/neighbours.h"
#include "reports/patterns.h"
#include "reports/workload.h"

namespace nw::report {

// A source below this share of the variance is not worth a knob.
inline constexpr double kMaterialShare = 0.02;
// A knob is proposed when the material sources it addresses sum to at least this share.
inline constexpr double kMinAddressedShare = 0.05;

struct AdviceInput {
  const RunRecord& rec;
  const std::vector<AttributedSource>& rows;  // ranked attribution, `unexplained` included
  const Patterns& patterns;
  const WorkloadSplit& split;
  bool attributable = false;
  std::span<const NeighbourLead> leads = {};
};

// Ranked: knobs addressing measured sources by share, then knobs that may address
// `unexplained` by share, then advice on the measurement itself (warm-up, more runs).
std::vector<Recommendation> recommend(const AdviceInput& in);

// How the recommendations are ordered: by tier, then by share within a tier.
enum class Tier {
  measured,     // removes measured sources; ranked by the share it addresses
  speculative,  // may reduce `unexplained` (its cause is unmeasured); share = all of `unexplained`
  measurement,  // about the measurement itself (warm-up, more runs); no share
};
Tier tier_of(const Recommendation& r);

// What a recommendation can be, in table order (ids of per-process/per-IRQ ones are prefixes:
// "stop-process" yields "stop-process:<comm>").
std::vector<std::string> recommendation_ids();

// What the catalogue renders a record's recommendations for: its CPUs, its machine's online CPUs
// and its command, as root (no sudo).
knobs::Context knob_context(const RunRecord& rec);

}  // namespace nw::report
