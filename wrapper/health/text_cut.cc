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

std::vector<std::string> CommaItems(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) items.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

}  // namespace hkim::health
