#include "write/bundle_diff.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/input_file.h"
#include "write/diff_text.h"

namespace hkim {
namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// kind and metadata.name of a one-document YAML file; empty strings when it does not parse.
std::pair<std::string, std::string> ObjectIdentity(const std::string& content) {
  try {
    YAML::Node doc = YAML::Load(content);
    if (!doc.IsMap()) return {};
    std::string kind = doc["kind"] && doc["kind"].IsScalar() ? doc["kind"].as<std::string>() : "";
    std::string name;
    if (doc["metadata"] && doc["metadata"].IsMap() && doc["metadata"]["name"] &&
        doc["metadata"]["name"].IsScalar()) {
      name = doc["metadata"]["name"].as<std::string>();
    }
    return {kind, name};
  } catch (const YAML::Exception&) {
    return {};
  }
}

struct Hunk {
  size_t old_start, old_count, new_start, new_count;
  std::vector<std::string> lines;
};

}  // namespace

std::string DisruptionOf(const std::string& kind) {
  if (kind == "MachineConfig") {
    return "the Machine Config Operator drains and reboots every node of the pool, one at a time";
  }
  if (kind == "MachineConfigPool") {
    return "changing a pool's selectors moves nodes between pools, which drains and reboots them";
  }
  if (kind == "SriovNetworkNodePolicy") {
    return "the SR-IOV Network Operator drains each selected node to reconfigure its VFs";
  }
  if (kind == "SriovNetworkPoolConfig") {
    return "the SR-IOV Network Operator drains and reboots each selected node to change its RDMA "
           "netns mode";
  }
  if (kind == "NicClusterPolicy") {
    return "the Network Operator redeploys its driver and device-plugin pods on every node "
           "(a driver change drains nodes)";
  }
  if (kind == "NicConfigurationTemplate") {
    return "NIC firmware configuration is applied through the Maintenance Operator, which drains "
           "and reboots nodes";
  }
  return "";
}

bool BundleDiff::HasDisruptiveChanges() const {
  return std::any_of(changes.begin(), changes.end(),
                     [](const BundleChange& c) { return c.disruptive; });
}

std::string UnifiedDiff(const std::string& old_text, const std::string& new_text,
                        const std::string& old_label, const std::string& new_label) {
  if (old_text == new_text) return "";
  const std::vector<std::string> a = SplitLines(old_text);
  const std::vector<std::string> b = SplitLines(new_text);
  // Longest common subsequence by dynamic programming: bundle files are one object each (tens
  // to a few hundred lines), so the quadratic table stays small.
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  // Edit script: ' ' keep, '-' delete, '+' insert, with the line index in a or b.
  struct Edit {
    char op;
    size_t ai, bi;
  };
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({' ', i++, j++});
    } else if (j < m && (i == n || lcs[i][j + 1] > lcs[i + 1][j])) {
      edits.push_back({'+', i, j++});
    } else {
      edits.push_back({'-', i++, j});
    }
  }
  constexpr size_t kContext = 3;
  std::ostringstream out;
  out << "--- " << old_label << "\n+++ " << new_label << "\n";
  size_t k = 0;
  while (k < edits.size()) {
    while (k < edits.size() && edits[k].op == ' ') ++k;
    if (k == edits.size()) break;
    size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;
    // Extend the hunk while the next change is within 2 × context lines.
    while (end < edits.size()) {
      if (edits[end].op != ' ') {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < edits.size() && edits[run].op == ' ') ++run;
      if (run == edits.size() || run - end > 2 * kContext) {
        end = std::min(edits.size(), end + kContext);
        break;
      }
      end = run;
    }
    size_t old_start = edits[start].ai, new_start = edits[start].bi;
    size_t old_count = 0, new_count = 0;
    std::ostringstream body;
    for (size_t e = start; e < end; ++e) {
      const Edit& edit = edits[e];
      if (edit.op != '+') ++old_count;
      if (edit.op != '-') ++new_count;
      body << edit.op << (edit.op == '+' ? b[edit.bi] : a[edit.ai]) << "\n";
    }
    // diff -u numbers an empty range by the line before it.
    out << "@@ -" << (old_count ? old_start + 1 : old_start) << "," << old_count << " +"
        << (new_count ? new_start + 1 : new_start) << "," << new_count << " @@\n"
        << body.str();
    k = end;
  }
  return out.str();
}

BundleDiff DiffBundle(const RenderedBundle& wanted,
                      const std::map<std::string, std::string>& existing) {
  BundleDiff diff;
  std::map<std::string, const RenderedFile*> wanted_by_name;
  for (const RenderedFile& file : wanted.files) wanted_by_name[file.file_name] = &file;

  auto describe = [](BundleChange& change, const std::string& content) {
    auto [kind, name] = ObjectIdentity(content);
    change.object_kind = kind;
    change.object_name = name;
    change.disruption = DisruptionOf(kind);
    change.disruptive = !change.disruption.empty();
  };
  for (const auto& [name, file] : wanted_by_name) {
    auto it = existing.find(name);
    if (it == existing.end()) {
      BundleChange change;
      change.kind = BundleChange::Kind::kAdded;
      change.file_name = name;
      describe(change, file->content);
      diff.changes.push_back(std::move(change));
    } else if (it->second != FileText(*file)) {  // what WriteBundleDir wrote (with # Source:)
      BundleChange change;
      change.kind = BundleChange::Kind::kChanged;
      change.file_name = name;
      describe(change, file->content);
      if (!change.disruptive) {
        // A kind change (rare) is disruptive if either side is.
        auto [old_kind, old_name] = ObjectIdentity(it->second);
        change.disruption = DisruptionOf(old_kind);
        change.disruptive = !change.disruption.empty();
      }
      change.unified_diff = UnifiedDiff(ExpandQuotedMultilineValues(it->second),
                                        ExpandQuotedMultilineValues(FileText(*file)), "a/" + name,
                                        "b/" + name);
      diff.changes.push_back(std::move(change));
    }
  }
  for (const auto& [name, content] : existing) {
    if (wanted_by_name.count(name)) continue;
    BundleChange change;
    change.kind = BundleChange::Kind::kRemoved;
    change.file_name = name;
    describe(change, content);
    diff.changes.push_back(std::move(change));
  }
  std::sort(diff.changes.begin(), diff.changes.end(),
            [](const BundleChange& l, const BundleChange& r) { return l.file_name < r.file_name; });
  return diff;
}

std::optional<std::map<std::string, std::string>> ReadBundleDirectory(const std::string& dir,
                                                                      DiagnosticSink& sink) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return files;
  if (!std::filesystem::is_directory(dir, ec)) {
    Diagnostic d;
    d.location.file = dir;
    d.rule = "io.read";
    d.message = "'" + dir + "' is not a directory";
    d.fix = "give the bundle directory that `hkimgen render PROFILE -d DIR` wrote";
    sink.Report(std::move(d));
    return std::nullopt;
  }
  bool ok = true;
  // No throwing iteration: another render may swap the folder away while it is read (renders
  // lock only their write), and a vanished entry is then skipped, never an internal error.
  namespace fs = std::filesystem;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().lexically_relative(dir).generic_string();
    const std::string ext = entry.path().extension().string();
    std::error_code type_error;
    if (!entry.is_regular_file(type_error) || name.empty() || name[0] == '.' ||
        (ext != ".yaml" && ext != ".yml" && ext != ".md")) {  // .md: the bundle README
      continue;
    }
    std::string reason;
    std::optional<std::string> text = ReadInputText(entry.path().string(), &reason);
    if (!text) {
      Diagnostic d;
      d.location.file = entry.path().string();
      d.rule = "io.read";
      d.message = "cannot read '" + entry.path().string() + "': " + reason;
      d.fix = "check the file's permissions";
      sink.Report(std::move(d));
      ok = false;
      continue;
    }
    files[name] = *text;
  }
  if (ec) {
    Diagnostic d;
    d.location.file = dir;
    d.rule = "io.read";
    d.message = "cannot list '" + dir + "': " + ec.message();
    d.fix = "check the directory's permissions";
    sink.Report(std::move(d));
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return files;
}

namespace {

const char* ChangeWord(BundleChange::Kind kind) {
  switch (kind) {
    case BundleChange::Kind::kAdded:
      return "added";
    case BundleChange::Kind::kChanged:
      return "changed";
    case BundleChange::Kind::kRemoved:
      return "removed";
  }
  return "changed";
}

const char* ChangeMark(BundleChange::Kind kind) {
  switch (kind) {
    case BundleChange::Kind::kAdded:
      return "+";
    case BundleChange::Kind::kChanged:
      return "~";
    case BundleChange::Kind::kRemoved:
      return "-";
  }
  return "~";
}

struct Counts {
  int added = 0, changed = 0, removed = 0, disruptive = 0;
};

Counts Count(const BundleDiff& diff) {
  Counts c;
  for (const BundleChange& change : diff.changes) {
    if (change.kind == BundleChange::Kind::kAdded) ++c.added;
    if (change.kind == BundleChange::Kind::kChanged) ++c.changed;
    if (change.kind == BundleChange::Kind::kRemoved) ++c.removed;
    if (change.disruptive) ++c.disruptive;
  }
  return c;
}

}  // namespace

std::string FormatBundleDiff(const BundleDiff& diff, const std::string& dir) {
  std::ostringstream out;
  if (!diff.HasChanges()) {
    out << dir << ": no changes\n";
    return out.str();
  }
  for (const BundleChange& change : diff.changes) {
    out << ChangeMark(change.kind) << " " << ChangeWord(change.kind) << " " << change.file_name;
    if (!change.object_kind.empty()) {
      out << " (" << change.object_kind;
      if (!change.object_name.empty()) out << " " << change.object_name;
      out << ")";
    }
    if (change.disruptive) out << " [disruptive: " << change.disruption << "]";
    out << "\n";
  }
  for (const BundleChange& change : diff.changes) {
    if (!change.unified_diff.empty()) out << "\n" << change.unified_diff;
  }
  Counts c = Count(diff);
  out << "\n"
      << dir << ": " << c.added << " to add, " << c.changed << " to change, " << c.removed
      << " to remove";
  if (c.disruptive > 0) {
    out << "; " << c.disruptive << " disruptive (nodes will drain or reboot)";
  }
  out << "\n";
  return out.str();
}

nlohmann::json BundleDiffToJson(const BundleDiff& diff, const std::string& dir) {
  nlohmann::json changes = nlohmann::json::array();
  for (const BundleChange& change : diff.changes) {
    changes.push_back({{"change", ChangeWord(change.kind)},
                       {"file", change.file_name},
                       {"kind", change.object_kind},
                       {"name", change.object_name},
                       {"disruptive", change.disruptive},
                       {"disruption", change.disruption},
                       {"diff", change.unified_diff}});
  }
  Counts c = Count(diff);
  return {{"directory", dir},
          {"changes", changes},
          {"summary",
           {{"added", c.added},
            {"changed", c.changed},
            {"removed", c.removed},
            {"disruptive", c.disruptive}}}};
}

}  // namespace hkim
