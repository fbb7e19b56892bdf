// SPDX-License-Identifier: Apache-2.0
// `noisewatch snapshot DIR`: the files `check` reads, copied byte for byte into DIR, so the
// machine can be checked elsewhere with `noisewatch check --sysroot DIR`.
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "check/check_context.h"
#include "check/rules.h"
#include "cli/commands.h"
#include "common/errors.h"
#include "system/sysroot.h"

namespace nw::cli {

namespace {

int run_snapshot(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_empty(dir, ec))
    throw Error(fmt::format("{} exists and is not empty; give a new directory for the snapshot", dir));
  sys::Sysroot live;
  // Read as a check of every online CPU would, so that any --cpu works on the copy.
  auto all = check::make_context(live, std::nullopt).topo.online;
  auto ctx = check::make_context(live, all);
  check::run_all_checks(ctx);
  sys::write_snapshot(live, dir);
  fmt::print("wrote {} files to {}; check them with: noisewatch check --sysroot {}\n", live.files_read().size(), dir,
             dir);
  return 0;
}

}  // namespace

void register_snapshot(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("snapshot", "copy the /proc and /sys files that check reads into DIR");
  auto dir = std::make_shared<std::string>();
  sub->add_option("DIR", *dir, "new directory for the copy")->required()->type_name("DIR");
  sub->callback([&action, dir] { action = [dir] { return run_snapshot(*dir); }; });
}

}  // namespace nw::cli
