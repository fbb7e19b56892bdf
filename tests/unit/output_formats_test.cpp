// SPDX-License-Identifier: Apache-2.0
// The format tables of `check` and `compare` (src/common/formats.h): --format's choices, its help
// and the dispatch come from one table, and an unknown name is a one-line error.
#include <gtest/gtest.h>

#include "check/check_render.h"
#include "common/errors.h"
#include "compare/render.h"

namespace nw {
namespace {

TEST(OutputFormats, CheckAndCompareNameTheirFormatsOnce) {
  EXPECT_EQ(format_names(check::check_formats()), (std::vector<std::string>{"text", "json", "prometheus"}));
  EXPECT_EQ(format_help(check::check_formats()),
            "text (default), json (noisewatch.check/1) or prometheus (textfile collector)");
  EXPECT_EQ(format_names(compare::compare_formats()), (std::vector<std::string>{"text", "json", "markdown"}));
  EXPECT_EQ(format_help(compare::compare_formats()),
            "text (default), json (noisewatch.compare/1) or markdown (for a pull request)");
}

TEST(OutputFormats, DispatchesByNameAndRefusesAnUnknownOne) {
  check::CheckReport report;
  EXPECT_EQ(render_as(check::check_formats(), "prometheus", report, false), check::render_prometheus(report));
  EXPECT_EQ(render_as(check::check_formats(), "json", report, false), check::render_json(report).dump(2) + "\n");
  try {
    render_as(check::check_formats(), "yaml", report, false);
    FAIL() << "no error for an unknown format";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown format 'yaml': use text, json, prometheus");
  }
}

}  // namespace
}  // namespace nw
