// SPDX-License-Identifier: Apache-2.0
#include "tune/restore.h"

#include <fmt/format.h>

#include "common/errors.h"
#include "system/sysroot.h"
#include "tune/file_io.h"
#include "tune/pending.h"

namespace nw::tune {

namespace {

// Writes `c.before` back: first what the kernel accepts (the chosen word of a choice list), then,
// for a file that does not read back the same (a plain copy of sysfs), the bytes themselves.
std::string put_back(const std::string& real, const Change& c) {
  std::string first = knobs::restore_write(c.format, c.before);
  int err = write_exact(real, first);
  auto now = read_exact(real);
  if (now.content == c.before) return "";
  if (first != c.before) {
    int err2 = write_exact(real, c.before);
    now = read_exact(real);
    if (now.content == c.before) return "";
    if (!err) err = err2;
  }
  std::string reads = now.content ? fmt::format("'{}'", knobs::value_of(c.format, *now.content)) : errno_text(now.err);
  return fmt::format("{}: could not put back '{}'{}; it reads {}", c.path, knobs::value_of(c.format, c.before),
                     err ? fmt::format(" ({})", errno_text(err)) : "", reads);
}

}  // namespace

RestoreResult restore(const JournalFile& journal, const RestoreOptions& o, Services* services) {
  RestoreResult out;
  auto loaded = journal.load();
  if (!loaded) {
    out.nothing = true;
    return out;
  }
  Journal& j = *loaded;
  if (o.sysroot_given && sys::Sysroot(o.sysroot).root() != j.sysroot)
    throw Error(
        fmt::format("the journal {} was written for {}, not for --sysroot {}: drop --sysroot, or name the "
                    "right journal",
                    journal.path(), j.sysroot.empty() ? "the live machine" : j.sysroot, o.sysroot));
  if (j.owner.other()) throw Error(pending_message(journal, j));
  sys::Sysroot root(j.sysroot);
  std::unique_ptr<Services> own_services;
  if (!services) {
    own_services = make_services(root);
    services = own_services.get();
  }
  std::vector<Change> left;
  for (auto it = j.changes.rbegin(); it != j.changes.rend(); ++it) {
    const Change& c = *it;
    std::string failure;
    if (!c.service.empty()) {
      if (c.before == "active") failure = services->start(c.service);
      if (failure.empty()) {
        ++out.restored;
        out.details.push_back(fmt::format("{}: started again", c.service));
      }
    } else {
      std::string real = root.path(c.path);
      auto now = read_exact(real);
      if (now.content == c.before) {
        ++out.unchanged;
        continue;
      }
      failure = put_back(real, c);
      if (failure.empty()) {
        ++out.restored;
        out.details.push_back(fmt::format("{}: {} -> {}", c.path,
                                          now.content ? knobs::value_of(c.format, *now.content) : "?",
                                          knobs::value_of(c.format, c.before)));
      }
    }
    if (!failure.empty()) {
      out.failures.push_back(failure);
      left.insert(left.begin(), c);
    }
  }
  out.journal = j;
  if (left.empty()) {
    journal.remove();
  } else {
    j.changes = left;
    journal.save(j);
  }
  return out;
}

}  // namespace nw::tune
