#include "common/files.h"

#include <fstream>
#include <sstream>

namespace nw {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return {};
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace nw
