#include "text_cut.h"

namespace hkim::health {

std::string CutUtf8(const std::string& text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  // text[max_bytes] is the first byte left out. When it continues a character (10xxxxxx), that
  // character started before the limit: cut before its lead byte (at most 3 bytes back; a longer
  // run of continuation bytes is not UTF-8 and is cut where it is).
  std::size_t end = max_bytes;
  while (end > 0 && max_bytes - end < 3 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
    --end;
  if ((static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) end = max_bytes;
  return text.substr(0, end);
}

std::string DumpJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hkim::health
