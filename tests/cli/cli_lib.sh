#!/usr/bin/env bash
# What every CLI test file shares (sourced by cli_test.sh, user_path_test.sh, docs_test.sh): the
# arguments, a scratch folder, and running the built hkimgen with checks of its stdout, stderr
# and exit status. The sourcing file defines case_* functions and ends with cli_run_case.
set -u
HKIMGEN=$1
SRC=$2
CASE=$3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hkim-cli-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$SRC" || exit 2
B=profiles/barcelona-h100-cx7.yaml
OKE=profiles/oke-h100.yaml
FAILS=0
status='' out='' err=''  # set by run*; fail shows them once a command ran

# run ARGS...: runs hkimgen; sets $status, $out, $err.
run() {
  "$HKIMGEN" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  status=$?
  out=$(cat "$WORK/out")
  err=$(cat "$WORK/err")
}
# run_in TEXT ARGS...: the same with TEXT on stdin.
run_in() {
  local text=$1
  shift
  printf '%s' "$text" | "$HKIMGEN" "$@" >"$WORK/out" 2>"$WORK/err"
  status=$?
  out=$(cat "$WORK/out")
  err=$(cat "$WORK/err")
}
fail() {
  echo "FAIL [$CASE]: $*"
  if [[ -n $status ]]; then
    echo "  status=$status"
    echo "  stdout: ${out:0:1500}"
    echo "  stderr: ${err:0:1500}"
  fi
  FAILS=$((FAILS + 1))
}
expect_status() { [[ $status == "$1" ]] || fail "exit status $status, expected $1"; }
expect_out() { [[ $out == *"$1"* ]] || fail "stdout lacks: $1"; }
expect_err() { [[ $err == *"$1"* ]] || fail "stderr lacks: $1"; }
expect_no_out() { [[ $out != *"$1"* ]] || fail "stdout has: $1"; }
expect_no_err() { [[ $err != *"$1"* ]] || fail "stderr has: $1"; }
expect_err_empty() { [[ -z $err ]] || fail "stderr is not empty"; }
# run_at DIR ARGS...: run, from DIR.
run_at() {
  local dir=$1
  shift
  (cd "$dir" && "$HKIMGEN" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null)
  status=$?
  out=$(cat "$WORK/out")
  err=$(cat "$WORK/err")
}

# A copy of the Barcelona profile with one line replaced (sed expression), in $WORK.
variant() {
  sed "$1" "$B" >"$WORK/$2"
  echo "$WORK/$2"
}

# Runs the case named on the command line; a misspelt or removed case fails, not "ok" (ctest
# lists the cases from the files).
cli_run_case() {
  declare -F "case_$CASE" >/dev/null || { echo "$0: no case named $CASE" >&2; exit 2; }
  "case_$CASE"
  [[ $FAILS == 0 ]] || exit 1
  echo "ok: $CASE"
}
