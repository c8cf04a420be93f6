#!/usr/bin/env bash
# Lists the functions longer than the style limit (80 lines, ../shared/STYLE.md), longest first.
# The counting is clang-tidy's readability-function-size check, which reads the AST (lambdas
# count with the function that holds them), so braces in strings or macros cannot fool it.
#   scripts/long-functions.sh [-p BUILD_DIR] [-n LINES] [-j JOBS] [FILE_OR_FOLDER...]
# Reads only the .cc files in BUILD_DIR/compile_commands.json (default build-dev), under the
# given files or folders (default: the whole repository). Prints `file:line: name: N lines`;
# exits 1 when it lists any, 0 when none, 2 when it cannot run.
set -euo pipefail
build=build-dev limit=80 jobs=2
while getopts "p:n:j:h" opt; do
  case $opt in
    p) build=$OPTARG ;;
    n) limit=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
[[ -n $tidy ]] || { echo "long-functions.sh: clang-tidy not found (apt-get install clang-tidy)" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] ||
  { echo "long-functions.sh: no $build/compile_commands.json; configure the build first (-p BUILD_DIR)" >&2; exit 2; }

# The compiled .cc files under the arguments, each once, as absolute paths.
files=$(python3 - "$build/compile_commands.json" "${@:-.}" <<'PY'
import json, os, sys
roots = [os.path.realpath(p) for p in sys.argv[2:]]
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    if path.endswith(".cc") and path not in seen and any(
            path == r or path.startswith(r + os.sep) for r in roots):
        seen.add(path)
        print(path)
PY
)
[[ -n $files ]] || { echo "long-functions.sh: no compiled .cc file under ${*:-.}" >&2; exit 2; }

config="{CheckOptions: [{key: readability-function-size.LineThreshold, value: $limit}]}"
# clang-tidy prints a warning naming the function, then a note with its length; pair them. A file
# it cannot parse is named on stderr (its functions go unchecked) and the listing goes on.
# shellcheck disable=SC2016  # $0..$@ expand in the bash that xargs starts, not here
found=$(printf '%s\n' "$files" |
  xargs -P "$jobs" -n 4 nice -n 5 bash -c '"$0" -p "$1" --quiet -checks="-*,readability-function-size" \
      -config="$2" "${@:3}" 2>/dev/null ||
    echo "long-functions.sh: clang-tidy could not read all of: ${*:3}" >&2' \
    "$tidy" "$build" "$config" |
  awk -v root="$PWD/" '
    /warning: function .* exceeds recommended size/ {
      split($0, at, ":"); file = at[1]; line = at[2]
      name = $0; sub(/.*function \047/, "", name); sub(/\047 exceeds.*/, "", name)
    }
    / note: [0-9]+ lines including whitespace/ && name != "" {
      n = $0; sub(/.* note: /, "", n); sub(/ lines.*/, "", n)
      if (index(file, root) == 1) file = substr(file, length(root) + 1)
      if (!((file ":" line) in done)) print n "\t" file ":" line ": " name ": " n " lines"
      done[file ":" line] = 1; name = ""
    }' | sort -t$'\t' -k1,1nr -k2 | cut -f2-)
[[ -z $found ]] && exit 0
printf '%s\n' "$found"
exit 1
