#pragma once

#include <string>

namespace hkim {

/// A place in an input file, 1-based, as editors expect (`file:line:col`).
struct SourceLocation {
  std::string file;  ///< path as the user gave it (never made absolute: output stays portable)
  int line = 0;      ///< 1-based; 0 means "no line known"
  int column = 0;    ///< 1-based; 0 means "no column known"

  bool known() const { return line > 0; }
};

}  // namespace hkim
