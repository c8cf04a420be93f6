#!/usr/bin/env bash
# hkim-sbom on fixed facts (scripts/build-image.sh passes the real ones; image_test.sh checks a
# real build): the SPDX document validates against the SPDX 2.3 schema (SOURCES.md), names each
# package with its version and licences, each file with its SHA-256 and owner; two runs are
# byte-identical; the provenance's subject is every manifest in the layout; inconsistent facts
# are an error that writes nothing.
#   sbom_test.sh HKIM_SBOM SCHEMA_CHECK SCHEMA
set -euo pipefail
sbom=$1 check=$2 schema=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/hkim-sbom-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A machine-readable (DEP-5) copyright file and a free-form one, as libc6 ships today.
cat > "$work/dep5" <<'TXT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: example

Files: *
Copyright: 2020 Someone
License: GPL-2+

Files: lib/*
Copyright: 2021 Someone Else
License: LGPL-2.1+ or MIT
TXT
printf 'This is the Debian prepackaged version of a library.\nLicense: see below, in prose\n' > "$work/prose"
# A licence name without a known SPDX id is not guessed at.
printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\nFiles: *\nLicense: GPL-2+\n\nFiles: x\nLicense: Custom-Thing\n' > "$work/unknown"
# Debian 12's own free-form files (SOURCES.md): licences inferred from their common-licenses
# references.
fixtures=$(dirname "$0")/copyright
sha=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
args=(spdx --name hkim-wrapper --version 9.8.7 --commit abc123 --repository https://example.org/hkimgen
  --created 2024-01-02T03:04:05Z --content-digest "$sha"
  --package libexample 1.2-3 "$work/dep5" --package libc6 2.36-9 "$work/prose" --package libodd 1 "$work/unknown"
  --package libc6-real 2.36-9+deb12u14 "$fixtures/libc6" --package libgcc-s1 12.2.0-14+deb12u1 "$fixtures/libgcc-s1"
  --program hkim-wrapper libc6,libexample --program hkim-health -
  --file hkim/bin/hkim-wrapper "$sha" hkim-wrapper --file hkim/bin/hkim-health "$sha" hkim-health
  --file lib/x86_64-linux-gnu/libc.so.6 "$sha" libc6 --file lib/libexample.so "$sha" libexample --file lib/libodd.so "$sha" libodd)
"$sbom" "${args[@]}" -o "$work/one.spdx.json"
"$sbom" "${args[@]}" -o "$work/two.spdx.json"
cmp "$work/one.spdx.json" "$work/two.spdx.json" || fail "two runs on the same facts differ"
"$check" "$schema" "$work/one.spdx.json" || fail "the SBOM does not validate against SPDX 2.3"

python3 - "$work/one.spdx.json" "$sha" <<'PY'
import json, sys
doc, sha = json.load(open(sys.argv[1])), sys.argv[2]
packages = {p["name"]: p for p in doc["packages"] if p.get("primaryPackagePurpose") != "CONTAINER"}
ids = {p["SPDXID"]: p["name"] for p in doc["packages"]}
ids.update({f["SPDXID"]: f["fileName"] for f in doc["files"]})
rel = {(ids.get(r["spdxElementId"], r["spdxElementId"]), r["relationshipType"], ids[r["relatedSpdxElement"]])
       for r in doc["relationships"]}
checks = {
    "spdxVersion": doc["spdxVersion"] == "SPDX-2.3",
    "created from the facts": doc["creationInfo"]["created"] == "2024-01-02T03:04:05Z",
    "namespace from commit and content": doc["documentNamespace"].endswith("/abc123/" + sha),
    "libc6 version": packages["libc6"]["versionInfo"] == "2.36-9",
    "libc6 purl": packages["libc6"]["externalRefs"][0]["referenceLocator"] == "pkg:deb/debian/libc6@2.36-9?arch=amd64",
    "free-form copyright: NOASSERTION": packages["libc6"]["licenseDeclared"] == "NOASSERTION",
    "DEP-5 licences as SPDX ids": packages["libexample"]["licenseDeclared"] == "(LGPL-2.1-or-later OR MIT) AND GPL-2.0-or-later",
    "unknown licence name: NOASSERTION": packages["libodd"]["licenseDeclared"] == "NOASSERTION",
    "libc6's free-form file: its common-licenses references, or-later as granted":
        packages["libc6-real"]["licenseDeclared"] == "GPL-2.0-or-later AND LGPL-2.1-or-later",
    "libgcc-s1's free-form file, GFDL-1.2 without any later version":
        packages["libgcc-s1"]["licenseDeclared"] == "GFDL-1.2-only AND GPL-2.0-or-later AND GPL-3.0-or-later",
    "the inference is stated":
        packages["libgcc-s1"]["licenseComments"].startswith("inferred by hkim-sbom from the free-form copyright file")
        and packages["libgcc-s1"]["licenseComments"].endswith("references not mapped (no version stated, or no SPDX id): Artistic, GPL, LGPL"),
    "DEP-5: no comment": "licenseComments" not in packages["libexample"],
    "program version": packages["hkim-wrapper"]["versionInfo"] == "9.8.7",
    "program checksum": packages["hkim-wrapper"]["checksums"] == [{"algorithm": "SHA256", "checksumValue": sha}],
    "program source": packages["hkim-wrapper"]["downloadLocation"] == "git+https://example.org/hkimgen@abc123",
    "describes the image": ("SPDXRef-DOCUMENT", "DESCRIBES", "hkim-wrapper") in rel,
    "image contains libc6": ("hkim-wrapper", "CONTAINS", "libc6") in rel,
    "libc6 contains libc.so.6": ("libc6", "CONTAINS", "./lib/x86_64-linux-gnu/libc.so.6") in rel,
    "program depends on libc6": ("hkim-wrapper", "DEPENDS_ON", "libc6") in rel,
    "no invented dependency": not any(r[0] == "hkim-health" and r[1] == "DEPENDS_ON" for r in rel),
}
bad = [name for name, ok in checks.items() if not ok]
if bad:
    sys.exit("FAIL: " + ", ".join(bad))
print("spdx ok:", len(doc["packages"]), "packages,", len(doc["files"]), "files")
PY

# A file whose owner is not listed is an error, and nothing is written.
if "$sbom" "${args[@]}" --file stray "$sha" nobody -o "$work/bad.spdx.json" 2> "$work/bad.err"; then
  fail "an unlisted owner was accepted"
fi
grep -q 'owner nobody is not listed' "$work/bad.err" || fail "unexpected error: $(cat "$work/bad.err")"
[[ ! -e $work/bad.spdx.json && ! -e $work/bad.spdx.json.tmp ]] || fail "a failed run left a file"

# Provenance: every manifest of the layout's index.json is a subject.
mkdir -p "$work/layout"
cat > "$work/layout/index.json" <<'JSON'
{"schemaVersion": 2, "manifests": [
  {"mediaType": "application/vnd.oci.image.manifest.v1+json", "size": 1,
   "digest": "sha256:bbbb", "annotations": {"org.opencontainers.image.ref.name": "9.8.7"}},
  {"mediaType": "application/vnd.oci.image.manifest.v1+json", "size": 1, "digest": "sha256:aaaa"}]}
JSON
prov=(provenance --layout "$work/layout" --name hkim-wrapper --repository https://example.org/hkimgen
  --commit abc123-dirty --epoch 1704164645 --command "bash scripts/build-image.sh DIR"
  --build-type https://example.org/build-type --builder-id urn:test:builder --package libc6 2.36-9)
"$sbom" "${prov[@]}" -o "$work/one.provenance.json"
"$sbom" "${prov[@]}" -o "$work/two.provenance.json"
cmp "$work/one.provenance.json" "$work/two.provenance.json" || fail "two provenance runs differ"
python3 - "$work/one.provenance.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
p = s["predicate"]
checks = {
    "statement type": s["_type"] == "https://in-toto.io/Statement/v1",
    "predicate type": s["predicateType"] == "https://slsa.dev/provenance/v1",
    "subjects": s["subject"] == [{"name": "hkim-wrapper", "digest": {"sha256": "aaaa"}},
                                 {"name": "hkim-wrapper:9.8.7", "digest": {"sha256": "bbbb"}}],
    "source commit (hex, dirty apart)": p["buildDefinition"]["externalParameters"]["source"]["digest"] == {"gitCommit": "abc123"}
        and p["buildDefinition"]["externalParameters"]["uncommittedChanges"] is True,
    "command": p["buildDefinition"]["externalParameters"]["command"] == "bash scripts/build-image.sh DIR",
    "builder": p["runDetails"]["builder"]["id"] == "urn:test:builder",
    "debian dependency": {"uri": "pkg:deb/debian/libc6@2.36-9?arch=amd64", "name": "libc6"} in p["buildDefinition"]["resolvedDependencies"],
}
bad = [name for name, ok in checks.items() if not ok]
if bad:
    sys.exit("FAIL: " + ", ".join(bad))
print("provenance ok")
PY
echo "sbom ok"
