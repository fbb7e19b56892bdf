// SPDX-License-Identifier: Apache-2.0
// Building blocks of the rendered commands, so every knob writes a file, runs a privileged
// command or names CPUs the same way (with sudo for `check`, as root for the report).
#pragma once
#include <string>
#include <vector>

#include "knobs/knob.h"

namespace nw::knobs::render {

// "sudo CMD" or "CMD".
std::string priv(const Context& c, const std::string& cmd);
// Writes VALUE to PATH: "echo V > P" as root, "echo V | sudo tee P" with sudo; PATH may hold a
// brace expansion ("cpu{2,3}"), which then always goes through tee.
std::string write(const Context& c, const std::string& value, const std::string& path);
// Appends a line to a file: "echo L >> P" or "echo L | sudo tee -a P".
std::string append(const Context& c, const std::string& line, const std::string& path);
// /sys/devices/system/cpu/cpu<N>/SUFFIX for every CPU: "cpu2/...", "cpu{2,3}/...", "cpu{2..7}/...".
std::string cpu_path(const std::vector<int>& cpus, const std::string& suffix);
// The CPU list, or the placeholder when unknown.
std::string cpus_or(const std::vector<int>& cpus, const char* placeholder);
// The benchmark CPUs and the housekeeping CPUs of a context, as lists and as a hex mask.
std::string targets(const Context& c);       // "2-3" or "<cpu>"
std::string housekeeping(const Context& c);  // "0-1,4-7" or "<housekeeping cpus>"
std::string housekeeping_mask(const Context& c);

}  // namespace nw::knobs::render
