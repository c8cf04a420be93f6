#include "common/read_file.h"

#include <fstream>
#include <sstream>

namespace hkim::wrapper {

std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hkim::wrapper
