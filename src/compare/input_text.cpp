// SPDX-License-Identifier: Apache-2.0
#include "compare/input_text.h"

#include <zlib.h>

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "common/errors.h"

namespace nw::compare {

using nlohmann::json;

namespace {

bool is_gzip(std::string_view b) { return b.size() >= 2 && uint8_t(b[0]) == 0x1f && uint8_t(b[1]) == 0x8b; }

// A BOM, or a NUL in every other byte of the first ones ({"... as UTF-16 is '{' 0 '"' 0).
bool looks_utf16(std::string_view b) {
  if (b.size() >= 2 &&
      ((uint8_t(b[0]) == 0xff && uint8_t(b[1]) == 0xfe) || (uint8_t(b[0]) == 0xfe && uint8_t(b[1]) == 0xff)))
    return true;
  size_t n = std::min<size_t>(b.size(), 64) & ~size_t(1);
  if (n < 4) return false;
  size_t even_nul = 0, odd_nul = 0;
  for (size_t i = 0; i < n; ++i) (i % 2 ? odd_nul : even_nul) += b[i] == '\0';
  return odd_nul == n / 2 || even_nul == n / 2;
}

bool only_whitespace(std::string_view b) { return b.find_first_not_of(" \t\r\n") == std::string_view::npos; }

// Every gzip member in turn (`cat a.gz b.gz` is valid gzip), bounded by kMaxInflatedBytes.
std::string gunzip(std::string_view in, const std::string& label) {
  auto fail = [&](const std::string& why) {
    return Error(
        fmt::format("{} is gzip-compressed but cannot be decompressed ({}): check it with "
                    "`gzip -t {}`, or pass the uncompressed JSON",
                    label, why, label));
  };
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw fail("zlib could not start");
  std::string out;
  std::vector<char> buf(size_t(1) << 16);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(std::min<size_t>(in.size(), std::numeric_limits<uInt>::max()));
  int rc = Z_OK;
  while (true) {
    z.next_out = reinterpret_cast<Bytef*>(buf.data());
    z.avail_out = uInt(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf.data(), buf.size() - z.avail_out);
    if (out.size() > kMaxInflatedBytes) {
      inflateEnd(&z);
      throw fail(fmt::format("it inflates to more than {} MiB", kMaxInflatedBytes >> 20));
    }
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      if (!is_gzip({reinterpret_cast<const char*>(z.next_in), z.avail_in}))
        break;  // trailing junk: ignored, as gzip does
      inflateReset(&z);
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      inflateEnd(&z);
      throw fail("it ends early: the file is truncated");
    }
    std::string why = z.msg ? z.msg : fmt::format("zlib error {}", rc);
    inflateEnd(&z);
    throw fail(why);
  }
  inflateEnd(&z);
  return out;
}

// The non-finite literals found by the pre-pass, in document order, with the nulls that were
// there already: nlohmann's parser callback sees every null value in the same order.
enum class Literal : uint8_t { null, nan, infinity, minus_infinity };

struct Prepared {
  std::string text;              // the non-finite literals replaced by null
  std::vector<Literal> nulls;    // one per null in `text`
  std::vector<size_t> grown_at;  // positions in `text` where a replacement added a byte
  bool any_nonfinite = false;
};

bool starts(std::string_view s, size_t i, std::string_view word) { return s.substr(i, word.size()) == word; }

Prepared replace_nonfinite(std::string_view in) {
  Prepared p;
  p.text.reserve(in.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (in_string) {
      p.text += c;
      if (c == '\\' && i + 1 < in.size()) p.text += in[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    // Widths are kept where the literal is long enough, so parse errors point at the same byte.
    if (starts(in, i, "null")) {
      p.nulls.push_back(Literal::null);
      p.text += "null";
      i += 3;
    } else if (starts(in, i, "NaN")) {
      p.nulls.push_back(Literal::nan);
      p.grown_at.push_back(p.text.size());
      p.text += "null";
      i += 2;
      p.any_nonfinite = true;
    } else if (starts(in, i, "Infinity")) {
      p.nulls.push_back(Literal::infinity);
      p.text += "null    ";
      i += 7;
      p.any_nonfinite = true;
    } else if (starts(in, i, "-Infinity")) {
      p.nulls.push_back(Literal::minus_infinity);
      p.text += "null     ";
      i += 8;
      p.any_nonfinite = true;
    } else {
      p.text += c;
    }
  }
  return p;
}

// Byte offset in the caller's text of a byte offset in the prepared text.
size_t original_byte(const Prepared& p, size_t byte) {
  size_t shift = 0;
  for (size_t at : p.grown_at)
    if (at < byte) ++shift;
  return byte - shift;
}

}  // namespace

std::string decode_input_bytes(std::string_view bytes, const std::string& label) {
  if (bytes.empty())
    throw Error(
        fmt::format("{} is empty (0 bytes): pass the JSON file the benchmark wrote (did it fail "
                    "before writing it?)",
                    label));
  std::string text = is_gzip(bytes) ? gunzip(bytes, label) : std::string(bytes);
  const char* gz = is_gzip(bytes) ? " once decompressed" : "";
  if (looks_utf16(text))
    throw Error(
        fmt::format("{} is UTF-16 text{} (as a Windows shell redirect writes); compare reads UTF-8 "
                    "JSON: convert it with `iconv -f UTF-16 -t UTF-8`, or let the tool write the file "
                    "itself (--benchmark_out, --export-json, -o)",
                    label, gz));
  if (only_whitespace(text))
    throw Error(fmt::format("{} is empty{} (only whitespace): pass the JSON file the benchmark wrote", label, gz));
  return text;
}

json parse_json_allowing_nonfinite(std::string_view text, const std::string& label) {
  Prepared p = replace_nonfinite(text);
  try {
    if (!p.any_nonfinite) return json::parse(p.text);
    size_t next = 0;
    json::parser_callback_t restore = [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::value && parsed.is_null() && next < p.nulls.size()) {
        switch (p.nulls[next++]) {
          case Literal::null:
            break;
          case Literal::nan:
            parsed = std::numeric_limits<double>::quiet_NaN();
            break;
          case Literal::infinity:
            parsed = std::numeric_limits<double>::infinity();
            break;
          case Literal::minus_infinity:
            parsed = -std::numeric_limits<double>::infinity();
            break;
        }
      }
      return true;
    };
    return json::parse(p.text, restore);
  } catch (const json::parse_error& e) {
    throw Error(
        fmt::format("{} is not valid JSON (byte {}): pass a benchmark report file", label, original_byte(p, e.byte)));
  } catch (const json::exception&) {
    // e.g. a number literal beyond double range (out_of_range.406)
    throw Error(fmt::format("{} is not JSON that noisewatch can read (a number is out of range)", label));
  }
}

}  // namespace nw::compare
