// SPDX-License-Identifier: Apache-2.0
#include "common/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw {

void write_file(const std::string& path, const std::string& text) {
  std::error_code ec;
  const bool regular = !std::filesystem::exists(path, ec) || std::filesystem::is_regular_file(path, ec);
  const std::string tmp = regular ? path + ".tmp" + std::to_string(getpid()) : path;
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f)
      throw Error(
          fmt::format("cannot write {}: {}; check the directory exists and is writable", path, std::strerror(errno)));
    f << text;
    f.close();
    if (!f) {
      int err = errno;
      if (regular) std::remove(tmp.c_str());
      throw Error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
    }
  }
  if (regular && std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("cannot write {}: {}", path, std::strerror(err)));
  }
}

void write_document(const std::string& text, const std::string& path, std::FILE* stream) {
  if (!path.empty() && path != "-") return write_file(path, text);
  std::fwrite(text.data(), 1, text.size(), stream);
  std::fflush(stream);
}

void check_writable(const std::string& path, const std::string& option) {
  namespace fs = std::filesystem;
  if (path.empty() || path == "-") return;
  std::error_code ec;
  fs::path file(path);
  if (fs::is_directory(file, ec)) throw Error(fmt::format("{} {}: is a directory; give a file name", option, path));
  fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec))
    throw Error(
        fmt::format("{} {}: directory {} does not exist; create it or write elsewhere", option, path, dir.string()));
  const bool exists = fs::exists(file, ec);
  if (access(exists ? file.c_str() : dir.c_str(), W_OK) != 0)
    throw Error(fmt::format("{} {}: cannot write there ({}); choose another path", option, path, std::strerror(errno)));
}

bool use_color(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(fileno(stream)) && !(no_color && *no_color);
}

}  // namespace nw
