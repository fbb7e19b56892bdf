// SPDX-License-Identifier: Apache-2.0
// Writes noisewatch's man pages and shell completions, generated from the option definitions
// --help shows (src/cli/docgen.h), at build time:
//   nw_docgen OUTDIR DATE    OUTDIR/man1/noisewatch*.1, OUTDIR/bash-completion/noisewatch,
//                            OUTDIR/zsh/_noisewatch; DATE goes in the pages' headers
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "cli/docgen.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: nw_docgen OUTDIR DATE\n");
    return 125;
  }
  namespace fs = std::filesystem;
  fs::path out = argv[1];
  nw::cli::Action action;
  auto app = nw::cli::make_app(action);
  auto top = nw::cli::describe(*app);
  fs::remove_all(out / "man1");
  fs::create_directories(out / "man1");
  fs::create_directories(out / "bash-completion");
  fs::create_directories(out / "zsh");
  auto write = [](const fs::path& p, const std::string& text) {
    std::ofstream f(p);
    f << text;
    if (!f) {
      std::fprintf(stderr, "nw_docgen: cannot write %s\n", p.c_str());
      std::exit(1);
    }
  };
  for (const auto& [name, text] : nw::cli::man_pages(top, NOISEWATCH_VERSION, argv[2]))
    write(out / "man1" / name, text);
  write(out / "bash-completion" / "noisewatch", nw::cli::bash_completion(top));
  write(out / "zsh" / "_noisewatch", nw::cli::zsh_completion(top));
  return 0;
}
