// Forwarding header, kept only for src/probes/ (being reworked elsewhere): nw::Error lives in
// common/errors.h, the exit status 125 in cli/commands.h. Delete this file once src/probes/
// includes common/errors.h.
#pragma once
#include "common/errors.h"
