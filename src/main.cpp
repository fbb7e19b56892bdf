#include "cli/commands.h"

int main(int argc, char** argv) { return nw::cli::main(argc, argv); }
