// SPDX-License-Identifier: Apache-2.0
// `noisewatch kernel`: what this kernel gives noisewatch. The probe is loaded as each of the
// command line's set-ups would load it (a plain run, --timeline, each kind of --windows, all of
// them at once); for each, every program's verification against the verifier's limits, or the
// program the kernel refused and why; and the facilities the kernel lacks, with what is lost.
#pragma once
#include <string>
#include <vector>

#include "probes/verifier_log.h"
#include "record/run_record.h"

namespace nw::probes {

// The margins noisewatch keeps to the verifier's limits: verifier limits differ between kernel
// builds and grow with each program change, so a program accepted at the edge on one kernel is
// refused on the next. A stack of at most 3/4 of MAX_BPF_STACK leaves four frames' rounding of
// room; an eighth of the instruction limit leaves room for kernels that explore more paths.
inline constexpr uint32_t kStackMargin = kVerifierStackLimit * 3 / 4;  // 384 bytes
inline constexpr uint64_t kInsnsMarginDivisor = 8;

// What is within a stated margin of a limit, one line each ("stack 416 B > 384 B ..."); empty when
// the program keeps every margin.
std::vector<std::string> margin_problems(const ProgramVerification& v);

struct SetupResult {
  std::string configuration;  // "run", "--timeline", ...
  bool loaded = false;
  std::string refusal;  // the load's error when not loaded
};

struct KernelReport {
  std::string release, machine;
  bool btf = false;
  std::vector<SetupResult> setups;
  std::vector<ProgramVerification> programs;  // every program of every set-up that loaded
  std::vector<Unavailable> unavailable;       // as a plain run reports it
};

// Loads the probe in every set-up, one after the other (each unloaded before the next).
KernelReport examine_kernel();

std::string render_kernel_text(const KernelReport& r);
std::string render_kernel_json(const KernelReport& r);

}  // namespace nw::probes
