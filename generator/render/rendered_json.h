#pragma once

// A rendered manifest read back as JSON (render -o json), by the render stage that wrote it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace hkim {

/// The YAML document `text` (one rendered file) as JSON: plain scalars typed as the profile
/// loader types them (numbers, true/false, null), quoted ones kept as strings. Unlike the
/// profile loader it applies no input limits: the text is hkimgen's own output, whose
/// ConfigMaps (an NCCL topology file) exceed the 8 KiB a profile's value may hold. On a parse
/// error returns nullopt and sets `error` to yaml-cpp's message with the 1-based line.
std::optional<nlohmann::json> RenderedDocumentJson(const std::string& text, std::string* error);

}  // namespace hkim
