#!/usr/bin/env bash
# The wrapper image end to end (scripts/build-image.sh), as CI can run it without a daemon:
#   1. build it twice from the suite's binaries: both layouts give the same manifest digest;
#   2. its config: entrypoint, non-root user, labels with this commit and the project version;
#   3. unpack it with umoci and run the init container's command exactly as the rendered
#      StatefulSet does (templates/common/statefulset.yaml.mustache): user 65534, read-only root
#      file system, an empty folder mounted at /opt/hkim/bin; inside the image's own root, so the
#      image's glibc runs it;
#   4. the installed programs work: hkim-wrapper on a fixture sysfs tree, hkim-nccl-check --help;
#   5. the bundle and the image agree (README, "Publishing and mirroring the wrapper image"): the
#      image carried as an oci-archive and copied back keeps its digest, and hkimgen renders this
#      version's tag, pinned by that digest with --wrapper-digest, in every init container;
#   6. the SBOM and provenance in the layout: byte-identical across the two builds, the SBOM valid
#      SPDX 2.3 naming libc6 and libgcc-s1 with dpkg's versions and every file of the unpacked
#      image with its SHA-256, the provenance's subject the manifest digest.
# Needs root (CI is) or unprivileged user namespaces for the mounts of step 3.
#   image_test.sh REPO_ROOT BIN_DIR MAKE_FIXTURE HKIMGEN HKIM_SBOM SCHEMA_CHECK
set -euo pipefail
repo=$1 bin=$2 make_fixture=$3 hkimgen=$4 sbom=$5 schema_check=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/hkim-image-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
version=$(sed -n 's/^project(hkimgen VERSION \([0-9][0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
commit=$(git -C "$repo" rev-parse HEAD)

echo "== 1. two builds, one digest"
for n in 1 2; do
  HKIM_IMAGE_BINARIES=$bin HKIM_SBOM=$sbom bash "$repo/scripts/build-image.sh" "$work/image$n" > "$work/build$n.out" 2> "$work/build$n.err" \
    || { cat "$work/build$n.err" >&2; fail "build $n failed"; }
  cat "$work/build$n.out"
done
digest1=$(skopeo inspect --format '{{.Digest}}' "oci:$work/image1:$version")
digest2=$(skopeo inspect --format '{{.Digest}}' "oci:$work/image2:$version")
[[ $digest1 == sha256:* && $digest1 == "$digest2" ]] || fail "digests differ: $digest1 vs $digest2"
grep -qF "$digest1" "$work/build1.out" || fail "build-image.sh did not print the digest $digest1"

echo "== 2. the image config"
skopeo inspect --config "oci:$work/image1:$version" > "$work/config.json"
python3 - "$work/config.json" "$version" "$commit" <<'PY'
import json, sys
config, version, commit = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
c = config["config"]
expect = {
    "entrypoint": (c.get("Entrypoint"), ["/hkim/bin/hkim-wrapper"]),
    "user": (c.get("User"), "65534:65534"),
    "version label": (c["Labels"].get("org.opencontainers.image.version"), version),
    # The suite's tree may carry uncommitted edits while developing: -dirty is the honest label.
    "revision label": (c["Labels"].get("org.opencontainers.image.revision", "").removesuffix("-dirty"), commit),
    "os/arch": ((config["os"], config["architecture"]), ("linux", "amd64")),
}
bad = [f"{k}: {got!r}, expected {want!r}" for k, (got, want) in expect.items() if got != want]
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
print("config ok:", c["Entrypoint"], c["User"], c["Labels"]["org.opencontainers.image.version"],
      c["Labels"]["org.opencontainers.image.revision"])
PY

echo "== 3. the init container's command inside the image"
unpack=(umoci unpack)
ns=(unshare --mount --propagation private)
if [[ $(id -u) -ne 0 ]]; then
  unpack+=(--rootless)
  ns=(unshare --user --map-root-user --mount --propagation private)
fi
"${unpack[@]}" --image "$work/image1:$version" "$work/bundle" > /dev/null
rootfs=$work/bundle/rootfs
installed=$work/emptydir
mkdir -p "$installed" && chmod 0777 "$installed"  # an emptyDir volume is world-writable
# Mount points the container runtime would create; then the root goes read-only.
mkdir -p "$rootfs/proc" "$rootfs/opt/hkim/bin"
as_user=(--userspec=65534:65534)
[[ $(id -u) -ne 0 ]] && as_user=()  # a user namespace maps only our own uid
"${ns[@]}" bash -euc '
  rootfs=$1 installed=$2; shift 2
  mount --bind "$rootfs" "$rootfs"
  mount -o remount,bind,ro "$rootfs"
  mount -t proc proc "$rootfs/proc"
  mount --bind "$installed" "$rootfs/opt/hkim/bin"
  if touch "$rootfs/hkim/probe" 2>/dev/null; then echo "root file system is writable" >&2; exit 1; fi
  exec chroot "$@" "$rootfs" /hkim/bin/hkim-wrapper --install-to /opt/hkim/bin
' _ "$rootfs" "$installed" "${as_user[@]}" > "$work/install.out" 2>&1 \
  || { cat "$work/install.out" >&2; fail "the init step failed inside the image"; }
cat "$work/install.out"
for program in "$rootfs"/hkim/bin/*; do
  name=$(basename "$program")
  cmp -s "$program" "$installed/$name" || fail "$name was not installed byte for byte"
  [[ -x $installed/$name ]] || fail "$name was installed without its execute bit"
done
[[ -x $installed/hkim-nccl-check ]] || fail "hkim-nccl-check is not in the image"

echo "== 4. the installed programs"
mapfile -t fixture_env < <("$make_fixture" barcelona "$work/sysfs")
env "${fixture_env[@]}" "$installed/hkim-wrapper" --sysfs-root "$work/sysfs" --print-env > "$work/env.out" 2> "$work/env.err" \
  || { cat "$work/env.err" >&2; fail "installed hkim-wrapper --print-env failed"; }
grep -qx 'NCCL_IB_HCA==mlx5_6,mlx5_7,mlx5_10,mlx5_11' "$work/env.out" \
  || { cat "$work/env.out" >&2; fail "installed hkim-wrapper chose other devices"; }
"$installed/hkim-nccl-check" --help > "$work/help.out" || fail "installed hkim-nccl-check --help failed"
grep -q 'Exit: 0 pass' "$work/help.out" || fail "hkim-nccl-check --help lacks the exit codes"

echo "== 5. the bundle and the image agree"
grep -qF -- "--wrapper-digest $digest1" "$work/build1.out" || fail "build-image.sh did not print how to pin"
skopeo copy --quiet "oci:$work/image1:$version" "oci-archive:$work/hkim-wrapper-$version.tar"
skopeo copy --quiet "oci-archive:$work/hkim-wrapper-$version.tar" "oci:$work/mirror:$version"
mirrored=$(skopeo inspect --format '{{.Digest}}' "oci:$work/mirror:$version")
[[ $mirrored == "$digest1" ]] || fail "the mirrored image has digest $mirrored, not $digest1"
(cd "$repo" && "$hkimgen" render profiles/oke-h100.yaml) > "$work/tag.yaml"
(cd "$repo" && "$hkimgen" render profiles/oke-h100.yaml --wrapper-digest "$mirrored") > "$work/pinned.yaml"
# StatefulSet (init container), the nightly check's coordinator (container) and its check pod
# (init container, JSON in a ConfigMap): three references, none left unpinned by --wrapper-digest.
[[ $(grep -o "quay.io/hkim/hkim-wrapper:$version@\?" "$work/tag.yaml" | grep -vc '@$') == 3 ]] \
  || fail "the bundle does not name quay.io/hkim/hkim-wrapper:$version, the tag this tree builds"
[[ $(grep -o "quay.io/hkim/hkim-wrapper:$version@$digest1" "$work/pinned.yaml" | wc -l) == 3 ]] \
  || fail "render --wrapper-digest did not pin every wrapper reference to $digest1"
[[ $(grep -o "quay.io/hkim/hkim-wrapper:$version@\?" "$work/pinned.yaml" | grep -vc '@$') == 0 ]] \
  || fail "render --wrapper-digest left a wrapper reference unpinned"

echo "== 6. SBOM and provenance"
for file in hkim-wrapper.spdx.json hkim-wrapper.provenance.json; do
  [[ -s $work/image1/$file ]] || fail "build-image.sh wrote no $file into the layout"
  cmp "$work/image1/$file" "$work/image2/$file" || fail "$file differs between two builds of one commit"
done
"$schema_check" "$repo/tests/image/spdx-2.3.schema.json" "$work/image1/hkim-wrapper.spdx.json" \
  || fail "the SBOM does not validate against SPDX 2.3"
python3 - "$work/image1" "$rootfs" "$version" "$commit" "$digest1" \
  "$(dpkg-query -W -f='${Version}' libc6)" "$(dpkg-query -W -f='${Version}' libgcc-s1)" <<'PY'
import hashlib, json, os, sys
layout, rootfs, version, commit, digest, libc6, libgcc = sys.argv[1:]
doc = json.load(open(f"{layout}/hkim-wrapper.spdx.json"))
statement = json.load(open(f"{layout}/hkim-wrapper.provenance.json"))
packages = {p["name"]: p for p in doc["packages"] if p.get("primaryPackagePurpose") != "CONTAINER"}
in_sbom = {f["fileName"]: f["checksums"][0]["checksumValue"] for f in doc["files"]}
in_image = {}
for top, _, names in os.walk(rootfs):
    for name in names:
        path = os.path.join(top, name)
        if os.path.isfile(path) and not os.path.islink(path):
            in_image["./" + os.path.relpath(path, rootfs)] = hashlib.sha256(open(path, "rb").read()).hexdigest()
problems = []
if in_sbom != in_image:
    problems.append(f"files differ: only in SBOM {sorted(set(in_sbom) - set(in_image))}, "
                    f"only in image {sorted(set(in_image) - set(in_sbom))}, "
                    f"checksums differ {sorted(k for k in in_sbom.keys() & in_image.keys() if in_sbom[k] != in_image[k])}")
for name, want in (("libc6", libc6), ("libgcc-s1", libgcc)):
    if packages.get(name, {}).get("versionInfo") != want:
        problems.append(f"{name}: {packages.get(name, {}).get('versionInfo')!r}, dpkg says {want!r}")
for program in ("hkim-wrapper", "hkim-nccl-check"):
    p = packages.get(program, {})
    if p.get("versionInfo") != version or commit not in p.get("downloadLocation", ""):
        problems.append(f"{program}: version {p.get('versionInfo')!r}, source {p.get('downloadLocation')!r}")
    if p.get("checksums", [{}])[0].get("checksumValue") != in_image.get(f"./hkim/bin/{program}"):
        problems.append(f"{program}: package checksum is not the image file's")
if [s["digest"]["sha256"] for s in statement["subject"]] != [digest.removeprefix("sha256:")]:
    problems.append(f"provenance subject {statement['subject']} is not {digest}")
source = statement["predicate"]["buildDefinition"]["externalParameters"]["source"]
if source["digest"]["gitCommit"] != commit:
    problems.append(f"provenance commit {source['digest']} is not {commit}")
if problems:
    sys.exit("FAIL: " + "; ".join(problems))
print(f"sbom ok: {len(packages)} packages, {len(in_sbom)} files; provenance subject {digest}")
PY
echo "image ok: oci:$version $digest1"
