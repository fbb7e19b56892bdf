// SPDX-License-Identifier: Apache-2.0
// Where a command's document goes, written the same way by every subcommand: to stdout, or to a
// file written whole (a temporary beside it, renamed over it: a reader such as node_exporter's
// textfile collector, or a user's `tail`, never sees half a report), with colour decided once.
#pragma once
#include <cstdio>
#include <string>

namespace nw {

// `path` "" or "-": the stream; otherwise the file, atomically. Throws nw::Error naming the file
// and what to do when it cannot be written.
void write_document(const std::string& text, const std::string& path, std::FILE* stream = stdout);

// A file written whole: a temporary beside it, renamed over it. A special file (/dev/stdout, a
// FIFO) is written in place.
void write_file(const std::string& path, const std::string& text);

// Before any work starts: throws nw::Error naming `option` when `path` cannot be written (a
// missing directory, no permission, a directory), so that no result is lost at the end.
void check_writable(const std::string& path, const std::string& option);

// Colour only for a person at a terminal, and never when NO_COLOR is set to a non-empty value
// (no-color.org).
bool use_color(std::FILE* stream);

}  // namespace nw
