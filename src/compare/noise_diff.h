// SPDX-License-Identifier: Apache-2.0
// Noise half of compare: which sources took more (or less) time from the benchmark in NEW.
#pragma once
#include <vector>

#include "compare/model.h"
#include "record/run_record.h"

namespace nw::compare {

// Per source present in either record: mean time and count per measured run on each side, the
// change relative to BASE's median wall time, and Mann-Whitney significance (Holm-corrected
// across sources, since many sources are tested at once). Sorted by decreasing |change_ns|.
std::vector<NoiseChange> diff_noise(const RunRecord& base, const RunRecord& next, double base_median_ns, double alpha);

// Wall time minus the time noise stole from each measured run (RunSample::stolen_ns): what the
// benchmark would have taken undisturbed, as far as the probes saw.
std::vector<double> undisturbed_times(const RunRecord& rec);

// A change counts in the explanation when it is significant and at least this many points.
inline constexpr double kMaterialPoints = 0.1;
bool is_material(const NoiseChange& c);

}  // namespace nw::compare
