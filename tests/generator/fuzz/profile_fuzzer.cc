// libFuzzer target over the generator's input edge: any bytes as a profile (load must never crash
// and never fail silently), and any string as a template value (YamlQuoteString must give one
// YAML scalar that reads back as exactly that string).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "load/load.h"
#include "render/render.h"

namespace {

bool ValidUtf8WithoutNul(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0) return false;
    size_t length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (length == 0 || i + length > s.size()) return false;
    uint32_t code = length == 1 ? c : c & (0x7f >> length);
    for (size_t k = 1; k < length; ++k) {
      unsigned char next = static_cast<unsigned char>(s[i + k]);
      if ((next >> 6) != 2) return false;
      code = (code << 6) | (next & 0x3f);
    }
    // Overlong forms, surrogates, non-characters and C1 controls are not YAML-printable.
    if ((length == 2 && code < 0x80) || (length == 3 && code < 0x800) ||
        (length == 4 && code < 0x10000) || (code >= 0xd800 && code <= 0xdfff) || code == 0xfffe ||
        code == 0xffff || code > 0x10ffff || (code >= 0x80 && code < 0xa0 && code != 0x85)) {
      return false;
    }
    i += length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  hkim::DiagnosticSink sink;
  std::optional<hkim::LoadedProfile> loaded = hkim::LoadProfileFromText("fuzz.yaml", text, sink);
  if (!loaded && !sink.HasErrors()) std::abort();  // a failure must say why
  if (loaded && !loaded->document.is_object()) std::abort();

  if (ValidUtf8WithoutNul(text)) {
    const std::string yaml = "k: " + hkim::YamlQuoteString(text) + "\n";
    YAML::Node node;
    try {
      node = YAML::Load(yaml);
    } catch (const YAML::Exception&) {
      std::abort();  // the quoted value broke the document
    }
    if (!node.IsMap() || node.size() != 1 || node["k"].as<std::string>() != text) std::abort();
  }
  return 0;
}
