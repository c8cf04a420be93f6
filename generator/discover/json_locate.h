#pragma once

// Where a JSON pointer's value starts in a JSON text, found on demand. Large exports are parsed
// without a source map (one entry per value would cost more than the export): the parser records
// where each object starts (export_parse.h), and a diagnostic about a field inside one, which is
// rare, scans that object's text from its start.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "support/source_location.h"

namespace hkim::discover {

/// Byte offset of the value at `pointer` ("" is the root, "/items/3/metadata") in `text`, or
/// std::string::npos when the text does not hold it. Linear in the text; never recursive.
std::size_t FindJsonPointer(std::string_view text, const std::string& pointer);

/// 1-based line and column of byte `offset` of `text` (column counts bytes).
SourceLocation LocationOfOffset(const std::string& file, std::string_view text, std::size_t offset);

}  // namespace hkim::discover
