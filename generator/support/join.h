#pragma once

// Lists in messages and generated text ("a, b, c"), spelt once for every stage.

#include <string>
#include <string_view>
#include <vector>

namespace hkim {

/// `items` with `separator` between each two; "" for none.
inline std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += separator;
    text += items[i];
  }
  return text;
}

}  // namespace hkim
