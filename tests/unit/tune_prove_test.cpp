// SPDX-License-Identifier: Apache-2.0
// The `tune prove` summary: CV before and after, the median change from the compare engine, and
// the noise sources that disappeared, on two synthetic halves.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compare/compare.h"
#include "compare/input.h"
#include "compare/render.h"
#include "knobs/catalogue.h"
#include "tune/prove.h"

namespace nw::tune {
namespace {

// Ten runs around `base_ns`, each with `irq_ns` of an IRQ and some preemption by `other`.
RunRecord half(double base_ns, double spread, uint64_t irq_ns, const std::string& other) {
  RunRecord rec;
  rec.version = "test";
  rec.command = {"./bench"};
  rec.cpus = {1};
  for (int i = 0; i < 10; ++i) {
    RunSample s;
    s.index = i;
    s.wall_ns = uint64_t(base_ns + spread * ((i * 7) % 10 - 4.5));
    s.user_ns = s.wall_ns;
    if (irq_ns) s.noise.push_back({"irq:virtio1-req.0", 3, irq_ns + uint64_t(i) * 1000, irq_ns, nullptr});
    s.noise.push_back({"preemption:" + other, 1, 50'000, 50'000, nullptr});
    rec.samples.push_back(s);
  }
  rec.summary = summarize(rec);
  return rec;
}

// An apply that moved IRQs (partly: one refused) and turned ASLR off.
ApplyResult tuning() {
  ApplyResult r;
  r.knobs.push_back({&knobs::get("irq-affinity"), Outcome::partial, {}, "EPERM on 1 file", 2, 0, 1});
  r.knobs.push_back({&knobs::get("aslr-off"), Outcome::applied, {}, "", 1, 0, 0});
  r.knobs.push_back({&knobs::get("turbo-off"), Outcome::absent, {}, "no turbo", 0, 0, 0});
  r.changes = 3;
  return r;
}

TEST(TuneProve, SummarySaysWhatChangedAndWhatDisappeared) {
  auto before = half(10e6, 200e3, 300'000, "cron");
  auto after = half(9.8e6, 20e3, 0, "cron");
  before.samples[3].noise.push_back({"preemption:backup", 1, 2'000'000, 2'000'000, nullptr});
  auto cmp = compare::compare_inputs(compare::parse_input(to_json(before), "as the machine was"),
                                     compare::parse_input(to_json(after), "tuned"), compare::Options{});
  auto text = render_proof(before, after, cmp, tuning());
  EXPECT_NE(
      text.find(fmt::format("CV           {:.2f} % -> {:.2f} %", before.summary.cv * 100, after.summary.cv * 100)),
      std::string::npos)
      << text;
  EXPECT_GT(before.summary.cv, 5 * after.summary.cv);
  EXPECT_NE(text.find("median       "), std::string::npos);
  EXPECT_NE(text.find("gone         irq:virtio1-req.0 ("), std::string::npos) << text;
  EXPECT_NE(text.find("/run) by irq-affinity\n"), std::string::npos) << text;
  // No applied knob addresses a backup job: it stopped by itself.
  EXPECT_NE(text.find(fmt::format("also gone    preemption:backup ({}/run) (no applied knob",
                                  compare::format_duration(200e3))),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("cron ("), std::string::npos) << "a source on both sides did not disappear";
  EXPECT_NE(text.find("tuning       tuned 3 values: irq-affinity (partly), aslr-off; not on this machine: turbo-off"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("refused      irq-affinity: EPERM on 1 file"), std::string::npos) << text;
  EXPECT_NE(text.find("BASE as the machine was"), std::string::npos) << "the compare engine's report follows";
}

TEST(TuneProve, NothingGoneIsSaid) {
  auto before = half(10e6, 100e3, 0, "cron");
  auto after = half(10e6, 100e3, 0, "cron");
  auto cmp = compare::compare_inputs(compare::parse_input(to_json(before), "a"),
                                     compare::parse_input(to_json(after), "b"), compare::Options{});
  auto text = render_proof(before, after, cmp, ApplyResult{});
  EXPECT_NE(text.find("gone         no source the tuning addresses disappeared"), std::string::npos) << text;
  EXPECT_NE(text.find("tuning       tuned 0 values: nothing to change"), std::string::npos) << text;
  EXPECT_EQ(text.find("refused"), std::string::npos);
}

}  // namespace
}  // namespace nw::tune
