// SPDX-License-Identifier: Apache-2.0
#include "system/interrupts.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace nw::sys {

uint64_t Interrupts::count(const InterruptLine& l, int cpu) const {
  for (size_t i = 0; i < cpus.size() && i < l.per_cpu.size(); ++i)
    if (cpus[i] == cpu) return l.per_cpu[i];
  return 0;
}

const InterruptLine* Interrupts::find_irq(int irq) const {
  for (const auto& l : lines)
    if (l.device && l.irq == irq) return &l;
  return nullptr;
}

Interrupts parse_interrupts(const std::string& text) {
  Interrupts t;
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return t;
  {
    std::istringstream hdr(line);
    std::string tok;
    while (hdr >> tok)
      if (tok.rfind("CPU", 0) == 0) t.cpus.push_back(std::stoi(tok.substr(3)));
  }
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string id;
    if (!(ls >> id) || id.back() != ':') continue;
    id.pop_back();
    InterruptLine l;
    l.id = id;
    l.device = !id.empty() && std::isdigit(static_cast<unsigned char>(id[0]));
    if (l.device) l.irq = std::stoi(id);
    // Count columns: as many numbers as there are CPUs (ERR/MIS have just one).
    for (size_t i = 0; i < t.cpus.size(); ++i) {
      auto pos = ls.tellg();
      std::string tok;
      if (!(ls >> tok)) break;
      if (tok.find_first_not_of("0123456789") != std::string::npos) {
        ls.clear();
        ls.seekg(pos);
        break;
      }
      l.per_cpu.push_back(std::stoull(tok));
    }
    std::string rest;
    std::getline(ls, rest);
    auto b = rest.find_first_not_of(' ');
    rest = b == std::string::npos ? "" : rest.substr(b);
    if (l.device) {
      // "<chip> <hwirq>-<type> <action,...>" with single-space separated tokens after padding.
      std::istringstream rs(rest);
      rs >> l.chip;
      std::string tok;
      std::vector<std::string> toks;
      while (rs >> tok) toks.push_back(tok);
      // The hwirq token is the one with "-edge"/"-level"/"-fasteoi"; the rest are action names.
      size_t k = 0;
      for (; k < toks.size(); ++k)
        if (toks[k].find('-') != std::string::npos &&
            (toks[k].find("edge") != std::string::npos || toks[k].find("level") != std::string::npos ||
             toks[k].find("fasteoi") != std::string::npos)) {
          l.hwirq = toks[k];
          ++k;
          break;
        }
      if (l.hwirq.empty()) k = 0;
      for (; k < toks.size(); ++k) l.name += (l.name.empty() ? "" : " ") + toks[k];
    } else {
      l.description = rest;
    }
    t.lines.push_back(std::move(l));
  }
  return t;
}

Interrupts read_interrupts(const std::string& root) {
  std::ifstream f(root + "/proc/interrupts");
  if (!f) return {};
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_interrupts(ss.str());
}

std::string irq_name(const Interrupts& table, int irq) {
  if (const auto* l = table.find_irq(irq); l && !l->name.empty()) {
    std::string n = l->name;
    // Shared lines list several actions ("i8042, rtc0"): keep them, without spaces.
    std::string out;
    for (char c : n)
      if (c != ' ') out += c;
    return out;
  }
  return fmt::format("irq{}", irq);
}

}  // namespace nw::sys
