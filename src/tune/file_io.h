// SPDX-License-Identifier: Apache-2.0
// Exact reads and writes of /proc and /sys files (and of their copies under a sysroot), and the
// durable file replacement the tune journal relies on.
#pragma once
#include <optional>
#include <string>

namespace nw::tune {

struct ReadResult {
  std::optional<std::string> content;  // every byte, or nullopt
  int err = 0;                         // errno when content is nullopt
};
ReadResult read_exact(const std::string& path);

// One write(2) of all the bytes, as `echo V > FILE` does (sysfs takes a value in one write).
// Returns 0 or the errno.
int write_exact(const std::string& path, const std::string& bytes);

// Replaces `path` with `bytes` so that a crash at any point leaves either the old or the new
// file, complete: a temporary file in the same directory, fsync, rename, fsync of the directory.
// Creates the directory (0755) when missing. Returns 0 or the errno.
int replace_durably(const std::string& path, const std::string& bytes);
// Unlinks and fsyncs the directory; ENOENT is success.
int remove_durably(const std::string& path);

// "EPERM (Operation not permitted)".
std::string errno_text(int err);

}  // namespace nw::tune
