// What `noisewatch run` was asked to do, after option parsing and validation.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nw::runner {

struct Plan {
  std::vector<std::string> command;
  std::vector<int> cpus;          // pin targets; empty with --no-pin
  bool pin = true;
  std::string cpu_reason;         // why these CPUs (printed and recorded)
  int runs = 10;
  int warmup = 1;
  std::vector<std::string> events;  // libpfm4 event names (-e); empty = default set
  bool counters = true;
};

}  // namespace nw::runner
