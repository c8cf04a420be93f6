// LikelyTemplates (plan/likely_templates.h): every name is a template, and every shipped
// profile's bundle renders each of them (the hint the set-up thread parses ahead stays current).
#include "plan/likely_templates.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"

namespace hkim {
namespace {

std::vector<std::string> RenderedTemplates(const std::string& profile) {
  DiagnosticSink sink;
  const std::filesystem::path source = HKIM_SOURCE_DIR;
  LayerInputs inputs{(source / "profiles" / (profile + ".yaml")).string(), {}, {}};
  std::optional<RenderedBundle> bundle = RenderProfileLayers(inputs, sink);
  std::vector<std::string> names;
  if (bundle) {
    for (const RenderedFile& file : bundle->files) names.push_back(file.template_name);
  }
  return names;
}

TEST(LikelyTemplates, EachIsATemplate) {
  DiagnosticSink sink;
  const TemplateSet* templates = SharedEmbeddedTemplates(sink);
  ASSERT_NE(templates, nullptr);
  for (const std::string& name : LikelyTemplates()) {
    EXPECT_NE(templates->Find(name), nullptr) << name;
  }
}

TEST(LikelyTemplates, EveryShippedBundleRendersEachOfThem) {
  for (const char* profile : {"barcelona-h100-cx7", "oke-h100", "oke-a100", "oke-a100-gpu4"}) {
    const std::vector<std::string> rendered = RenderedTemplates(profile);
    ASSERT_FALSE(rendered.empty()) << profile << " did not render";
    for (const std::string& name : LikelyTemplates()) {
      EXPECT_NE(std::find(rendered.begin(), rendered.end(), name), rendered.end())
          << profile << " does not render " << name;
    }
  }
}

}  // namespace
}  // namespace hkim
