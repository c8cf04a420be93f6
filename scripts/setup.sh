#!/usr/bin/env bash
# Installs hkimgen's build and test dependencies from Debian's packages.
# Idempotent: packages already present are skipped, so a warm machine pays nothing.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  # scripts/fuzz.sh: clang++ and the libFuzzer/ASan/UBSan runtimes (libclang-rt-14-dev is only
  # recommended by libclang-common-14-dev, which --no-install-recommends below would skip)
  clang libclang-rt-14-dev
  libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libvalijson-dev libkainjow-mustache-dev
  libpcre2-dev  # the schema's patterns (generator/schema/pattern.h)
  libgtest-dev libgmock-dev libbenchmark-dev
  libibverbs-dev rdma-core
  libboost-dev libssl-dev
  hyperfine
  jq bsdutils  # tests/cli: JSON checks, `script` for a terminal (colour)
  umoci skopeo  # the wrapper image: scripts/build-image.sh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present" >&2
fi
