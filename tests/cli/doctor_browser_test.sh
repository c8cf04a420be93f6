#!/usr/bin/env bash
# `hkimgen doctor --html` in a real browser: headless Chromium loads the pages rendered from the
# shipped sample logs (docs/samples/), dumps the DOM it built and takes a screenshot. The test
# checks the text a reader sees (node names, FAIL/PASS, the suspect rail, the busy night, with a
# nodes export the RdmaFabric condition, its age and a stale one shown Unknown, the error
# counters' trend over the in-pod checks' reads) and
# that the screenshot is a PNG of some size. Skipped (exit 77) where Chromium is not installed:
# Debian's `chromium` is a few hundred MB, so scripts/setup.sh does not install it.
# Usage: doctor_browser_test.sh HKIMGEN SOURCE_DIR [SHOT.png]
set -euo pipefail
hkimgen=$1 src=$2 keep=${3:-}

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "SKIP: chromium is not installed (apt-get install chromium)" >&2
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# browse PAGE: the DOM Chromium built from PAGE on stdout, its screenshot in PAGE.png.
browse() {
  # A profile of its own (no state from the user's), no sandbox (containers, root in CI).
  timeout 120 "$browser" --headless --disable-gpu --no-sandbox --user-data-dir="$work/profile" \
    --no-first-run --hide-scrollbars --window-size=1280,1600 \
    --screenshot="$1.png" --dump-dom "file://$1" 2>"$1.log" || {
    cat "$1.log" >&2
    fail "chromium could not load $1"
  }
}

# The text of a dumped DOM, tags dropped and whitespace folded (what a reader sees, in order).
text_of() { sed -e 's/<[^>]*>/ /g' | tr -s ' \n\t' ' '; }

expect() {  # expect WHAT TEXT NEEDLE
  grep -qF -- "$3" <<<"$2" || fail "$1: the page does not show \"$3\""
}

# A gate that failed on one rail, then a periodic night that found a node busy.
status=0
"$hkimgen" doctor "$src/docs/samples/gate-failed.log" "$src/docs/samples/health-periodic.log" \
  --html "$work/failed.html" >/dev/null || status=$?
[[ $status == 1 ]] || fail "doctor exited $status on a failed gate (expected 1)"
dom=$(browse "$work/failed.html")
text=$(text_of <<<"$dom")
expect failed "$text" "Fabric health: 3 node(s)"
for node in moc-r4pcc02u17-nairr moc-r4pcc02u18-nairr moc-r4pcc02u25-nairr; do
  expect failed "$text" "$node FAIL"
done
expect failed "$text" "3 failing"
expect failed "$text" "Suspects"
expect failed "$text" "moc-r4pcc02u25-nairr mlx5_9 1.1 GB/s ≥ 37.5 GB/s NET/Socket"
expect failed "$text" "Suspect rail mlx5_9 : 1.1 GB/s against ≥ 37.5 GB/s via NET/Socket"
expect failed "$text" "Skipped as busy"
expect failed "$text" "moc-r4pcc02u17-nairr 1 2026-11-25T03:17:05Z 0s 1d 12h"
expect failed "$text" "4.3 / ≥ 150 GB/s (3%)"
grep -q '<script' <<<"$dom" && fail "the page runs a script"

# The same gate passing.
"$hkimgen" doctor "$src/docs/samples/gate-passed.log" --html "$work/passed.html" >/dev/null ||
  fail "doctor failed on a passed gate"
text=$(browse "$work/passed.html" | text_of)
for node in moc-r4pcc02u17-nairr moc-r4pcc02u18-nairr moc-r4pcc02u25-nairr; do
  expect passed "$text" "$node PASS"
done
expect passed "$text" "194.6 / ≥ 150 GB/s (130%)"
grep -qF "FAIL" <<<"$text" && fail "passed: the page shows FAIL"

# With the nodes' RdmaFabric conditions from an export: one True (a rail's counter), one False,
# one whose heartbeat is older than the interval (written False, shown Unknown: stale); and two
# earlier in-pod runs whose summaries carry the error counters that moved.
status=0
"$hkimgen" doctor "$src/docs/samples/gate-failed.log" "$src/docs/samples/health-periodic.log" \
  "$src/docs/samples/pod-counters.log" --cluster "$src/docs/samples/nodes-fabric.json" \
  --html "$work/conditions.html" >/dev/null ||
  status=$?
[[ $status == 1 ]] || fail "doctor exited $status with conditions (expected 1)"
text=$(browse "$work/conditions.html" | text_of)
expect conditions "$text" "1 with RdmaFabric True"
expect conditions "$text" "1 with RdmaFabric Unknown (stale)"
expect conditions "$text" "newest heartbeat of the nodes' RdmaFabric conditions (2026-11-25T03:19:00Z)"
expect conditions "$text" "RdmaFabric"
expect conditions "$text" "- mlx5_9 1.1/37.5 GB/s True for 4h 39m"
expect conditions "$text" "- False for 4d 17h"
expect conditions "$text" "- Unknown (stale) for 4d 17h"
expect conditions "$text" "Node condition RdmaFabric: True , reason RdmaFabricHasIssues, changed 4h 39m before the newest time, heartbeat 0s before it: links: rail mlx5_9 port 1: symbol_error +150 in 3600 s (max 120)"
expect conditions "$text" "Node condition RdmaFabric: Unknown (stale: written False, last heartbeat 2h 14m before the newest time; a writer posts every 5m)"
# The error counters the in-pod checks read, over two runs: a rail whose symbol errors rise.
expect counters "$text" "1 node(s) whose error counters moved during a check"
expect counters "$text" "mlx5_9/1 ens9f1v0 link_downed 0, +1 rising"
expect counters "$text" "mlx5_9/1 ens9f1v0 symbol_error +3, +150 rising"
expect counters "$text" "2 read(s), 2026-11-22T08:00:00Z to 2026-11-23T10:00:00Z; none moved"
grep -qF "Node condition RdmaFabric: False" <<<"$text" ||
  fail "conditions: the fresh False condition is not shown as False"

for shot in "$work/failed.html.png" "$work/passed.html.png" "$work/conditions.html.png"; do
  [[ -s $shot ]] || fail "no screenshot $shot"
  [[ $(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    fail "$shot is not a PNG"
  (( $(stat -c %s "$shot") > 20000 )) || fail "$shot is too small to show the page"
done
[[ -n $keep ]] && cp "$work/failed.html.png" "$keep"
echo "ok: chromium showed the three pages"
