// The comm in a kernel-side noise key, which names preemption, contention and SMT sources (the
// names themselves are the vocabulary's: src/sources/).
#pragma once
#include <string>

#include "noise.h"

namespace nw::probes {

// The comm bytes of a key, up to the first NUL.
std::string key_comm(const nw_noise_key& key);

}  // namespace nw::probes
