#include "render/rendered_json.h"

#include <yaml-cpp/yaml.h>

#include "load/load_input.h"
#include "load/yaml_scalar.h"

namespace hkim {
namespace {

using nlohmann::json;

json ToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json object = json::object();
      for (const auto& entry : node) object[entry.first.Scalar()] = ToJson(entry.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      json array = json::array();
      for (const auto& item : node) array.push_back(ToJson(item));
      return array;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags a quoted or block scalar "!", a plain one "?": only plain ones are typed.
      if (node.Tag() != "?") return node.Scalar();
      try {
        return ResolvePlainScalar(node.Scalar());
      } catch (const NumberOutOfRange&) {
        return node.Scalar();
      }
    default:
      return nullptr;
  }
}

}  // namespace

std::optional<json> RenderedDocumentJson(const std::string& text, std::string* error) {
  try {
    return ToJson(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    if (error != nullptr) {
      *error = e.msg + " (line " + std::to_string(e.mark.line + 1) + ")";
    }
    return std::nullopt;
  }
}

}  // namespace hkim
