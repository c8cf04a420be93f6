#pragma once
// The wrapper image's SBOM (SPDX 2.3 JSON) and provenance (in-toto Statement v1 with a SLSA
// provenance v1 predicate), built from facts only: scripts/build-image.sh collects them
// (dpkg-query, sha256sum, the layout's index.json) and nothing here reads the clock or draws random
// numbers, so one commit's facts give byte-identical documents.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace hkim::sbom {

/// A Debian package the root file system takes files from.
struct DebianPackage {
  std::string name;
  std::string version;                // dpkg-query -W -f='${Version}'
  std::vector<std::string> licenses;  // SPDX expressions (CopyrightLicenses); empty: NOASSERTION
  std::string license_comment;        // how they were read when inferred (licenseComments)
};

/// A hkim program built from this checkout.
struct Program {
  std::string name;
  std::vector<std::string> depends_on;  // Debian package names whose libraries it loads
};

/// One file of the root file system.
struct File {
  std::string path;    // relative to the root, e.g. hkim/bin/hkim-wrapper
  std::string sha256;  // lowercase hex
  std::string owner;   // a DebianPackage or Program name
};

struct Facts {
  std::string image_name;      // hkim-wrapper
  std::string version;         // project(hkimgen VERSION ...)
  std::string commit;          // source commit (may end in -dirty)
  std::string repository;      // source repository URL
  std::string created;         // SOURCE_DATE_EPOCH as RFC 3339 UTC
  std::string content_digest;  // sha256 over the file list: makes the namespace unique per content
  std::vector<DebianPackage> packages;
  std::vector<Program> programs;
  std::vector<File> files;
};

/// The licences a Debian copyright file declares in machine-readable form (DEP-5 `License:`
/// fields), one SPDX expression per field, sorted and deduplicated (all apply). Empty for a
/// free-form file (libc6, libgcc-s1 today; CopyrightLicenses then reads its references) or a
/// licence name without a known SPDX id: the SBOM then says NOASSERTION rather than guess.
std::vector<std::string> DeclaredLicenses(const std::string& copyright_text);

/// Licences read from a copyright file, and how, when they were inferred.
struct CopyrightReading {
  std::vector<std::string> licenses;  // SPDX ids, sorted (all apply); empty: NOASSERTION
  std::string comment;                // empty for DEP-5; else what was inferred and what not
};

/// The licences a free-form copyright file (libc6's, libgcc-s1's) names through
/// `/usr/share/common-licenses/NAME` references, as SPDX ids: a versioned NAME only (GPL-2,
/// LGPL-2.1, GFDL-1.2, ...), "-or-later" where the text since the previous reference grants
/// "version N ... or (at your option) any later version" for that N, else "-only". Unversioned
/// names (GPL, LGPL, GFDL: links to the newest version; Artistic, BSD) are not mapped and are
/// named in the comment. The file covers the whole source package, not only the image's files.
CopyrightReading InferredLicenses(const std::string& copyright_text);

/// DEP-5 files through DeclaredLicenses, free-form ones through InferredLicenses.
CopyrightReading CopyrightLicenses(const std::string& copyright_text);

/// The SPDX 2.3 document. Throws std::invalid_argument on inconsistent facts (a file whose owner
/// is unknown, a dependency on an unlisted package).
nlohmann::ordered_json Spdx(const Facts& facts);

struct Subject {
  std::string name;    // e.g. hkim-wrapper:0.1.0 (the layout's ref name)
  std::string digest;  // sha256:<hex>
};

struct BuildFacts {
  std::string repository;
  std::string commit;
  std::string command;  // the build command line
  std::string builder_id;
  std::string build_type;
  std::string epoch;  // SOURCE_DATE_EPOCH
  std::vector<Subject> subjects;
  std::vector<DebianPackage> packages;  // resolved dependencies (name, version)
};

/// The manifests an OCI image layout's index.json names, sorted by name then digest.
std::vector<Subject> LayoutSubjects(const nlohmann::json& index, const std::string& fallback_name);

/// The unsigned in-toto Statement v1 with predicateType https://slsa.dev/provenance/v1.
nlohmann::ordered_json Provenance(const BuildFacts& facts);

}  // namespace hkim::sbom
