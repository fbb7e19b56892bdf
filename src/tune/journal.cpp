// SPDX-License-Identifier: Apache-2.0
#include "tune/journal.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"
#include "system/sysroot.h"
#include "tune/file_io.h"

namespace nw::tune {

using nlohmann::json;

namespace {

constexpr const char* kSchema = "noisewatch.tune/1";

// Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
uint64_t start_time(int pid) {
  auto r = read_exact(fmt::format("/proc/{}/stat", pid));
  if (!r.content) return 0;
  auto close = r.content->rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(r.content->substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::stoull(field);
  return 0;
}

}  // namespace

Owner Owner::self(std::string command) { return of(int(getpid()), std::move(command)); }

Owner Owner::of(int pid, std::string command) { return {std::move(command), pid, start_time(pid)}; }

bool Owner::alive() const {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  return start_time(pid) == start;
}

bool Owner::other() const { return pid != int(getpid()) && alive(); }

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json to_json(const Journal& j) {
  json changes = json::array();
  for (const auto& c : j.changes) {
    json e = {{"knob", c.knob}};
    if (c.service.empty()) e["path"] = c.path;
    else e["service"] = c.service;
    e["before"] = c.before;
    e["after"] = c.after;
    if (c.format != knobs::Format::text) e["format"] = std::string(knobs::format_name(c.format));
    changes.push_back(std::move(e));
  }
  json out = {{"schema", kSchema},
              {"created", j.created},
              {"cpus", j.cpus},
              {"changes", changes},
              {"owner", {{"command", j.owner.command}, {"pid", j.owner.pid}, {"start", j.owner.start}}}};
  if (!j.sysroot.empty()) out["sysroot"] = j.sysroot;
  return out;
}

Journal journal_from_json(const json& j) {
  try {
    if (!j.is_object() || j.value("schema", "") != kSchema)
      throw Error(fmt::format("not a tune journal (schema is not {})", kSchema));
    Journal out;
    out.created = j.value("created", "");
    out.cpus = j.value("cpus", std::vector<int>{});
    out.sysroot = j.value("sysroot", "");
    if (j.contains("owner")) {
      const auto& o = j["owner"];
      out.owner = {o.value("command", ""), o.value("pid", 0), o.value("start", uint64_t(0))};
    }
    for (const auto& e : j.at("changes")) {
      Change c;
      c.knob = e.at("knob").get<std::string>();
      c.path = e.value("path", "");
      c.service = e.value("service", "");
      if (c.path.empty() == c.service.empty()) throw Error("a change names neither a path nor a service (or both)");
      c.before = e.at("before").get<std::string>();
      c.after = e.at("after").get<std::string>();
      c.format = knobs::format_from_name(e.value("format", "text"));
      out.changes.push_back(std::move(c));
    }
    return out;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
}

bool JournalFile::exists() const { return access(path_.c_str(), F_OK) == 0; }

std::optional<Journal> JournalFile::load() const {
  auto r = read_exact(path_);
  if (!r.content) {
    if (r.err == ENOENT) return std::nullopt;
    throw Error(fmt::format("cannot read the tune journal {}: {}", path_, errno_text(r.err)));
  }
  try {
    return journal_from_json(json::parse(*r.content));
  } catch (const std::exception& e) {
    throw Error(
        fmt::format("the tune journal {} is damaged ({}): restore its values by hand from the file, then "
                    "delete it",
                    path_, e.what()));
  }
}

void JournalFile::save(const Journal& j) const {
  if (int err = replace_durably(path_, to_json(j).dump(2) + "\n"))
    throw Error(
        fmt::format("cannot write the tune journal {}: {}; nothing more is changed (pick a writable "
                    "--journal FILE)",
                    path_, errno_text(err)));
}

void JournalFile::remove() const {
  if (int err = remove_durably(path_))
    throw Error(fmt::format("cannot remove the tune journal {}: {}", path_, errno_text(err)));
}

std::string default_journal_path(const sys::Sysroot& root) { return root.path("/run/noisewatch/tune.json"); }

}  // namespace nw::tune
