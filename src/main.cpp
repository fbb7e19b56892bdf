// SPDX-License-Identifier: Apache-2.0
#include "cli/commands.h"

int main(int argc, char** argv) { return nw::cli::main(argc, argv); }
