// Build step: lays the release catalog (catalog/releases.json, model/operator_versions.h) out
// for the reader, so that a render parses only the releases it asks for (parsing the whole
// catalog was over 40% of a small render's instructions). The output is one line of index, then
// every part as compact JSON of its own:
//   {"gpu_operator": [[version, offset, length], ...], "network_operator": [...],
//    "nccl": [offset, length], "nccl_names": [offset, length], "other": [offset, length]}
// offsets counted from the byte after the index's newline; "nccl_names" is the sorted union of
// every NCCL release's names; "other" holds known_bad, openshift_operators,
// gpu_operator_support and the (few, small) Kueue and Volcano releases. The file is rewritten only when its text changes.
//   catalog_sections RELEASES.json OUTPUT
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace {

using nlohmann::json;

/// Appends `part` to `data` and returns where it lies.
json Place(std::string& data, const json& part) {
  const std::string text = part.dump();
  json span = json::array({data.size(), text.size()});
  data += text;
  return span;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: catalog_sections RELEASES.json OUTPUT\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  json catalog;
  try {
    catalog = json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": the release catalog is not JSON: " << e.what() << "\n";
    return 1;
  }
  if (!catalog.is_object()) {
    std::cerr << argv[1] << ": the release catalog is not a JSON object\n";
    return 1;
  }
  std::string data;
  json index = json::object();
  for (const char* list : {"gpu_operator", "network_operator"}) {
    json entries = json::array();
    for (const json& release : catalog.value(list, json::array())) {
      json entry = Place(data, release);
      entry.insert(entry.begin(), release.value("version", ""));
      entries.push_back(std::move(entry));
    }
    index[list] = std::move(entries);
  }
  const json nccl = catalog.value("nccl", json::array());
  std::set<std::string> names;
  for (const json& release : nccl) {
    for (const json& name : release.value("names", json::array())) {
      if (name.is_string()) names.insert(name.get<std::string>());
    }
  }
  index["nccl"] = Place(data, nccl);
  index["nccl_names"] = Place(data, json(names));
  json other = json::object();
  for (const char* key :
       {"known_bad", "openshift_operators", "gpu_operator_support", "kueue", "volcano"}) {
    if (catalog.contains(key)) other[key] = catalog[key];
  }
  index["other"] = Place(data, other);

  const std::string text = index.dump() + "\n" + data;
  std::ifstream old(argv[2], std::ios::binary);
  if (old && std::string(std::istreambuf_iterator<char>(old), {}) == text) return 0;
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << text;
  return out.flush() ? 0 : 1;
}
