// SPDX-License-Identifier: Apache-2.0
#include "probes/elf_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::probes {

namespace {

// One open ELF file, closed on every path out.
class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : path_(path) {
    elf_version(EV_CURRENT);
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error(fmt::format("cannot open {} to find its functions", path));
    elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) {
      close();
      throw Error(fmt::format("{} is not an ELF executable or library", path));
    }
  }
  ~ElfFile() { close(); }
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;

  // Calls fn(section header, section) for every section.
  template <typename Fn>
  void for_each_section(Fn fn) const {
    for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh)) fn(sh, scn);
    }
  }
  const char* string_at(size_t section, size_t offset) const { return elf_strptr(elf_, section, offset); }

 private:
  void close() {
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
    elf_ = nullptr;
    fd_ = -1;
  }
  std::string path_;
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

std::vector<std::string> split_paths(const std::string& list, const std::string& origin) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string dir; std::getline(in, dir, ':');) {
    for (const std::string tag : {"$ORIGIN", "${ORIGIN}"})
      if (auto at = dir.find(tag); at != std::string::npos) dir.replace(at, tag.size(), origin);
    if (!dir.empty()) out.push_back(dir);
  }
  return out;
}

}  // namespace

std::vector<ElfFunction> function_symbols(const std::string& path) {
  ElfFile f(path);
  std::vector<ElfFunction> out;
  std::set<std::string> seen;
  std::map<size_t, GElf_Shdr> sections;  // by index: a symbol's address -> its offset in the file
  f.for_each_section([&](const GElf_Shdr& sh, Elf_Scn* scn) { sections[elf_ndxscn(scn)] = sh; });
  f.for_each_section([&](const GElf_Shdr& sh, Elf_Scn* scn) {
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) return;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !sh.sh_entsize) return;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym)) continue;
      const int type = GELF_ST_TYPE(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || !sym.st_value) continue;
      const char* name = f.string_at(sh.sh_link, sym.st_name);
      auto in = sections.find(sym.st_shndx);
      if (!name || !*name || in == sections.end() || sym.st_value < in->second.sh_addr) continue;
      if (seen.insert(name).second)
        out.push_back({name, sym.st_value, sym.st_value - in->second.sh_addr + in->second.sh_offset});
    }
  });
  return out;
}

std::vector<std::string> needed_libraries(const std::string& path) {
  std::vector<std::string> needed, dirs;
  {
    ElfFile f(path);
    std::string runpath, rpath;
    f.for_each_section([&](const GElf_Shdr& sh, Elf_Scn* scn) {
      if (sh.sh_type != SHT_DYNAMIC) return;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data || !sh.sh_entsize) return;
      for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(data, int(i), &dyn)) continue;
        const char* s = dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH
                            ? f.string_at(sh.sh_link, dyn.d_un.d_val)
                            : nullptr;
        if (!s) continue;
        if (dyn.d_tag == DT_NEEDED) needed.emplace_back(s);
        if (dyn.d_tag == DT_RUNPATH) runpath = s;
        if (dyn.d_tag == DT_RPATH) rpath = s;
      }
    });
    const std::string origin = std::filesystem::path(path).parent_path().string();
    // DT_RPATH only counts without DT_RUNPATH, and before LD_LIBRARY_PATH (ld.so(8)).
    if (runpath.empty())
      for (auto& d : split_paths(rpath, origin)) dirs.push_back(d);
    if (const char* env = getenv("LD_LIBRARY_PATH"))
      for (auto& d : split_paths(env, origin)) dirs.push_back(d);
    for (auto& d : split_paths(runpath, origin)) dirs.push_back(d);
  }
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                        "/usr/lib/aarch64-linux-gnu", "/usr/local/lib", "/lib64", "/usr/lib64", "/lib", "/usr/lib"})
    dirs.emplace_back(d);
  std::vector<std::string> out;
  for (const auto& name : needed) {
    if (name.find('/') != std::string::npos) {
      if (std::filesystem::exists(name)) out.push_back(name);
      continue;
    }
    for (const auto& d : dirs) {
      std::error_code ec;
      std::filesystem::path p = std::filesystem::path(d) / name;
      if (std::filesystem::is_regular_file(p, ec)) {
        out.push_back(std::filesystem::canonical(p, ec).string());
        break;
      }
    }
  }
  return out;
}

}  // namespace nw::probes
