// SPDX-License-Identifier: Apache-2.0
#include "tests/accuracy/inject/truth.h"

#include <sstream>
#include <stdexcept>

#include "common/files.h"

namespace nw::inject {

Truth load_truth(const std::string& path) {
  std::string text = read_file(path);
  if (text.empty()) throw std::runtime_error(path + " is empty or unreadable");
  Truth t;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      throw std::runtime_error(path + ":" + std::to_string(n) + ": not a JSON object");
    if (j.contains("setup")) t.setup = j["setup"];
    else if (j.contains("end")) t.end = j["end"];
    else if (j.contains("rep") && j["rep"].is_number_integer()) t.reps[j["rep"].get<int>()] = j;
    else throw std::runtime_error(path + ":" + std::to_string(n) + ": neither setup, rep nor end");
  }
  if (t.setup.is_null()) throw std::runtime_error(path + " has no setup line: not written by noisewatch_inject");
  return t;
}

}  // namespace nw::inject
