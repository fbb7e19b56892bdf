// SPDX-License-Identifier: Apache-2.0
#include "common/exposition.h"

#include <cmath>

#include <fmt/format.h>

namespace nw {

std::string valid_utf8(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  size_t i = 0;
  while (i < v.size()) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(v[k]); };
    unsigned char c = b(i);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= v.size();
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; ok && k < len; ++k) {
      ok = (b(i + k) & 0xC0) == 0x80;
      cp = (cp << 6) | (b(i + k) & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 either.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)) ok = false;
    if (ok) {
      out.append(v.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string escape_label_value(std::string_view raw) {
  std::string v = valid_utf8(raw);
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string escape_help(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

void Exposition::family(std::string_view name, std::string_view type, std::string_view help) {
  pending_header_ = fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape_help(help), name, type);
}

void Exposition::name_and_labels(std::string_view name, const Labels& labels) {
  out_ += pending_header_;
  pending_header_.clear();
  out_ += name;
  if (labels.empty()) return;
  out_ += '{';
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out_ += ',';
    first = false;
    out_ += fmt::format("{}=\"{}\"", k, escape_label_value(v));
  }
  out_ += '}';
}

void Exposition::sample(std::string_view name, const Labels& labels, double value) {
  name_and_labels(name, labels);
  out_ += ' ';
  out_ += format_value(value);
  out_ += '\n';
}

void Exposition::sample_int(std::string_view name, const Labels& labels, uint64_t value) {
  name_and_labels(name, labels);
  out_ += fmt::format(" {}\n", value);
}

}  // namespace nw
