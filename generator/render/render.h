#pragma once

// Render stage: BundlePlan × templates → rendered YAML documents.
//
// Template rules (kainjow mustache, strict):
//  - `{{x}}` emits x as ONE YAML scalar of its JSON type: strings come out plain when that is safe
//    and reads back as the same string, otherwise double-quoted with escapes (so `: `, `#`, `{{`,
//    quotes, newlines, `yes`, `null`, "9000" all stay one string); numbers, booleans and null come
//    out as YAML numbers, true/false and null. Put `{{x}}` where a whole YAML value goes: to build
//    a composite value (a JSON CNI config, a "name-suffix"), compose it in the plan.
//  - `{{{x}}}` / `{{&x}}` insert the text raw (for pre-formatted blocks the plan built itself).
//  - A key missing from the context is an error (for `{{x}}`, `{{#x}}` and `{{^x}}` alike): give
//    optional things an explicit false, null or empty list.
//  - `{{#flag}}` on a boolean renders when true; on a list, once per item; `{{.}}` is the item.
//  - `{{>common/labels}}` includes the template `templates/common/labels.mustache`.
//  - Set-delimiter tags (`{{=<% %>=}}`) are not supported (reported as an error).

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "plan/plan.h"

namespace hkim {

/// One output file of a bundle: a single YAML document (one Kubernetes object, the kustomization or
/// the Argo CD Application).
struct RenderedFile {
  std::string file_name;      ///< name inside `-o DIR`, e.g. "20-scc-nccl-rdma.yaml"
  std::string template_name;  ///< path under templates/, e.g. "openshift/scc.yaml.mustache"
  std::string content;        ///< the document's YAML text, ending in "\n", without "---"
};

/// The whole rendered bundle, in output order: the plan's objects in their order, then
/// kustomization.yaml, then the Argo CD Applications, then bootstrap/ (OpenShift). File names are
/// unique.
struct RenderedBundle {
  std::string bundle_name;
  std::vector<RenderedFile> files;
  /// The plan's preconditions, for the marker (.hkimgen-bundle, write stage).
  std::vector<Precondition> preconditions;
};

/// Every template, each parsed once, the first time it is used (safe from several threads).
/// Construct with ParseTemplates or ParseEmbeddedTemplates.
class TemplateSet {
 public:
  class Parsed;  // kainjow template; defined in render/render.cc
  TemplateSet();
  TemplateSet(TemplateSet&&) noexcept;
  TemplateSet& operator=(TemplateSet&&) noexcept;
  ~TemplateSet();

  /// Template names (paths under templates/ such as "oke/nad.yaml.mustache"), sorted.
  std::vector<std::string> names() const;
  /// The parsed template (parsed now if it was not yet; check Parsed::valid()), or nullptr
  /// when there is none of that name. Partials are expanded into it.
  const Parsed* Find(std::string_view name) const;
  /// A set of `sources` (name → text), none parsed yet.
  static TemplateSet FromSources(const std::map<std::string, std::string>& sources);

 private:
  struct Entry;  // source text and its parse; render/render.cc
  const Parsed* Parse(const std::string& name, const Entry& entry) const;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> templates_;
};

/// Parses every template of `sources` (name → text), in sorted order, before anything is rendered.
/// Syntax errors are reported (rule "template.syntax") with the template's name; returns nullopt
/// then.
std::optional<TemplateSet> ParseTemplates(const std::map<std::string, std::string>& sources,
                                          DiagnosticSink& sink);

/// The templates embedded into the binary at build time (templates/**/*.mustache), each parsed
/// when first used (a syntax error is then reported by the render; the tests parse them all).
std::optional<TemplateSet> ParseEmbeddedTemplates(DiagnosticSink& sink);

/// How RenderBundle makes sure each document is one YAML mapping.
enum class RenderCheck {
  /// Trust the construction (normal runs): templates hold no raw `{{{x}}}` insertions, every value
  /// goes through YamlQuoteString as one scalar, so a template that renders valid YAML for one
  /// context does for every context; the tests render every template in kReparse mode.
  kByConstruction,
  /// Also parse every rendered document again with yaml-cpp (tests, `render --verify`): about as
  /// slow as the render itself on large bundles.
  kReparse,
};

/// Renders every object of `plan`, then its kustomization and Application. Reports missing
/// templates, missing keys ("template.missing-key"), and, with RenderCheck::kReparse, output that
/// is not exactly one YAML mapping ("render.invalid-yaml"); returns nullopt after any error.
std::optional<RenderedBundle> RenderBundle(const BundlePlan& plan, const TemplateSet& templates,
                                           DiagnosticSink& sink,
                                           RenderCheck check = RenderCheck::kByConstruction);

/// Called once for each file rendered, from the rendering threads (progress, the write stage's
/// WriteBehind); the file is complete then.
using FileRendered = std::function<void(const RenderedFile&)>;

/// Renders the objects of a plan that is still being built (PlanBundle's `namespace_planned`),
/// so that a large plan's template contexts are never all held at once: each batch is rendered
/// and its contexts released; RenderBundle then takes these files instead of rendering the
/// objects again. The bytes are the same as without it.
class RenderAhead {
 public:
  RenderAhead(const TemplateSet& templates, RenderCheck check, unsigned jobs,
              FileRendered on_rendered);
  ~RenderAhead();
  /// Renders plan.objects added since the last call once there are a batch of them (the rest
  /// are RenderBundle's). Objects already added must not change afterwards.
  void Render(BundlePlan& plan);

  std::map<std::string, RenderedFile> files;  ///< by file name
  DiagnosticSink reports;

 private:
  static constexpr size_t kBatch = 512;  // objects: a few namespaces, enough to spread on threads
  const TemplateSet& templates_;
  RenderCheck check_;
  unsigned jobs_;
  FileRendered on_rendered_;
  size_t next_ = 0;
  struct Workers;  // each thread's working copies of the templates, kept between batches
  std::unique_ptr<Workers> workers_;
};

/// The same for a plan that is no longer needed: each object's template context is released as
/// soon as the object is rendered, so a large plan's contexts and its rendered text are not all
/// held at once (peak memory). The plan is left with null contexts (its objects' identities stay).
/// `on_rendered` (when set) is called once per file rendered, from the rendering threads:
/// progress (support/progress.h), the files written as they come (write/write_behind.h). `jobs` threads render (the bundle is the same for any number).
/// `ahead` (when set) holds files rendered while the plan was built.
std::optional<RenderedBundle> RenderBundle(BundlePlan&& plan, const TemplateSet& templates,
                                           DiagnosticSink& sink,
                                           RenderCheck check = RenderCheck::kByConstruction,
                                           const FileRendered& on_rendered = {},
                                           unsigned jobs = 1, RenderAhead* ahead = nullptr);

/// The templates `plan` renders (names under templates/), each once, in the order RenderBundle
/// first uses them (pipeline/prepare.h parses them ahead).
std::vector<std::string> TemplateNamesInRenderOrder(const BundlePlan& plan);

/// `value` as one YAML scalar that reads back as exactly that string (plain when safe, else
/// double-quoted with escapes). Never spans lines.
std::string YamlQuoteString(std::string_view value);

/// True for the bundle's Markdown files (README.md): not YAML, not in the object stream.
bool IsMarkdown(const std::string& file_name);

/// A file's text as written: FileHeader ("# Source: templates/<template name>\n") then its
/// content.
std::string FileText(const RenderedFile& file);
std::string FileHeader(const RenderedFile& file);

/// The multi-document stream written to stdout: each document starts with "---" and
/// "# Source: templates/<template name>" (every file but kustomization.yaml, which is not a
/// Kubernetes object).
std::string BundleStream(const RenderedBundle& bundle);
/// The same stream written to `out` piece by piece (no copy of the bundle's text).
void WriteStream(const RenderedBundle& bundle, std::ostream& out);

}  // namespace hkim
