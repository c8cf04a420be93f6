#!/usr/bin/env bash
# Builds the hkim-wrapper image (the init container of every rendered StatefulSet) as an OCI image
# layout, without a container daemon, without network and without any base image:
#
#   bash scripts/build-image.sh [DIR]        # default DIR: build/image
#
# - the programs (hkim-wrapper, hkim-nccl-check, hkim-health when built) come from this checkout,
#   built in build/image-build (Release), or taken from HKIM_IMAGE_BINARIES=FOLDER (e.g.
#   build/wrapper: the tests use the binaries the suite built);
# - glibc's loader and libraries and libgcc_s come from this machine's Debian packages (libc6,
#   libgcc-s1), with their copyright files, so that the init container's own command
#   `/hkim/bin/hkim-wrapper --install-to /opt/hkim/bin` runs inside this image as a non-root user
#   on a read-only root file system (README: "The wrapper image");
# - umoci assembles the layout and skopeo copies it into DIR, tagged with the project version
#   (CMakeLists.txt `project(hkimgen VERSION ...)`).
#
# Reproducible: two builds from one commit on one machine give the same manifest digest. Every
# file time is SOURCE_DATE_EPOCH (default: the commit's time), entries are sorted, owners are 0,
# modes are fixed, the binaries carry no build path (-ffile-prefix-map) and are stripped.
# Beside the image, DIR gets its SBOM and provenance (README: "The wrapper image's SBOM and
# provenance"), written by hkim-sbom (tools/sbom; HKIM_SBOM=PATH or built in build/image-build):
# - hkim-wrapper.spdx.json: SPDX 2.3, the Debian packages the root file system takes files from
#   (dpkg version; DEP-5 licences, or those a free-form copyright file references in
#   /usr/share/common-licenses, or NOASSERTION), the hkim programs (version, commit), every
#   file's SHA-256, CONTAINS/DEPENDS_ON relationships;
# - hkim-wrapper.provenance.json: an unsigned in-toto Statement v1, SLSA provenance v1 predicate,
#   whose subject is each manifest digest in DIR's index.json.
# Both reproducible (SOURCE_DATE_EPOCH, no random ids). HKIM_SOURCE_REPO (default: git's origin,
# else https://github.com/hkim/hkimgen) and HKIM_BUILDER_ID name the source and the builder.
# Prints the reference and the manifest digest, and how to publish it and pin the bundle to it
# (`hkimgen render --wrapper-digest`; README: "Publishing and mirroring the wrapper image").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-build/image}
die() { echo "build-image: error: $*" >&2; exit 1; }
for tool in umoci skopeo tar readelf strip; do
  command -v "$tool" > /dev/null || die "$tool is missing; run: bash scripts/setup.sh"
done

version=$(sed -n 's/^project(hkimgen VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[[ -n $version ]] || die "no project(hkimgen VERSION ...) in CMakeLists.txt"
if [[ -n ${HKIM_SOURCE_COMMIT:-} ]]; then
  commit=$HKIM_SOURCE_COMMIT
elif commit=$(git rev-parse HEAD 2> /dev/null); then
  # A tree with changes to tracked files is not the commit: say so in the label.
  git diff --quiet HEAD -- 2> /dev/null || commit="$commit-dirty"
else
  die "not a git checkout: set HKIM_SOURCE_COMMIT and SOURCE_DATE_EPOCH"
fi
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2> /dev/null || true)}
[[ $epoch =~ ^[0-9]+$ ]] || die "SOURCE_DATE_EPOCH='$epoch' is not a number of seconds"
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

# --- the programs ---------------------------------------------------------------------------
build=build/image-build
configure() {
  mkdir -p "$(dirname "$build")"  # a fresh clone has no build/ yet, and the log goes beside it
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHKIM_BUILD_GENERATOR=OFF \
    -DHKIM_BUILD_TESTS=OFF -DHKIM_BUILD_NCCL_CHECK=ON > "$build.configure.log" 2>&1 \
    || { cat "$build.configure.log" >&2; die "configuring $build failed"; }
}
if [[ -n ${HKIM_IMAGE_BINARIES:-} ]]; then
  bin=$HKIM_IMAGE_BINARIES
  programs_from="HKIM_IMAGE_BINARIES (prebuilt)"
else
  configure
  programs_from="$build (CMAKE_BUILD_TYPE=Release)"
  targets=(hkim-wrapper hkim-nccl-check)
  grep -q '^build wrapper/hkim-health:' "$build/build.ninja" && targets+=(hkim-health)
  cmake --build "$build" --target "${targets[@]}" >&2
  bin=$build/wrapper
fi
programs=()
for name in hkim-wrapper hkim-nccl-check hkim-health; do
  if [[ -x $bin/$name ]]; then
    programs+=("$bin/$name")
  elif [[ $name != hkim-health ]]; then
    die "$bin/$name is missing (hkim-nccl-check needs cuda.h and nccl.h at build time)"
  fi
done
bash tests/wrapper/glibc_floor_test.sh "${programs[@]}" > /dev/null \
  || die "a program breaks the glibc floor: bash tests/wrapper/glibc_floor_test.sh ${programs[*]}"

# --- the root file system -------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/hkim-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs
mkdir -p "$rootfs/hkim/bin" "$rootfs/lib/x86_64-linux-gnu" "$rootfs/lib64" "$rootfs/usr/share/doc"
for program in "${programs[@]}"; do
  strip --strip-all -o "$rootfs/hkim/bin/$(basename "$program")" "$program"
done

# The shared libraries the programs need, and theirs in turn, from this machine's glibc.
multiarch=/lib/x86_64-linux-gnu
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
declare -A shipped=()
queue=("${programs[@]}")
while ((${#queue[@]})); do
  file=${queue[0]}
  queue=("${queue[@]:1}")
  for soname in $(needed "$file"); do
    [[ -n ${shipped[$soname]:-} ]] && continue
    [[ -e $multiarch/$soname ]] || die "$soname (needed by $file) is not in $multiarch"
    shipped[$soname]=1
    cp -L "$multiarch/$soname" "$rootfs/lib/x86_64-linux-gnu/$soname"
    queue+=("$multiarch/$soname")
  done
done
# The programs' interpreter is /lib64/ld-linux-x86-64.so.2 (the x86-64 ABI's fixed path).
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$rootfs/lib64/ld-linux-x86-64.so.2"
packages=()
for package in libc6 libgcc-s1; do
  mkdir -p "$rootfs/usr/share/doc/$package"
  cp "/usr/share/doc/$package/copyright" "$rootfs/usr/share/doc/$package/copyright"
  packages+=("$package=$(dpkg-query -W -f='${Version}' "$package")")
done

# Fixed modes and times: the layer's bytes depend on nothing but the content.
find "$rootfs" -type d -exec chmod 0755 {} +
find "$rootfs" -type f -exec chmod 0644 {} +
chmod 0755 "$rootfs"/hkim/bin/* "$rootfs"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
find "$rootfs" -exec touch -h -d "@$epoch" {} +
(cd "$rootfs" && find . -mindepth 1 -maxdepth 1 -printf '%P\0' | LC_ALL=C sort -z) \
  | LC_ALL=C tar --create --file "$work/layer.tar" --directory "$rootfs" --null --files-from - \
      --sort=name --format=posix --numeric-owner --owner=0 --group=0 --mtime="@$epoch" \
      --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime

# --- the OCI image --------------------------------------------------------------------------
layout=$work/layout
image="$layout:$version"
umoci init --layout "$layout"
umoci new --image "$image"
umoci raw add-layer --image "$image" --history.created "$created" \
  --history.created_by "scripts/build-image.sh (hkimgen $version)" "$work/layer.tar"
labels=(
  "org.opencontainers.image.title=hkim-wrapper"
  "org.opencontainers.image.description=hkim-wrapper, hkim-nccl-check: installed into training pods by the init container (hkimgen)"
  "org.opencontainers.image.version=$version"
  "org.opencontainers.image.revision=$commit"
  "org.opencontainers.image.created=$created"
  "io.hkimgen.debian-packages=${packages[*]}"
)
label_args=()
for label in "${labels[@]}"; do label_args+=(--config.label "$label"); done
umoci config --image "$image" --no-history --created "$created" --os linux --architecture amd64 \
  --config.user 65534:65534 --config.workingdir / \
  --config.entrypoint /hkim/bin/hkim-wrapper --config.cmd=--help \
  --manifest.annotation "org.opencontainers.image.version=$version" \
  --manifest.annotation "org.opencontainers.image.revision=$commit" \
  --manifest.annotation "org.opencontainers.image.created=$created" \
  "${label_args[@]}"
umoci gc --layout "$layout"

mkdir -p "$out"
rm -f "$out/hkim-wrapper.spdx.json" "$out/hkim-wrapper.provenance.json"  # no stale statement
skopeo copy --quiet --preserve-digests "oci:$image" "oci:$out:$version"
digest=$(skopeo inspect --format '{{.Digest}}' "oci:$out:$version")

# --- SBOM and provenance ----------------------------------------------------------------------
sbom_tool=${HKIM_SBOM:-}
if [[ -z $sbom_tool ]]; then
  [[ -f $build/build.ninja ]] || configure
  cmake --build "$build" --target hkim-sbom >&2
  sbom_tool=$build/tools/sbom/hkim-sbom
fi
[[ -x $sbom_tool ]] || die "$sbom_tool is not an executable hkim-sbom"
repository=${HKIM_SOURCE_REPO:-$(git remote get-url origin 2> /dev/null || echo https://github.com/hkim/hkimgen)}
# The Debian package a shipped library comes from, by dpkg's own record.
owner_of() {
  local path=$multiarch/$1 owner
  owner=$(dpkg-query -S "$path" 2> /dev/null || dpkg-query -S "$(readlink -f "$path")" 2> /dev/null) \
    || die "dpkg knows no package for $path"
  owner=${owner%%:*}
  [[ " ${packages[*]%%=*} " == *" $owner "* ]] || die "$path comes from $owner, which the image does not list"
  echo "$owner"
}
# Each program's packages: those of its shared libraries, transitively.
closure_packages() {
  local -A seen=() owners=()
  local queue=("$1") file soname
  while ((${#queue[@]})); do
    file=${queue[0]} queue=("${queue[@]:1}")
    for soname in $(needed "$file"); do
      [[ -n ${seen[$soname]:-} ]] && continue
      seen[$soname]=1
      owners[$(owner_of "$soname")]=1
      queue+=("$multiarch/$soname")
    done
  done
  local list=$(printf '%s\n' "${!owners[@]}" | LC_ALL=C sort | paste -sd, -)
  echo "${list:--}"
}
sbom_args=(spdx -o "$work/hkim-wrapper.spdx.json" --name hkim-wrapper --version "$version"
  --commit "$commit" --repository "$repository" --created "$created")
for entry in "${packages[@]}"; do
  sbom_args+=(--package "${entry%%=*}" "${entry#*=}" "/usr/share/doc/${entry%%=*}/copyright")
done
for program in "${programs[@]}"; do
  sbom_args+=(--program "$(basename "$program")" "$(closure_packages "$program")")
done
(cd "$rootfs" && find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum) > "$work/sums"
while read -r sum path; do
  case $path in
    hkim/bin/*) owner=${path#hkim/bin/} ;;
    lib/x86_64-linux-gnu/*) owner=$(owner_of "${path#lib/x86_64-linux-gnu/}") ;;
    usr/share/doc/*/copyright) owner=${path#usr/share/doc/} owner=${owner%/copyright} ;;
    *) die "$path in the root file system has no known origin for the SBOM" ;;
  esac
  sbom_args+=(--file "$path" "$sum" "$owner")
done < "$work/sums"
sbom_args+=(--content-digest "$(sha256sum < "$work/sums" | cut -c1-64)")
"$sbom_tool" "${sbom_args[@]}" || die "hkim-sbom spdx failed"
provenance_args=(provenance -o "$work/hkim-wrapper.provenance.json" --layout "$out" --name hkim-wrapper
  --repository "$repository" --commit "$commit" --epoch "$epoch"
  --command "bash scripts/build-image.sh DIR (programs from $programs_from)"
  --build-type "https://github.com/hkim/hkimgen/blob/main/scripts/build-image.sh#v1"
  --builder-id "${HKIM_BUILDER_ID:-urn:hkimgen:builder:local}")
for entry in "${packages[@]}"; do provenance_args+=(--package "${entry%%=*}" "${entry#*=}"); done
"$sbom_tool" "${provenance_args[@]}" || die "hkim-sbom provenance failed"
# Both or neither: a failed generator leaves no half-stated image.
cp "$work/hkim-wrapper.spdx.json" "$work/hkim-wrapper.provenance.json" "$out/"
echo "oci:$out:$version $digest (commit $commit, SOURCE_DATE_EPOCH $epoch)"
echo "publish: skopeo copy --preserve-digests oci:$out:$version docker://REGISTRY/hkim-wrapper:$version"
echo "pin:     hkimgen render PROFILE -d DIR --wrapper-digest $digest"
echo "sbom:    $out/hkim-wrapper.spdx.json, $out/hkim-wrapper.provenance.json (unsigned; README: cosign)"
