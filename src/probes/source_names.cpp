#include "probes/source_names.h"

#include <cstring>

namespace nw::probes {

std::string key_comm(const nw_noise_key& key) {
  return std::string(key.comm, strnlen(key.comm, sizeof(key.comm)));
}

}  // namespace nw::probes
