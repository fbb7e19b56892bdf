// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: any byte string given to compare's input parsers must end in a parsed input
// or an nw::Error, never a crash, hang, sanitizer report or another exception. Inputs that parse
// are also compared with themselves and rendered, which exercises the statistics on odd data.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/errors.h"
#include "compare/compare.h"
#include "compare/input.h"
#include "compare/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto in = nw::compare::parse_input_text(text, "fuzz.json");
    auto c = nw::compare::compare_inputs(in, in, nw::compare::Options{});
    (void)nw::compare::render_text(c);
    (void)nw::compare::render_markdown(c);
    (void)nw::compare::render_json(c);
  } catch (const nw::Error&) {
    // The expected outcome for bad input: a one-line message, exit 125.
  }
  return 0;
}
