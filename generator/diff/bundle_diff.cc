#include "diff/bundle_diff.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "diff/diff_text.h"
#include "diff/sync_effects.h"
#include "support/input_file.h"
#include "write/guard.h"

namespace hkim {

bool BundleDiff::HasDisruptiveChanges() const {
  return std::any_of(changes.begin(), changes.end(),
                     [](const BundleChange& c) { return c.disruptive; });
}

bool BundleDiff::HasRefusals() const {
  return std::any_of(changes.begin(), changes.end(),
                     [](const BundleChange& c) { return !c.refusal.empty(); });
}

namespace {

// The largest bundle file diff reads. Not the profile limit (1 MiB): the README of a profile with
// a thousand namespaces is a few MiB, and a file cut short would read as changed forever.
constexpr size_t kMaxBundleFileBytes = size_t{64} << 20;

void Apply(const SyncEffect& effect, BundleChange& change) {
  change.effect = effect.effect;
  change.disruptive = TouchesNodes(effect.effect);
  change.disruption = effect.what;
  change.notes.insert(change.notes.end(), effect.notes.begin(), effect.notes.end());
  change.refusal = effect.refusal;
}

void ByHand(std::vector<std::string> notes, BundleChange& change) {
  if (notes.empty()) return;
  change.by_hand = true;
  change.notes.insert(change.notes.end(), notes.begin(), notes.end());
}

BundleChange Change(BundleChange::Kind kind, const std::string& file, const DiffObject& object) {
  BundleChange change;
  change.kind = kind;
  change.file_name = file;
  change.object_kind = object.kind;
  change.object_name = object.name;
  return change;
}

/// Its identity, or none when the file is no object (README.md).
std::optional<ObjectId> Identity(const DiffObject& o) {
  if (o.kind.empty() || o.name.empty()) return std::nullopt;
  return o.id();
}

// A file's object; the bundle's README (Markdown, tens of thousands of lines in a large bundle)
// is none, without asking the YAML parser.
DiffObject ReadObject(const std::string& file, const std::string& text) {
  const bool markdown = file.size() >= 3 && file.compare(file.size() - 3, 3, ".md") == 0;
  return ParseDiffObject(markdown ? std::string_view() : std::string_view(text));
}

std::string Folder(const std::string& file) {
  const size_t slash = file.find('/');
  return slash == std::string::npos ? "" : file.substr(0, slash);
}

}  // namespace

BundleDiff DiffBundle(const RenderedBundle& wanted,
                      const std::map<std::string, std::string>& existing,
                      const std::optional<std::set<std::string>>& ours) {
  BundleDiff diff;
  std::map<std::string, const RenderedFile*> wanted_by_name;
  for (const RenderedFile& file : wanted.files) wanted_by_name[file.file_name] = &file;
  // Each file's identity is read once, from its text, and only when its bytes changed (a large
  // bundle holds tens of thousands); the StatefulSets that read a changed ConfigMap only once
  // one has. A DiffObject refers to its text, so the texts it reads stay here.
  std::optional<std::vector<DiffObject>> workloads;
  std::vector<std::string> workload_texts;
  auto effect_of_change = [&](const DiffObject& before, const DiffObject& now) {
    if (now.kind == "ConfigMap" && !workloads) {
      for (const RenderedFile& file : wanted.files)
        if (file.content.find("kind: StatefulSet\n") != std::string::npos)
          workload_texts.push_back(FileText(file));
      workloads.emplace();
      for (const std::string& text : workload_texts) workloads->push_back(ParseDiffObject(text));
    }
    static const std::vector<DiffObject> kNone;
    return EffectOfChange(before, now, now.kind == "ConfigMap" ? *workloads : kNone);
  };
  // What leaves the bundle, by object: an object that moves to another layer's folder is the
  // same object on the cluster, not a removal and an addition.
  std::map<std::string, DiffObject> gone;   // old file -> its object, read once
  std::map<ObjectId, std::string> leaving;  // identity -> old file
  for (const auto& [name, content] : existing) {
    if (wanted_by_name.count(name)) continue;
    if (ours && !ours->count(name)) {
      diff.user_files.push_back(name);
      continue;
    }
    const DiffObject& before = gone.emplace(name, ReadObject(name, content)).first->second;
    if (const std::optional<ObjectId> id = Identity(before)) leaving[*id] = name;
  }
  std::set<std::string> moved_away;
  for (const auto& [name, file] : wanted_by_name) {
    const std::string text = FileText(*file);  // as WriteBundleDir writes it (# Source:)
    auto it = existing.find(name);
    if (it != existing.end() && it->second == text) continue;
    const DiffObject now = ReadObject(name, text);
    if (it != existing.end()) {
      BundleChange change = Change(BundleChange::Kind::kChanged, name, now);
      const DiffObject before = ReadObject(name, it->second);
      Apply(effect_of_change(before, now), change);
      ByHand(BootstrapNotes(&before, now, name), change);
      change.unified_diff = UnifiedDiff(ExpandQuotedMultilineValues(it->second),
                                        ExpandQuotedMultilineValues(text), "a/" + name, "b/" + name);
      diff.changes.push_back(std::move(change));
      continue;
    }
    const std::optional<ObjectId> id = Identity(now);
    auto from = id ? leaving.find(*id) : leaving.end();
    if (from == leaving.end()) {
      BundleChange change = Change(BundleChange::Kind::kAdded, name, now);
      Apply(EffectOfAdding(now), change);
      ByHand(BootstrapNotes(nullptr, now, name), change);
      diff.changes.push_back(std::move(change));
      continue;
    }
    const std::string& old_text = existing.at(from->second);
    const DiffObject& before = gone.at(from->second);
    BundleChange change = Change(BundleChange::Kind::kMoved, name, now);
    change.moved_from = from->second;
    change.notes.push_back(MoveNote(before, Folder(from->second), Folder(name)));
    if (old_text != text) {
      Apply(effect_of_change(before, now), change);
      ByHand(BootstrapNotes(&before, now, name), change);
      change.unified_diff = UnifiedDiff(ExpandQuotedMultilineValues(old_text),
                                        ExpandQuotedMultilineValues(text), "a/" + from->second,
                                        "b/" + name);
    }
    moved_away.insert(from->second);
    diff.changes.push_back(std::move(change));
  }
  for (const auto& [name, before] : gone) {
    if (moved_away.count(name)) continue;
    BundleChange change = Change(BundleChange::Kind::kRemoved, name, before);
    Apply(EffectOfRemoval(before), change);
    diff.changes.push_back(std::move(change));
  }
  std::sort(diff.changes.begin(), diff.changes.end(),
            [](const BundleChange& l, const BundleChange& r) { return l.file_name < r.file_name; });
  return diff;
}

std::optional<std::set<std::string>> ReadBundleMarkerFiles(const std::string& dir) {
  std::string reason;
  const std::optional<std::string> text =
      ReadInputText((std::filesystem::path(dir) / kBundleMarkerName).string(), &reason,
                    kMaxBundleFileBytes);
  if (!text) return std::nullopt;
  return ParseBundleMarker(*text);
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
    std::optional<std::string> text =
        ReadInputText(entry.path().string(), &reason, kMaxBundleFileBytes);
    if (text && text->size() > kMaxBundleFileBytes) {
      text.reset();
      reason = "larger than " + std::to_string(kMaxBundleFileBytes >> 20) +
               " MiB, more than any file hkimgen writes";
    }
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
    case BundleChange::Kind::kMoved:
      return "moved";
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
    case BundleChange::Kind::kMoved:
      return ">";
    case BundleChange::Kind::kRemoved:
      return "-";
  }
  return "~";
}

struct Counts {
  int added = 0, changed = 0, moved = 0, removed = 0, disruptive = 0, job_restarts = 0,
      refused = 0, by_hand = 0;
};

Counts Count(const BundleDiff& diff) {
  Counts c;
  for (const BundleChange& change : diff.changes) {
    if (change.kind == BundleChange::Kind::kAdded) ++c.added;
    if (change.kind == BundleChange::Kind::kChanged) ++c.changed;
    if (change.kind == BundleChange::Kind::kMoved) ++c.moved;
    if (change.kind == BundleChange::Kind::kRemoved) ++c.removed;
    if (change.disruptive) ++c.disruptive;
    if (change.effect == Disruption::kJobRestart) ++c.job_restarts;
    if (!change.refusal.empty()) ++c.refused;
    if (change.by_hand) ++c.by_hand;
  }
  return c;
}

// Names, kinds and notes come from files in the folder, which anyone may have edited: no byte
// of them may move the terminal's cursor or recolour it, and a long one is cut.
std::string Printable(const std::string& text) {
  constexpr size_t kMax = 4096;
  std::string out;
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMax) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

void FormatChange(const BundleChange& change, std::ostream& out) {
  out << ChangeMark(change.kind) << " " << ChangeWord(change.kind) << " ";
  if (!change.moved_from.empty()) out << Printable(change.moved_from) << " -> ";
  out << Printable(change.file_name);
  if (!change.object_kind.empty()) {
    out << " (" << Printable(change.object_kind);
    if (!change.object_name.empty()) out << " " << Printable(change.object_name);
    out << ")";
  }
  if (change.disruptive) {
    out << " [disruptive: " << ToString(change.effect) << ": " << Printable(change.disruption)
        << "]";
  } else if (change.effect != Disruption::kNone) {
    out << " [" << ToString(change.effect) << ": " << Printable(change.disruption) << "]";
  }
  if (!change.refusal.empty()) out << " [refused: " << Printable(change.refusal) << "]";
  if (change.by_hand) out << " [by hand]";
  out << "\n";
  for (const std::string& note : change.notes) out << "    note: " << Printable(note) << "\n";
}

void FormatUserFiles(const BundleDiff& diff, std::ostream& out) {
  for (const std::string& file : diff.user_files)
    out << "= kept " << Printable(file)
        << " (yours: .hkimgen-bundle does not list it; render keeps it)\n";
}

}  // namespace

std::string FormatBundleDiff(const BundleDiff& diff, const std::string& dir) {
  std::ostringstream out;
  if (!diff.HasChanges()) {
    FormatUserFiles(diff, out);
    out << dir << ": no changes\n";
    return out.str();
  }
  for (const BundleChange& change : diff.changes) FormatChange(change, out);
  FormatUserFiles(diff, out);
  for (const BundleChange& change : diff.changes) {
    if (!change.unified_diff.empty()) out << "\n" << change.unified_diff;
  }
  Counts c = Count(diff);
  out << "\n"
      << dir << ": " << c.added << " to add, " << c.changed << " to change, ";
  if (c.moved > 0) out << c.moved << " to move, ";
  out << c.removed << " to remove";
  if (c.disruptive > 0) {
    out << "; " << c.disruptive
        << " disruptive (nodes will drain, reboot, reset VFs or roll a driver)";
  }
  if (c.job_restarts > 0) out << "; " << c.job_restarts << " restart the running job";
  if (c.refused > 0) out << "; " << c.refused << " refused";
  if (c.by_hand > 0)
    out << "; " << c.by_hand << " to apply by hand before the sync (bootstrap/, see its notes)";
  out << "\n";
  return out.str();
}

nlohmann::json BundleDiffToJson(const BundleDiff& diff, const std::string& dir) {
  nlohmann::json changes = nlohmann::json::array();
  for (const BundleChange& change : diff.changes) {
    changes.push_back({{"change", ChangeWord(change.kind)},
                       {"file", change.file_name},
                       {"moved_from", change.moved_from},
                       {"kind", change.object_kind},
                       {"name", change.object_name},
                       {"effect", ToString(change.effect)},
                       {"disruptive", change.disruptive},
                       {"disruption", change.disruption},
                       {"notes", change.notes},
                       {"refusal", change.refusal},
                       {"by_hand", change.by_hand},
                       {"diff", change.unified_diff}});
  }
  Counts c = Count(diff);
  return {{"directory", dir},
          {"changes", changes},
          {"user_files", diff.user_files},
          {"summary",
           {{"added", c.added},
            {"changed", c.changed},
            {"moved", c.moved},
            {"removed", c.removed},
            {"disruptive", c.disruptive},
            {"job_restarts", c.job_restarts},
            {"refused", c.refused},
            {"by_hand", c.by_hand}}}};
}

}  // namespace hkim
