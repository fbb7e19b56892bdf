// SPDX-License-Identifier: Apache-2.0
// Builds the comparison model from two parsed inputs: match benchmarks by name, compare timings,
// diff noise and hosts when both sides are noisewatch reports, and write the verdict sentences.
#pragma once
#include "compare/input.h"
#include "compare/model.h"

namespace nw::compare {

// Throws nw::Error when no benchmark name is common to both inputs. A pyperf JSON beside a
// --windows pyperf record is compared on pyperf's run durations (pyperf_measures.h).
Comparison compare_inputs(InputFile base, InputFile next, const Options& options);

}  // namespace nw::compare
