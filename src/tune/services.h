// SPDX-License-Identifier: Apache-2.0
// Stopping and starting the services a knob needs out of the way (irqbalance), through systemd.
#pragma once
#include <memory>
#include <string>

namespace nw::sys {
class Sysroot;
}

namespace nw::tune {

class Services {
 public:
  virtual ~Services() = default;
  // "" when units can be managed here, else why not.
  virtual std::string unavailable() const = 0;
  virtual bool active(const std::string& unit) = 0;
  // "" on success, else what went wrong.
  virtual std::string stop(const std::string& unit) = 0;
  virtual std::string start(const std::string& unit) = 0;
};

// systemctl on the live machine; nothing under a sysroot (a copy of /proc and /sys has no
// services to manage).
std::unique_ptr<Services> make_services(const sys::Sysroot& root);

}  // namespace nw::tune
