// SPDX-License-Identifier: Apache-2.0
// Finding knobs in the catalogue: by id, by the noise source they address, by check finding.
#include <stdexcept>

#include "knobs/catalogue.h"

namespace nw::knobs {

namespace {

template <typename Pred>
std::vector<const Knob*> select(Pred pred) {
  std::vector<const Knob*> out;
  for (const auto& k : catalogue())
    if (pred(k)) out.push_back(&k);
  return out;
}

}  // namespace

const Knob* find(std::string_view id) {
  for (const auto& k : catalogue())
    if (k.id == id) return &k;
  return nullptr;
}

const Knob& get(std::string_view id) {
  if (const Knob* k = find(id)) return *k;
  throw std::out_of_range("unknown knob id '" + std::string(id) + "'");
}

std::vector<const Knob*> runtime_knobs() {
  return select([](const Knob& k) { return k.scope == Scope::runtime; });
}

std::vector<const Knob*> boot_knobs() {
  return select([](const Knob& k) { return k.scope == Scope::boot; });
}

std::vector<const Knob*> for_finding(std::string_view finding_id) {
  return select([&](const Knob& k) {
    for (auto f : k.findings)
      if (f == finding_id) return true;
    return false;
  });
}

}  // namespace nw::knobs
