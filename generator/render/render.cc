#include "render/render.h"

#include <yaml-cpp/yaml.h>

#include <kainjow/mustache.hpp>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_map>

#include "support/embedded_files.h"
#include "support/parallel.h"
#include "render/template_text.h"
#include "load/yaml_scalar.h"
#include "plan/embedded_documents.h"
#include "render/rendered_json.h"

namespace hkim {

namespace mustache = kainjow::mustache;

namespace {

// Values reach the escape function as strings; a one-byte prefix says what they were in JSON, so
// that `{{x}}` quotes strings but writes numbers and booleans as YAML numbers and booleans. The
// prefixes never reach the output: escaped strings turn control bytes into escapes, and the
// rendered text is stripped of them (for `{{{x}}}`).
constexpr char kRawScalar = '\x01';
constexpr char kString = '\x02';

std::string Escape(const std::string& value) {
  if (!value.empty() && value.front() == kRawScalar) return value.substr(1);
  if (!value.empty() && value.front() == kString) {
    return YamlQuoteString(std::string_view(value).substr(1));  // no copy of the value first
  }
  return YamlQuoteString(value);
}

std::string StripMarkers(std::string text) {
  text.erase(std::remove_if(text.begin(), text.end(),
                            [](char c) { return c == kRawScalar || c == kString; }),
             text.end());
  std::replace(text.begin(), text.end(), kHiddenSpace, ' ');
  return text;
}

}  // namespace

class TemplateSet::Parsed {
 public:
  Parsed(std::string name, std::string marked_text)
      : name_(std::move(name)),
        text_(std::move(marked_text)),
        template_(MarkLiteralSpaces(text_)),
        shared_(!HasPartialTag(text_)) {
    template_.set_custom_escape(Escape);
    if (!template_.is_valid()) error_ = template_.error_message();
  }
  /// A template that cannot be parsed (error_line: where, 0 when unknown).
  Parsed(std::string name, std::string error, int error_line)
      : name_(std::move(name)),
        template_(""),
        shared_(false),
        error_(std::move(error)),
        error_line_(error_line) {}
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  bool valid() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  int error_line() const { return error_line_; }
  /// The template itself, for any number of threads at once, when rendering it cannot change
  /// it: kainjow's render is not const only because partial and lambda tags record their errors
  /// in the template, and this one has neither (partials are expanded; contexts hold no
  /// lambdas). nullptr when it keeps a partial tag (missing or nested too deep): use Copy().
  mustache::mustache* Shared() const { return shared_ ? &template_ : nullptr; }
  /// A fresh copy to render with (kainjow keeps error state inside the template object).
  mustache::mustache Copy() const { return template_; }

 private:
  std::string name_;
  std::string text_;
  mutable mustache::mustache template_;  // see Shared()
  bool shared_;
  std::string error_;
  int error_line_ = 0;
};

/// A template's source, parsed the first time a render asks for it: a render uses a few of
/// the embedded templates, and parsing all of them would be a large share of a small render.
struct TemplateSet::Entry {
  explicit Entry(std::string text) : source(std::move(text)) {}
  std::string source;
  mutable std::once_flag once;
  mutable std::unique_ptr<Parsed> parsed;
};

const TemplateSet::Parsed* TemplateSet::Parse(const std::string& name, const Entry& entry) const {
  std::call_once(entry.once, [&] {
    const std::string& text = entry.source;
    if (size_t at = text.find("{{="); at != std::string::npos) {
      const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
      entry.parsed = std::make_unique<Parsed>(name, "set-delimiter tags are not supported", line);
      return;
    }
    auto source = [this](const std::string& partial) -> const std::string* {
      auto it = templates_.find(partial);
      return it == templates_.end() ? nullptr : &it->second->source;
    };
    entry.parsed = std::make_unique<Parsed>(name, ExpandPartials(MarkSections(text), source));
  });
  return entry.parsed.get();
}

namespace {

/// Mustache lookups that fail loudly: a missing key is recorded (and rendered as nothing, which
/// the caller then turns into an error). Names are looked up in the object's JSON context itself:
/// only the values a template uses become kainjow data (converting every context whole was a
/// sixth of a large render).
class StrictContext : public mustache::basic_context<std::string> {
 public:
  StrictContext(const nlohmann::json& root, const TemplateSet& templates) : templates_(templates) {
    stack_.push_back(&root);
  }

  /// kainjow pushes what a section's get() returned (or an item of its list): the JSON value
  /// that stands behind it becomes the innermost scope.
  void push(const mustache::data* data) override {
    auto it = stand_ins_.find(data);
    stack_.push_back(it != stand_ins_.end() ? it->second : &kJsonFalse);
  }
  void pop() override { stack_.pop_back(); }

  const mustache::data* get(const std::string& tag) const override {
    const bool section = !tag.empty() && tag.front() == '?';
    const std::string name = section ? tag.substr(1) : tag;
    const nlohmann::json* found = Lookup(name);
    if (!found) {
      Problem("missing key '" + name + "'");
      return nullptr;
    }
    if (section) return Section(*found);
    // `{{x}}` prints null, true and false as YAML does; strings are quoted by Escape.
    if (found->is_null()) return &kNull;
    if (found->is_boolean()) return found->get<bool>() ? &kTrue : &kFalse;
    if (found->is_object() || found->is_array()) {
      Problem("'" + name + "' is a " + (found->is_array() ? "list" : "mapping") +
              ", not a scalar; use a section ({{#" + name + "}}) or a scalar key");
      return nullptr;
    }
    if (found->is_string()) {
      const std::string& text = found->get_ref<const std::string&>();
      std::string marked;
      marked.reserve(text.size() + 1);
      marked += kString;
      marked += text;
      return &made_.emplace_back(std::move(marked));
    }
    return &made_.emplace_back(std::string(1, kRawScalar) + found->dump());
  }

  const mustache::data* get_partial(const std::string& name) const override {
    const TemplateSet::Parsed* parsed = templates_.Find(name + ".mustache");
    // Partials are expanded at parse time; one met here is missing or includes itself.
    if (parsed && partials_.size() >= kMaxPartialDepth) {
      Problem("partial '" + name + "' includes itself (deeper than " +
              std::to_string(kMaxPartialDepth) + " levels)");
      return nullptr;
    }
    if (!parsed) {
      Problem("missing partial '" + name + "' (templates/" + name + ".mustache)");
      return nullptr;
    }
    partials_.push_back(std::make_unique<mustache::data>(parsed->text()));
    return partials_.back().get();
  }

  const std::vector<std::string>& problems() const { return problems_; }

 private:
  /// What a section tag gets: false (skipped) for false and null; for a list, a kainjow list
  /// with one stand-in per item; else one stand-in (rendered once). push() maps stand-ins back.
  const mustache::data* Section(const nlohmann::json& value) const {
    if (value.is_null() || (value.is_boolean() && !value.get<bool>())) return &kFalseSection;
    if (value.is_array()) {
      mustache::data& list = made_.emplace_back(mustache::data::type::list);
      // list_value() is the list data owns (allocated, never const), so adding to it is sound.
      auto& items = const_cast<mustache::list&>(list.list_value());
      items.reserve(value.size());
      for (size_t i = 0; i < value.size(); ++i) items.emplace_back(true);
      for (size_t i = 0; i < items.size(); ++i) stand_ins_[&items[i]] = &value[i];
      return &list;
    }
    mustache::data& stand_in = made_.emplace_back(true);
    stand_ins_[&stand_in] = &value;
    return &stand_in;
  }

  const nlohmann::json* Lookup(const std::string& name) const {
    if (name == ".") return stack_.back();
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = name.find('.', start);
      parts.push_back(name.substr(start, dot == std::string::npos ? dot : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    // The first part is looked up through the section stack, innermost first (mustache's rule);
    // the rest inside what it found.
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      const nlohmann::json* var = Member(**it, parts[0]);
      if (!var) continue;
      for (size_t i = 1; i < parts.size() && var; ++i) var = Member(*var, parts[i]);
      return var;
    }
    return nullptr;
  }

  static const nlohmann::json* Member(const nlohmann::json& scope, const std::string& key) {
    if (!scope.is_object()) return nullptr;
    auto found = scope.find(key);
    return found == scope.end() ? nullptr : &*found;
  }

  void Problem(std::string message) const {
    if (std::find(problems_.begin(), problems_.end(), message) == problems_.end()) {
      problems_.push_back(std::move(message));
    }
  }

  static const mustache::data kTrue;
  static const mustache::data kFalse;
  static const mustache::data kNull;
  static const mustache::data kFalseSection;
  static const nlohmann::json kJsonFalse;  // the scope kFalseSection stands for
  const TemplateSet& templates_;
  std::vector<const nlohmann::json*> stack_;
  mutable std::deque<mustache::data> made_;  // what get() returned (kainjow keeps pointers)
  mutable std::unordered_map<const mustache::data*, const nlohmann::json*> stand_ins_;
  mutable std::vector<std::string> problems_;
  mutable std::vector<std::unique_ptr<mustache::data>> partials_;
};

const mustache::data StrictContext::kTrue{std::string(1, kRawScalar) + "true"};
const mustache::data StrictContext::kFalse{std::string(1, kRawScalar) + "false"};
const mustache::data StrictContext::kNull{std::string(1, kRawScalar) + "null"};
const mustache::data StrictContext::kFalseSection{false};
const nlohmann::json StrictContext::kJsonFalse = false;

Diagnostic TemplateError(const std::string& template_name, int line, const std::string& rule,
                         const std::string& message, const std::string& fix) {
  return Diagnostic{Severity::kError,
                    SourceLocation{"templates/" + template_name, line, 0},
                    "",
                    rule,
                    message,
                    fix};
}

/// The rendered text must read back as exactly one YAML mapping (RenderCheck::kReparse).
bool ReparsesAsOneMapping(const PlannedObject& object, const std::string& text,
                          DiagnosticSink& sink) {
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() != 1 || !documents[0].IsMap()) {
      sink.Report(TemplateError(object.template_name, 0, "render.invalid-yaml",
                                object.file_name + " is not exactly one YAML mapping (" +
                                    std::to_string(documents.size()) + " documents)",
                                "fix the template so it renders one object"));
      return false;
    }
  } catch (const YAML::Exception& e) {
    sink.Report(TemplateError(object.template_name, 0, "render.invalid-yaml",
                              object.file_name + " is not valid YAML: line " +
                                  std::to_string(e.mark.line + 1) + ", column " +
                                  std::to_string(e.mark.column + 1) + " of the output: " + e.msg,
                              "fix the template (put {{x}} only where a whole YAML value goes)"));
    return false;
  }
  return true;
}

/// One working copy per bundle of each template that cannot be Shared() (kainjow keeps error
/// state inside a template; copying it for every object cost more than rendering).
using Instances = std::map<const TemplateSet::Parsed*, mustache::mustache>;

// `template_name` rendered with `context` (errors name `file_name`); nullopt after an error.
std::optional<std::string> RenderText(const std::string& template_name, const nlohmann::json& context,
                                      const std::string& file_name, const TemplateSet& templates,
                                      DiagnosticSink& sink, Instances& instances) {
  const TemplateSet::Parsed* parsed = templates.Find(template_name);
  if (!parsed) {
    sink.Report(TemplateError(template_name, 0, "template.missing",
                              "no template named '" + template_name + "'",
                              "add templates/" + template_name + " or fix the plan"));
    return std::nullopt;
  }
  if (!parsed->valid()) {
    sink.Report(TemplateError(template_name, parsed->error_line(), "template.syntax",
                              parsed->error(),
                              parsed->error_line() ? "keep the default {{ }} delimiters"
                                                   : "fix the template"));
    return std::nullopt;
  }
  StrictContext strict(context, templates);
  auto cached = instances.end();
  mustache::mustache* instance = parsed->Shared();
  if (!instance) {
    cached = instances.find(parsed);
    if (cached == instances.end()) cached = instances.emplace(parsed, parsed->Copy()).first;
    instance = &cached->second;
  }
  std::string text = StripMarkers(instance->render(strict));
  bool ok = true;
  for (const std::string& problem : strict.problems()) {
    sink.Report(TemplateError(template_name, 0, "template.missing-key",
                              problem + " while rendering " + file_name,
                              "add the key to the plan's context for this template"));
    ok = false;
  }
  if (!instance->is_valid()) {
    sink.Report(TemplateError(template_name, 0, "template.render", instance->error_message(),
                              "fix the template"));
    if (cached != instances.end()) instances.erase(cached);  // the next object gets a fresh copy
    ok = false;
  }
  if (!ok) return std::nullopt;
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

// An object whose context holds kEmbeddedDocuments ([{key, template, context}]) carries other
// rendered documents as values: each is rendered first, read back as JSON and put, as compact
// JSON text, under its `key` (the periodic check's ConfigMap holds its check pod this way, so
// that the pod is the shared pod-spec partial's and the coordinator reads it without YAML).
std::optional<nlohmann::json> WithEmbeddedDocuments(const PlannedObject& object,
                                                    const TemplateSet& templates,
                                                    DiagnosticSink& sink, Instances& instances) {
  nlohmann::json context = object.context;
  for (const nlohmann::json& embedded : object.context[kEmbeddedDocuments]) {
    const std::string inner = embedded.at("template").get<std::string>();
    const std::optional<std::string> text =
        RenderText(inner, embedded.at("context"), object.file_name, templates, sink, instances);
    if (!text) return std::nullopt;
    std::string error;
    const std::optional<nlohmann::json> document = RenderedDocumentJson(*text, &error);
    if (!document || !document->is_object()) {
      sink.Report(TemplateError(inner, 0, "render.invalid-yaml",
                                "the document embedded in " + object.file_name +
                                    " is not one YAML mapping: " + error,
                                "fix the template so it renders one object"));
      return std::nullopt;
    }
    context[embedded.at("key").get<std::string>()] = document->dump();
  }
  context.erase(kEmbeddedDocuments);
  return context;
}

std::optional<RenderedFile> RenderOne(const PlannedObject& object, const TemplateSet& templates,
                                      DiagnosticSink& sink, RenderCheck check,
                                      Instances& instances) {
  std::optional<std::string> text;
  if (object.context.is_object() && object.context.contains(kEmbeddedDocuments)) {
    const std::optional<nlohmann::json> context =
        WithEmbeddedDocuments(object, templates, sink, instances);
    if (!context) return std::nullopt;
    text = RenderText(object.template_name, *context, object.file_name, templates, sink, instances);
  } else {
    text = RenderText(object.template_name, object.context, object.file_name, templates, sink,
                      instances);
  }
  if (!text) return std::nullopt;
  if (check == RenderCheck::kReparse && !IsMarkdown(object.file_name) &&
      !ReparsesAsOneMapping(object, *text, sink)) {
    return std::nullopt;
  }
  return RenderedFile{object.file_name, object.template_name, std::move(*text)};
}

}  // namespace

TemplateSet::TemplateSet() = default;
TemplateSet::TemplateSet(TemplateSet&&) noexcept = default;
TemplateSet& TemplateSet::operator=(TemplateSet&&) noexcept = default;
TemplateSet::~TemplateSet() = default;

std::vector<std::string> TemplateSet::names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : templates_) names.push_back(name);
  return names;
}

const TemplateSet::Parsed* TemplateSet::Find(std::string_view name) const {
  auto it = templates_.find(name);
  return it == templates_.end() ? nullptr : Parse(it->first, *it->second);
}

TemplateSet TemplateSet::FromSources(const std::map<std::string, std::string>& sources) {
  TemplateSet set;
  for (const auto& [name, text] : sources) set.templates_.emplace(name, std::make_unique<Entry>(text));
  return set;
}

std::optional<TemplateSet> ParseTemplates(const std::map<std::string, std::string>& sources,
                                          DiagnosticSink& sink) {
  TemplateSet set = TemplateSet::FromSources(sources);
  bool ok = true;
  for (const auto& [name, text] : sources) {  // std::map: sorted by name
    const TemplateSet::Parsed* parsed = set.Find(name);
    if (!parsed->valid()) {
      sink.Report(TemplateError(name, parsed->error_line(), "template.syntax", parsed->error(),
                                parsed->error_line() ? "keep the default {{ }} delimiters"
                                                     : "fix the template"));
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return set;
}

namespace {

// A relative path inside the bundle directory: non-empty segments, none "." or "..".
bool IsBundleFileName(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  size_t start = 0;
  while (start <= name.size()) {
    const size_t slash = name.find('/', start);
    const std::string segment = name.substr(start, slash == std::string::npos ? slash : slash - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

}  // namespace

std::optional<TemplateSet> ParseEmbeddedTemplates(DiagnosticSink& sink) {
  (void)sink;  // parsed on first use; tests parse every embedded template (render_test.cc)
  return TemplateSet::FromSources(EmbeddedTemplates());
}

namespace {

/// Renders each non-null `objects[i]` into files[i], its diagnostics into reports[i], on `jobs`
/// threads; instances[w] are thread w's working copies of the templates (kainjow keeps state in
/// them), kept by the caller between calls. When `contexts` is given, contexts[i] (objects[i]'s
/// template context) is dropped once rendered by the calling thread, which allocated it (the
/// others' are the caller's to drop): the bundle's last files (layer kustomizations, README)
/// list every object, and their contexts need not outlive their render (peak memory).
void RenderEach(const std::vector<const PlannedObject*>& objects, const TemplateSet& templates,
                RenderCheck check, unsigned jobs, std::vector<Instances>& instances,
                const FileRendered& on_rendered,
                std::vector<std::optional<RenderedFile>>& files,
                std::vector<DiagnosticSink>& reports,
                const std::vector<nlohmann::json*>* contexts = nullptr) {
  files.resize(objects.size());
  reports.resize(objects.size());
  jobs = ThreadsForSmallTasks(objects.size(), jobs);
  instances.resize(std::max<size_t>(instances.size(), ParallelWorkers(objects.size(), jobs)));
  ParallelFor(objects.size(), jobs, [&](size_t i, unsigned worker) {
    if (!objects[i]) return;
    files[i] = RenderOne(*objects[i], templates, reports[i], check, instances[worker]);
    if (contexts && worker == 0 && i < contexts->size()) *(*contexts)[i] = nullptr;
    if (on_rendered && files[i]) on_rendered(*files[i]);
  });
}

/// Renders `order` into one bundle on `jobs` threads (each object on its own; diagnostics and
/// files are collected per object and then taken in order, so the result does not depend on
/// `jobs`). When `contexts` is not empty, contexts[i] (object i's template context) is dropped
/// as soon as object i is rendered.
std::optional<RenderedBundle> RenderInOrder(const std::string& bundle_name,
                                            const std::vector<const PlannedObject*>& order,
                                            const std::vector<nlohmann::json*>& contexts,
                                            const TemplateSet& templates, DiagnosticSink& sink,
                                            RenderCheck check, unsigned jobs,
                                            const FileRendered& on_rendered = {},
                                            RenderAhead* ahead = nullptr) {
  bool ok = true;
  std::set<std::string_view> file_names;  // views of the plan's names (peak memory)
  std::vector<bool> named(order.size(), false);
  for (size_t i = 0; i < order.size(); ++i) {
    const PlannedObject* object = order[i];
    if (!file_names.insert(object->file_name).second || !IsBundleFileName(object->file_name)) {
      sink.Report(TemplateError(
          object->template_name, 0, "render.file-name",
          "file name '" + object->file_name +
              "' is empty, leaves the bundle directory or is used twice in the bundle",
          "give every planned object its own relative file name (name or layer/name)"));
      ok = false;
      continue;
    }
    named[i] = true;
  }
  std::vector<std::optional<RenderedFile>> files(order.size());
  std::vector<DiagnosticSink> reports(order.size());
  std::vector<const PlannedObject*> to_render(order.size(), nullptr);
  for (size_t i = 0; i < order.size(); ++i) {
    if (named[i]) to_render[i] = order[i];
  }
  if (ahead) {  // rendered while the plan was built
    for (const Diagnostic& d : ahead->reports.diagnostics()) sink.Report(d);
    if (ahead->reports.HasErrors()) ok = false;
    for (size_t i = 0; i < order.size(); ++i) {
      auto it = named[i] ? ahead->files.find(order[i]->file_name) : ahead->files.end();
      if (it == ahead->files.end()) continue;
      files[i] = std::move(it->second);
      ahead->files.erase(it);
      to_render[i] = nullptr;
    }
  }
  std::vector<Instances> instances;
  RenderEach(to_render, templates, check, jobs, instances, on_rendered, files, reports,
             contexts.empty() ? nullptr : &contexts);
  // Released by this thread, which allocated them (see RenderAhead::Render).
  for (nlohmann::json* context : contexts) *context = nullptr;
  RenderedBundle bundle;
  bundle.bundle_name = bundle_name;
  bundle.files.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Diagnostic& d : reports[i].diagnostics()) sink.Report(d);
    if (!named[i]) continue;
    if (!files[i]) {
      ok = false;
      continue;
    }
    bundle.files.push_back(std::move(*files[i]));
  }
  if (!ok) return std::nullopt;
  return bundle;
}

std::vector<const PlannedObject*> RenderOrder(const BundlePlan& plan) {
  std::vector<const PlannedObject*> order;
  for (const PlannedObject& object : plan.objects) order.push_back(&object);
  order.push_back(&plan.kustomization);
  order.push_back(&plan.application);
  for (const PlannedObject& file : plan.layer_files) order.push_back(&file);
  for (const PlannedObject& file : plan.bootstrap) order.push_back(&file);
  if (!plan.readme.file_name.empty()) order.push_back(&plan.readme);
  return order;
}

}  // namespace

std::optional<RenderedBundle> RenderBundle(const BundlePlan& plan, const TemplateSet& templates,
                                           DiagnosticSink& sink, RenderCheck check) {
  std::optional<RenderedBundle> bundle =
      RenderInOrder(plan.bundle_name, RenderOrder(plan), {}, templates, sink, check, 1);
  if (bundle) bundle->preconditions = plan.preconditions;
  return bundle;
}

struct RenderAhead::Workers {
  std::vector<Instances> instances;
};

RenderAhead::RenderAhead(const TemplateSet& templates, RenderCheck check, unsigned jobs,
                         FileRendered on_rendered)
    : templates_(templates),
      check_(check),
      jobs_(jobs),
      on_rendered_(std::move(on_rendered)),
      workers_(std::make_unique<Workers>()) {}

RenderAhead::~RenderAhead() = default;

void RenderAhead::Render(BundlePlan& plan) {
  std::vector<PlannedObject>& objects = plan.objects;
  if (next_ > objects.size() || objects.size() - next_ < kBatch) return;
  std::vector<const PlannedObject*> batch;
  for (size_t i = next_; i < objects.size(); ++i) batch.push_back(&objects[i]);
  std::vector<std::optional<RenderedFile>> rendered;
  std::vector<DiagnosticSink> batch_reports;
  RenderEach(batch, templates_, check_, jobs_, workers_->instances, on_rendered_, rendered,
             batch_reports);
  // Released here, by the thread that allocated them: glibc frees another thread's memory
  // under that arena's lock, which made the rendering threads wait on the planning one.
  for (size_t i = next_; i < objects.size(); ++i) objects[i].context = nullptr;
  for (size_t i = 0; i < rendered.size(); ++i) {
    for (const Diagnostic& d : batch_reports[i].diagnostics()) reports.Report(d);
    if (rendered[i]) files.insert_or_assign(rendered[i]->file_name, std::move(*rendered[i]));
  }
  next_ = objects.size();
}

std::vector<std::string> TemplateNamesInRenderOrder(const BundlePlan& plan) {
  std::vector<std::string> names;
  std::set<std::string_view> seen;
  for (const PlannedObject* object : RenderOrder(plan)) {
    if (seen.insert(object->template_name).second) names.push_back(object->template_name);
    if (!object->context.is_object() || !object->context.contains(kEmbeddedDocuments)) continue;
    for (const nlohmann::json& embedded : object->context[kEmbeddedDocuments]) {
      const std::string& inner = embedded.at("template").get_ref<const std::string&>();
      if (seen.insert(inner).second) names.push_back(inner);
    }
  }
  return names;
}

std::optional<RenderedBundle> RenderBundle(BundlePlan&& plan, const TemplateSet& templates,
                                           DiagnosticSink& sink, RenderCheck check,
                                           const FileRendered& on_rendered,
                                           unsigned jobs, RenderAhead* ahead) {
  std::vector<nlohmann::json*> contexts;
  for (PlannedObject& object : plan.objects) contexts.push_back(&object.context);
  contexts.push_back(&plan.kustomization.context);
  contexts.push_back(&plan.application.context);
  for (PlannedObject& file : plan.layer_files) contexts.push_back(&file.context);
  for (PlannedObject& file : plan.bootstrap) contexts.push_back(&file.context);
  if (!plan.readme.file_name.empty()) contexts.push_back(&plan.readme.context);
  std::optional<RenderedBundle> bundle =
      RenderInOrder(plan.bundle_name, RenderOrder(plan), contexts, templates, sink, check, jobs,
                    on_rendered, ahead);
  if (bundle) bundle->preconditions = plan.preconditions;
  return bundle;
}

}  // namespace hkim
