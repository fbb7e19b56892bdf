// SPDX-License-Identifier: Apache-2.0
#include "runner/command_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace nw::runner {

static Lookup check_path(const std::string& name, const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {127, "", name + ": command not found"};
  if (S_ISDIR(st.st_mode)) return {126, "", name + ": is a directory"};
  if (access(path.c_str(), X_OK) != 0) return {126, "", name + ": permission denied (not executable)"};
  return {0, path, ""};
}

Lookup lookup_command(const std::string& name) {
  if (name.empty()) return {127, "", "empty command"};
  if (name.find('/') != std::string::npos) return check_path(name, name);
  const char* env = std::getenv("PATH");
  std::string path_var = env ? env : "/usr/local/bin:/usr/bin:/bin";
  std::istringstream dirs(path_var);
  std::string dir;
  Lookup first_denied;
  while (std::getline(dirs, dir, ':')) {
    Lookup l = check_path(name, (dir.empty() ? "." : dir) + "/" + name);
    if (l.status == 0) return l;
    if (l.status == 126 && first_denied.status == 0) first_denied = l;
  }
  if (first_denied.status) return first_denied;
  return {127, "", name + ": command not found"};
}

}  // namespace nw::runner
