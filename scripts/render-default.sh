#!/usr/bin/env bash
# Installs what is missing, builds hkimgen and renders the shipped default profile into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja
cmake --build build -j "$(nproc)" --target hkimgen
profile=${1:-profiles/barcelona-h100-cx7.yaml}
name=$(basename "$profile" .yaml)
./build/generator/hkimgen render "$profile" -d "out/$name"
echo "rendered $profile -> out/$name" >&2
