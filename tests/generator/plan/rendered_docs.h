#pragma once

// Shared by the plan tests that render a shipped profile through the whole pipeline and read its
// manifests back as YAML (each document keeps its file name under "__file").

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "support/diagnostics_format.h"
#include "test_files.h"

namespace hkim::plan_test {

/// profiles/<profile>.yaml changed by `set` as --set would, rendered; nothing when it fails, with
/// the formatted diagnostics in `errors` when given.
inline std::vector<YAML::Node> RenderShipped(const std::string& profile,
                                             std::vector<std::string> set = {},
                                             std::string* errors = nullptr) {
  DiagnosticSink sink;
  SourceTexts sources;
  const std::filesystem::path source = HKIM_SOURCE_DIR;
  LayerInputs inputs{(source / "profiles" / (profile + ".yaml")).string(), {}, std::move(set)};
  auto bundle = RenderProfileLayers(inputs, sink, &sources);
  if (errors) *errors = FormatDiagnostics(sink, sources);
  std::vector<YAML::Node> docs;
  if (!bundle) return docs;
  for (const RenderedFile& file : bundle->files) {
    if (!test_files::IsManifest(file.file_name)) continue;
    YAML::Node doc = YAML::Load(file.content);
    doc["__file"] = file.file_name;
    docs.push_back(doc);
  }
  return docs;
}

/// The documents of `kind`, in bundle order.
inline std::vector<YAML::Node> OfKind(const std::vector<YAML::Node>& docs, const std::string& kind) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& doc : docs)
    if (doc["kind"] && doc["kind"].as<std::string>() == kind) out.push_back(doc);
  return out;
}

/// The documents of `kind` that are the fabric-health family's (their name says fabric-health):
/// the OKE VF DaemonSet's ClusterRole and admission policy are of the same kinds.
inline std::vector<YAML::Node> HealthOfKind(const std::vector<YAML::Node>& docs,
                                            const std::string& kind) {
  std::vector<YAML::Node> out;
  for (const YAML::Node& doc : OfKind(docs, kind))
    if (doc["metadata"]["name"].as<std::string>("").find("fabric-health") != std::string::npos)
      out.push_back(doc);
  return out;
}

}  // namespace hkim::plan_test
