#include "scenarios/text.hpp"

#include <fmt/format.h>

namespace rsim::scenario {

namespace {

enum class Encoding { Utf8, Utf16Le, Utf16Be, Utf32Le, Utf32Be };

struct Sniffed {
  Encoding encoding;
  std::size_t bom;  // bytes of byte order mark, which YAML skips
};

// A first byte that may be ASCII text, in yaml-cpp's sense: neither NUL nor
// a byte that starts a byte order mark.
bool ascii_like(int b) { return b > 0 && b < 0xFF && b != 0xBB && b != 0xBF && b != 0xEF && b != 0xFE; }

// The encoding as yaml-cpp's Stream picks it from the first four bytes.
Sniffed sniff(std::string_view t) {
  auto at = [&](std::size_t i) { return i < t.size() ? static_cast<int>(static_cast<unsigned char>(t[i])) : -1; };
  const int b0 = at(0), b1 = at(1), b2 = at(2), b3 = at(3);
  if (b0 == 0xEF && b1 == 0xBB && b2 == 0xBF) return {Encoding::Utf8, 3};
  if (b0 == 0xFE && b1 == 0xFF) return {Encoding::Utf16Be, 2};
  if (b0 == 0xFF && b1 == 0xFE) return b2 == 0 && b3 == 0 ? Sniffed{Encoding::Utf32Le, 4} : Sniffed{Encoding::Utf16Le, 2};
  if (b0 == 0 && b1 == 0) {
    if (b2 == 0) return {Encoding::Utf32Be, 0};
    if (b2 == 0xFE && b3 == 0xFF) return {Encoding::Utf32Be, 4};
    return {Encoding::Utf8, 0};
  }
  if (b0 == 0 && ascii_like(b1)) return {Encoding::Utf16Be, 0};
  if (ascii_like(b0) && b1 == 0) return b2 == 0 && b3 == 0 ? Sniffed{Encoding::Utf32Le, 0} : Sniffed{Encoding::Utf16Le, 0};
  return {Encoding::Utf8, 0};
}

unsigned byte(std::string_view t, std::size_t i) { return static_cast<unsigned char>(t[i]); }

// RFC 3629, table 3.1: the second byte's range depends on the first, which
// rules out overlong forms, surrogates and code points above U+10FFFF.
std::optional<char32_t> next_utf8(std::string_view t, std::size_t& i, std::string& fault) {
  const unsigned lead = byte(t, i);
  auto bad = [&] {
    fault = fmt::format("not valid UTF-8: byte 0x{:02X}", lead);
    return std::nullopt;
  };
  if (lead < 0x80) {
    ++i;
    return lead;
  }
  std::size_t more = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    more = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    more = 2;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    more = 3;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return bad();
  }
  char32_t cp = lead & (0x3F >> more);
  for (std::size_t k = 1; k <= more; ++k) {
    if (i + k >= t.size()) return bad();
    const unsigned c = byte(t, i + k);
    if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return bad();
    cp = (cp << 6) | (c & 0x3F);
  }
  i += more + 1;
  return cp;
}

std::optional<char32_t> next_utf16(std::string_view t, std::size_t& i, bool big_endian, std::string& fault) {
  auto unit = [&](std::size_t k) -> char32_t {
    return big_endian ? (byte(t, k) << 8) | byte(t, k + 1) : (byte(t, k + 1) << 8) | byte(t, k);
  };
  if (i + 2 > t.size()) {
    fault = "not valid UTF-16: the text ends inside a character";
    return std::nullopt;
  }
  const char32_t u = unit(i);
  const bool high = u >= 0xD800 && u < 0xDC00;
  const bool low = u >= 0xDC00 && u < 0xE000;
  if (!high && !low) {
    i += 2;
    return u;
  }
  fault = fmt::format("not valid UTF-16: unpaired surrogate 0x{:04X}", static_cast<unsigned>(u));
  if (low || i + 4 > t.size()) return std::nullopt;
  const char32_t next = unit(i + 2);
  if (next < 0xDC00 || next >= 0xE000) return std::nullopt;
  i += 4;
  return 0x10000 + ((u - 0xD800) << 10) + (next - 0xDC00);
}

std::optional<char32_t> next_utf32(std::string_view t, std::size_t& i, bool big_endian, std::string& fault) {
  if (i + 4 > t.size()) {
    fault = "not valid UTF-32: the text ends inside a character";
    return std::nullopt;
  }
  char32_t cp = 0;
  for (std::size_t k = 0; k < 4; ++k) cp = (cp << 8) | byte(t, big_endian ? i + k : i + 3 - k);
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) {
    fault = fmt::format("not valid UTF-32: 0x{:X} is not a Unicode character", static_cast<unsigned>(cp));
    return std::nullopt;
  }
  i += 4;
  return cp;
}

// The code point at `i`, moving `i` past it; nullopt and `fault` if the
// text is not well formed there.
std::optional<char32_t> next_code_point(std::string_view t, std::size_t& i, Encoding e, std::string& fault) {
  switch (e) {
    case Encoding::Utf8: return next_utf8(t, i, fault);
    case Encoding::Utf16Le: return next_utf16(t, i, false, fault);
    case Encoding::Utf16Be: return next_utf16(t, i, true, fault);
    case Encoding::Utf32Le: return next_utf32(t, i, false, fault);
    case Encoding::Utf32Be: return next_utf32(t, i, true, fault);
  }
  return std::nullopt;
}

int utf8_length(char32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

}  // namespace

std::optional<TextFault> find_text_fault(std::string_view text) {
  const auto [encoding, bom] = sniff(text);
  int line = 1, column = 1;
  std::string fault;
  for (std::size_t i = bom; i < text.size();) {
    const auto cp = next_code_point(text, i, encoding, fault);
    if (!cp) return TextFault{line, column, fault};
    if (*cp == U'\n') {
      ++line;
      column = 1;
    } else {
      column += utf8_length(*cp);
    }
  }
  return std::nullopt;
}

}  // namespace rsim::scenario
