#!/usr/bin/env bash
# bench/fuzz/pack.sh DIR: packs what bench/fuzz/campaign.sh needs on a machine without the
# compilers into DIR/campaign.tgz: the programs scripts/fuzz.sh built (build-fuzz/fuzz/*_fuzzer,
# debug sections stripped: function names stay in the sanitizers' reports), their dictionaries
# (build-fuzz/dict/, with the schema's keys added here, where jq is), the committed corpora and
# the files the targets and fuzz.sh read (fuzz/, profiles/, schemas/, scripts/, the tests' seed
# folders, bench/fuzz/). There: `tar xzf campaign.tgz && bash bench/fuzz/campaign.sh ...`.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
build=${HKIM_FUZZ_BUILD:-build-fuzz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$build/fuzz" "$out"
for program in "$build"/fuzz/*_fuzzer; do
  strip --strip-debug -o "$stage/$build/fuzz/$(basename "$program")" "$program"
done
# The dictionaries as fuzz.sh makes them (its dictionary function, run without fuzzing).
targets=$(cd "$build/fuzz" && echo *_fuzzer)
bash -c "$(sed -n '/^dictionary() {/,/^}/p' scripts/fuzz.sh)
  build=$build
  for t in $targets; do dictionary \$t >/dev/null; done"
cp -r "$build/dict" "$stage/$build/"
tar cf - fuzz profiles schemas scripts bench/fuzz tests/generator/malformed \
  tests/generator/lint_cases tests/generator/cluster_check tests/generator/discover \
  wrapper/hkim_wrapper/fuzz/corpus | tar xf - -C "$stage"
tar czf "$out/campaign.tgz" -C "$stage" .
du -h "$out/campaign.tgz"
