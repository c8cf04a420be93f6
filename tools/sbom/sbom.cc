#include "sbom.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace hkim::sbom {
namespace {

using ordered = nlohmann::ordered_json;

/// Debian's short licence names (DEP-5 "License specification") and the SPDX ids they mean. A
/// name not here is not guessed at: the package's licence becomes NOASSERTION.
const std::map<std::string, std::string>& DebianToSpdx() {
  static const std::map<std::string, std::string> table = {
      {"GPL-2", "GPL-2.0-only"},
      {"GPL-2+", "GPL-2.0-or-later"},
      {"GPL-3", "GPL-3.0-only"},
      {"GPL-3+", "GPL-3.0-or-later"},
      {"LGPL-2", "LGPL-2.0-only"},
      {"LGPL-2+", "LGPL-2.0-or-later"},
      {"LGPL-2.1", "LGPL-2.1-only"},
      {"LGPL-2.1+", "LGPL-2.1-or-later"},
      {"LGPL-3", "LGPL-3.0-only"},
      {"LGPL-3+", "LGPL-3.0-or-later"},
      {"GFDL-1.3", "GFDL-1.3-only"},
      {"GFDL-1.3+", "GFDL-1.3-or-later"},
      {"Expat", "MIT"},
      {"MIT", "MIT"},
      {"BSD-2-clause", "BSD-2-Clause"},
      {"BSD-3-clause", "BSD-3-Clause"},
      {"BSD-2-Clause", "BSD-2-Clause"},
      {"BSD-3-Clause", "BSD-3-Clause"},
      {"Apache-2.0", "Apache-2.0"},
      {"ISC", "ISC"},
      {"Zlib", "Zlib"},
      {"MPL-2.0", "MPL-2.0"},
  };
  return table;
}

/// SPDX element ids allow letters, digits, '.' and '-' only.
std::string Ref(const std::string& kind, const std::string& name) {
  std::string id = "SPDXRef-" + kind + "-";
  for (unsigned char c : name) id += std::isalnum(c) || c == '.' || c == '-' ? char(c) : '-';
  return id;
}

std::string LicenseExpression(const std::vector<std::string>& licenses) {
  if (licenses.empty()) return "NOASSERTION";
  std::string expression;
  for (const auto& id : licenses) expression += (expression.empty() ? "" : " AND ") + id;
  return expression;
}

std::string Purl(const DebianPackage& package) {
  return "pkg:deb/debian/" + package.name + "@" + package.version + "?arch=amd64";
}

}  // namespace

std::vector<std::string> DeclaredLicenses(const std::string& copyright_text) {
  std::istringstream in(copyright_text);
  std::string line;
  // DEP-5 files start with a Format: field; a free-form file's "License:" line is prose.
  if (!std::getline(in, line) || line.rfind("Format:", 0) != 0) return {};
  std::set<std::string> expressions;  // one per License: field, all of them apply (AND)
  while (std::getline(in, line)) {
    if (line.rfind("License:", 0) != 0) continue;
    std::istringstream words(line.substr(8));
    std::string word, expression;
    int ids = 0;
    while (words >> word) {
      if (!word.empty() && word.back() == ',') word.pop_back();
      if (word == "or" || word == "and") {
        expression += word == "or" ? " OR " : " AND ";
        continue;
      }
      if (word == "with") return {};  // an exception clause: stated in prose, not guessed at
      auto it = DebianToSpdx().find(word);
      if (it == DebianToSpdx().end()) return {};
      expression += it->second;
      ++ids;
    }
    if (ids == 0) continue;
    expressions.insert(ids > 1 ? "(" + expression + ")" : expression);
  }
  return {expressions.begin(), expressions.end()};
}

// licensecheck (Debian's licence scanner) was considered: it reads licence grants in source
// files and reports one verdict per file, not the several licences a package's copyright file
// lists section by section, so the references are read here instead, conservatively.
CopyrightReading InferredLicenses(const std::string& copyright_text) {
  // /usr/share/common-licenses/NAME -> SPDX id without the -only/-or-later suffix; `gnu`: the
  // suffix applies. Debian 12's common-licenses; the unversioned links are left out on purpose.
  struct Versioned {
    const char* spdx;
    const char* version;
    bool gnu;
  };
  static const std::map<std::string, Versioned> kVersioned = {
      {"GPL-1", {"GPL-1.0", "1", true}},         {"GPL-2", {"GPL-2.0", "2", true}},
      {"GPL-3", {"GPL-3.0", "3", true}},         {"LGPL-2", {"LGPL-2.0", "2", true}},
      {"LGPL-2.1", {"LGPL-2.1", "2.1", true}},   {"LGPL-3", {"LGPL-3.0", "3", true}},
      {"GFDL-1.2", {"GFDL-1.2", "1.2", true}},   {"GFDL-1.3", {"GFDL-1.3", "1.3", true}},
      {"Apache-2.0", {"Apache-2.0", "", false}}, {"MPL-1.1", {"MPL-1.1", "", false}},
      {"MPL-2.0", {"MPL-2.0", "", false}},       {"CC0-1.0", {"CC0-1.0", "", false}},
  };
  const std::string kDir = "/usr/share/common-licenses/";
  std::set<std::string> licenses, unmapped;
  size_t span_start = 0, previous_end = 0;
  for (size_t at = copyright_text.find(kDir); at != std::string::npos;
       at = copyright_text.find(kDir, at + kDir.size())) {
    size_t end = at + kDir.size();
    while (end < copyright_text.size() &&
           (std::isalnum(static_cast<unsigned char>(copyright_text[end])) ||
            copyright_text[end] == '.' || copyright_text[end] == '-' || copyright_text[end] == '+'))
      ++end;
    std::string name = copyright_text.substr(at + kDir.size(), end - at - kDir.size());
    while (!name.empty() && name.back() == '.') name.pop_back();  // the sentence's full stop
    // The grant is in the text since the previous reference (the same section of the file);
    // references of one paragraph ("GPL', version 3 ... in GPL-3'") share that text.
    static const std::regex kBlankLine("\\n[ \\t]*\\n");
    if (std::regex_search(copyright_text.begin() + previous_end, copyright_text.begin() + at,
                          kBlankLine))
      span_start = previous_end;
    const std::string span = copyright_text.substr(span_start, at - span_start);
    previous_end = end;
    auto it = kVersioned.find(name);
    if (it == kVersioned.end()) {
      if (!name.empty()) unmapped.insert(name);
      continue;
    }
    const Versioned& v = it->second;
    if (!v.gnu) {
      licenses.insert(v.spdx);
      continue;
    }
    // "version 2.1 of the License, or (at your option) any later version", across lines.
    std::string version = v.version;
    version = std::regex_replace(version, std::regex("\\."), "\\.");
    const std::regex later("version\\s+" + version + "(\\.0)?\\b[^.;]{0,80}?any\\s+later",
                           std::regex::icase);
    licenses.insert(std::string(v.spdx) + (std::regex_search(span, later) ? "-or-later" : "-only"));
  }
  CopyrightReading reading{{licenses.begin(), licenses.end()}, ""};
  std::string names;
  for (const auto& name : unmapped) names += (names.empty() ? "" : ", ") + name;
  if (licenses.empty() && unmapped.empty()) {
    reading.comment =
        "free-form copyright file (not DEP-5) that references no "
        "/usr/share/common-licenses text: no licence inferred";
    return reading;
  }
  reading.comment =
      "inferred by hkim-sbom from the free-form copyright file (not DEP-5): each versioned "
      "/usr/share/common-licenses/NAME it references, -or-later where the text before the "
      "reference grants that version \"or (at your option) any later version\"; the file "
      "covers the whole source package; exceptions stated in prose (e.g. GCC's runtime "
      "library exception) are not read" +
      (names.empty() ? std::string()
                     : "; references not mapped (no version stated, or no SPDX id): " + names);
  return reading;
}

CopyrightReading CopyrightLicenses(const std::string& copyright_text) {
  if (copyright_text.rfind("Format:", 0) == 0) return {DeclaredLicenses(copyright_text), ""};
  return InferredLicenses(copyright_text);
}

namespace {

// The image itself: what the document describes. Licences are its parts' business.
ordered ImagePackage(const Facts& facts, const std::string& image_ref, const std::string& source) {
  ordered image;
  image["SPDXID"] = image_ref;
  image["name"] = facts.image_name;
  image["versionInfo"] = facts.version;
  image["primaryPackagePurpose"] = "CONTAINER";
  image["downloadLocation"] = source;
  image["sourceInfo"] = "built by scripts/build-image.sh from commit " + facts.commit;
  image["filesAnalyzed"] = false;
  image["licenseConcluded"] = "NOASSERTION";
  image["licenseDeclared"] = "NOASSERTION";
  image["copyrightText"] = "NOASSERTION";
  return image;
}

// One of our programs, built from this repository's commit; its checksum is its file's.
ordered ProgramPackage(const Facts& facts, const Program& program, const std::string& ref,
                       const std::string& source) {
  ordered package;
  package["SPDXID"] = ref;
  package["name"] = program.name;
  package["versionInfo"] = facts.version;
  package["primaryPackagePurpose"] = "APPLICATION";
  package["downloadLocation"] = source;
  package["sourceInfo"] = "hkimgen " + facts.version + ", commit " + facts.commit + " (" +
                          facts.repository + "), stripped";
  package["filesAnalyzed"] = false;
  package["licenseConcluded"] = "NOASSERTION";
  package["licenseDeclared"] = "NOASSERTION";
  package["copyrightText"] = "NOASSERTION";
  for (const auto& file : facts.files) {
    if (file.owner != program.name) continue;
    package["checksums"] =
        ordered::array({{{"algorithm", "SHA256"}, {"checksumValue", file.sha256}}});
  }
  return package;
}

// One Debian package whose libraries the image carries, with the licences its copyright file
// declares and a purl so scanners can match it.
ordered DebianSpdxPackage(const DebianPackage& debian, const std::string& ref) {
  ordered package;
  package["SPDXID"] = ref;
  package["name"] = debian.name;
  package["versionInfo"] = debian.version;
  package["primaryPackagePurpose"] = "LIBRARY";
  package["supplier"] = "Organization: Debian";
  package["downloadLocation"] = "NOASSERTION";
  package["filesAnalyzed"] = false;
  package["licenseConcluded"] = "NOASSERTION";
  package["licenseDeclared"] = LicenseExpression(debian.licenses);
  if (!debian.license_comment.empty()) package["licenseComments"] = debian.license_comment;
  package["copyrightText"] = "NOASSERTION";
  package["comment"] = "copied from the build machine's dpkg; copyright: /usr/share/doc/" +
                       debian.name + "/copyright in the image";
  package["externalRefs"] = ordered::array({{{"referenceCategory", "PACKAGE-MANAGER"},
                                             {"referenceType", "purl"},
                                             {"referenceLocator", Purl(debian)}}});
  return package;
}

// The document's files and relationships, built together: each file is contained by its owner.
struct FilesAndRelationships {
  ordered files = ordered::array();
  ordered relationships = ordered::array();

  void Relate(const std::string& from, const std::string& type, const std::string& to) {
    relationships.push_back(
        {{"spdxElementId", from}, {"relationshipType", type}, {"relatedSpdxElement", to}});
  }
};

// Every file (in path order, so the output is byte-identical), the image containing every
// package, and each program depending on the Debian packages it loads. Throws on a file or
// dependency that names no listed package: the facts are inconsistent.
FilesAndRelationships DescribeContents(const Facts& facts, const std::string& image_ref,
                                       const std::map<std::string, std::string>& owner_refs) {
  FilesAndRelationships contents;
  ordered& files = contents.files;
  contents.Relate("SPDXRef-DOCUMENT", "DESCRIBES", image_ref);
  for (const auto& [name, ref] : owner_refs) contents.Relate(image_ref, "CONTAINS", ref);
  std::vector<File> sorted = facts.files;
  std::sort(sorted.begin(), sorted.end(),
            [](const File& a, const File& b) { return a.path < b.path; });
  for (const auto& file : sorted) {
    auto owner = owner_refs.find(file.owner);
    if (owner == owner_refs.end())
      throw std::invalid_argument("file " + file.path + ": owner " + file.owner + " is not listed");
    const std::string ref = Ref("File", file.path);
    files.push_back(
        {{"SPDXID", ref},
         {"fileName", "./" + file.path},
         {"checksums", ordered::array({{{"algorithm", "SHA256"}, {"checksumValue", file.sha256}}})},
         {"licenseConcluded", "NOASSERTION"},
         {"copyrightText", "NOASSERTION"}});
    contents.Relate(owner->second, "CONTAINS", ref);
  }
  for (const auto& program : facts.programs) {
    for (const auto& dependency : program.depends_on) {
      auto it = owner_refs.find(dependency);
      if (it == owner_refs.end())
        throw std::invalid_argument(program.name + " depends on unlisted package " + dependency);
      contents.Relate(owner_refs.at(program.name), "DEPENDS_ON", it->second);
    }
  }
  return contents;
}

}  // namespace

ordered Spdx(const Facts& facts) {
  const std::string image_ref = Ref("Package", facts.image_name + "-image");
  const std::string source = "git+" + facts.repository + "@" + facts.commit;
  std::map<std::string, std::string> owner_refs;  // package or program name -> SPDXID

  ordered packages = ordered::array();
  packages.push_back(ImagePackage(facts, image_ref, source));
  for (const auto& program : facts.programs) {
    const std::string ref = Ref("Program", program.name);
    owner_refs[program.name] = ref;
    packages.push_back(ProgramPackage(facts, program, ref, source));
  }
  for (const auto& debian : facts.packages) {
    const std::string ref = Ref("Package", debian.name);
    owner_refs[debian.name] = ref;
    packages.push_back(DebianSpdxPackage(debian, ref));
  }
  FilesAndRelationships contents = DescribeContents(facts, image_ref, owner_refs);

  ordered document;
  document["spdxVersion"] = "SPDX-2.3";
  document["dataLicense"] = "CC0-1.0";
  document["SPDXID"] = "SPDXRef-DOCUMENT";
  document["name"] = facts.image_name + "-" + facts.version;
  // Unique per content without a random UUID: commit and a digest of every file's checksum.
  document["documentNamespace"] = facts.repository + "/spdx/" + facts.image_name + "-" +
                                  facts.version + "/" + facts.commit + "/" + facts.content_digest;
  document["creationInfo"] = {{"created", facts.created},
                              {"creators", ordered::array({"Tool: hkim-sbom-" + facts.version})}};
  document["documentDescribes"] = ordered::array({image_ref});
  document["packages"] = packages;
  document["files"] = contents.files;
  document["relationships"] = contents.relationships;
  return document;
}

std::vector<Subject> LayoutSubjects(const nlohmann::json& index, const std::string& fallback_name) {
  std::vector<Subject> subjects;
  for (const auto& manifest : index.at("manifests")) {
    std::string name = fallback_name;
    if (auto a = manifest.find("annotations"); a != manifest.end()) {
      if (auto ref = a->find("org.opencontainers.image.ref.name"); ref != a->end())
        name = fallback_name + ":" + ref->get<std::string>();
    }
    subjects.push_back({name, manifest.at("digest").get<std::string>()});
  }
  if (subjects.empty()) throw std::invalid_argument("index.json names no manifest");
  std::sort(subjects.begin(), subjects.end(), [](const Subject& a, const Subject& b) {
    return std::tie(a.name, a.digest) < std::tie(b.name, b.digest);
  });
  return subjects;
}

ordered Provenance(const BuildFacts& facts) {
  ordered subjects = ordered::array();
  for (const auto& subject : facts.subjects) {
    const auto colon = subject.digest.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("digest " + subject.digest + " lacks its algorithm");
    subjects.push_back(
        {{"name", subject.name},
         {"digest", {{subject.digest.substr(0, colon), subject.digest.substr(colon + 1)}}}});
  }
  // A digest is hex: a tree with uncommitted changes is stated apart, not folded into it.
  std::string commit = facts.commit;
  const bool dirty = commit.size() > 6 && commit.ends_with("-dirty");
  if (dirty) commit.resize(commit.size() - 6);
  ordered source = {{"uri", "git+" + facts.repository}, {"digest", {{"gitCommit", commit}}}};
  ordered external = {{"source", source}, {"command", facts.command}};
  if (dirty) external["uncommittedChanges"] = true;
  ordered dependencies = ordered::array({source});
  for (const auto& package : facts.packages)
    dependencies.push_back({{"uri", Purl(package)}, {"name", package.name}});

  ordered statement;
  statement["_type"] = "https://in-toto.io/Statement/v1";
  statement["subject"] = subjects;
  statement["predicateType"] = "https://slsa.dev/provenance/v1";
  statement["predicate"] = {{"buildDefinition",
                             {{"buildType", facts.build_type},
                              {"externalParameters", external},
                              {"internalParameters", {{"SOURCE_DATE_EPOCH", facts.epoch}}},
                              {"resolvedDependencies", dependencies}}},
                            {"runDetails", {{"builder", {{"id", facts.builder_id}}}}}};
  return statement;
}

}  // namespace hkim::sbom
