// SPDX-License-Identifier: Apache-2.0
#include "check/finding.h"

namespace nw::check {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::info:
      return "info";
    case Status::warn:
      return "warn";
    case Status::fail:
      return "fail";
    case Status::unknown:
      return "unknown";
  }
  return "unknown";
}

int CheckReport::exit_status() const {
  int rc = 0;
  for (const auto& f : findings) {
    if (f.status == Status::fail) return 2;
    if (f.status == Status::warn) rc = 1;
  }
  return rc;
}

const Finding* CheckReport::find(std::string_view id) const {
  for (const auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace nw::check
