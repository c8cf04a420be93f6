#!/usr/bin/env bash
# The documentation as users meet it: every command in README.md and docs/*.md runs
# as written, and the CLI reference is the binary's --help. Usage: docs_test.sh HKIMGEN
# SOURCE_DIR CASE (ctest runs each CASE).
#
# Commands are the lines of ```bash and ```sh blocks (a line ending in `\` continues). Each file's
# blocks run in order, in one shell, in a scratch git repository holding a copy of profiles/,
# out/ and docs/samples/, with the real hkimgen on PATH. The cluster-side tools (oc, kubectl,
# argocd, skopeo, cosign, oras, oc-mirror) are stand-ins (tests/cli/docs_tools/): they answer
# from fixtures (a cluster export, the sample health logs, a digest) so that the hkimgen commands
# after them run on real input; what they would do to a cluster is not tested here. A command
# must exit 0, unless its comment says `exits N`. `bash scripts/X.sh` is not run (it installs
# packages and builds; .ci/run, the image tests and this suite run those scripts): the script
# must exist.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# The documents whose commands must run: the front page and the user guide.
doc_files() {
  echo README.md
  ls docs/*.md
}

# commands FILE: one logical command per line (continuations joined; a here-document kept whole,
# its lines joined by a NUL-free marker that run_file turns back into newlines), from the shell
# blocks, fenced at any indentation (a block inside a list item too).
commands() {
  awk '
    /^[ \t]*```(bash|sh)[ \t]*$/ { inside = 1; match($0, /^[ \t]*/); indent = RLENGTH; next }
    /^[ \t]*```/ { inside = 0; next }
    !inside { next }
    {
      line = substr($0, indent + 1)
      if (heredoc != "") {
        acc = acc "\x1f" line
        if (line == heredoc) { print acc; acc = ""; heredoc = "" }
        next
      }
      if (line ~ /\\$/) { acc = acc substr(line, 1, length(line) - 1); next }
      acc = acc line
      if (acc ~ /^[ \t]*(#.*)?$/) { acc = ""; next }
      if (match(acc, /<<-?[ ]*'"'"'?[A-Z]+'"'"'?/)) {
        heredoc = substr(acc, RSTART, RLENGTH)
        gsub(/[<'"'"' -]/, "", heredoc)
        next
      }
      print acc
      acc = ""
    }' "$1"
}

# A scratch repository: what the docs' commands read and write, and a remote to push to.
make_repo() {
  local repo=$1
  mkdir -p "$repo" "$WORK/bin"
  cp -r profiles out "$repo/"
  mkdir -p "$repo/docs" "$repo/scripts"
  cp -r docs/samples "$repo/docs/" 2>/dev/null
  cp scripts/*.sh "$repo/scripts/"
  git -C "$repo" init -q -b main
  git -C "$repo" -c user.name=t -c user.email=t@t add -A
  git -C "$repo" -c user.name=t -c user.email=t@t commit -q -m start
  git init -q --bare "$repo.origin.git"
  git -C "$repo" remote add origin "$repo.origin.git"
}

# --- Syncs: what the docs asked argocd to sync, against the bundles they rendered ---
# bundle_applications DIR: the Applications the bundle in DIR creates that do not sync
# themselves (no `automated:` in apps/*.yaml), in the order they sync: the parent's sync wave of
# each, then the name (the order the bundle's README states).
bundle_applications() {
  local file
  for file in "$1"/apps/*.yaml; do
    grep -q '^    automated:' "$file" && continue
    awk '/^metadata:/ { m = 1 } m && /^  name: / { name = $2 }
         /argocd.argoproj.io\/sync-wave:/ { gsub(/"/, "", $2); wave = $2 }
         END { print wave, name }' "$file"
  done | sort -k1,1n -k2,2 | cut -d' ' -f2
}

# check_syncs DOC REPO: each `argocd app sync PARENT` of a bundle the docs rendered (a folder of
# REPO whose application.yaml names PARENT) is followed, in the calls the stand-in argocd
# recorded, by a sync of every one of its Applications that waits for a person, in their order.
check_syncs() {
  local doc=$1 repo=$2 log=$2.argocd parent app_file dir expected actual
  [[ -f $log ]] || return 0
  for parent in $(awk '$1 == "app" && $2 == "sync" { print $3 }' "$log"); do
    app_file=$(grep -lx "  name: $parent" "$repo"/*/*/application.yaml "$repo"/*/application.yaml 2>/dev/null | head -n 1)
    [[ -n $app_file ]] || continue  # a child Application, checked with its parent
    dir=$(dirname "$app_file")
    expected=$(bundle_applications "$dir")
    # The syncs after the parent's, of this bundle's Applications.
    actual=$(awk -v parent="$parent" '$1 == "app" && $2 == "sync" {
               if ($3 == parent) { on = 1; next } if (on) print $3 }' "$log" |
             grep -xF -f <(bundle_applications "$dir"; echo "$parent") | grep -vx "$parent")
    [[ $actual == "$expected" ]] ||
      fail "$doc: after \`argocd app sync $parent\` the docs sync [$(echo $actual)]; the bundle ${dir#"$repo"/} needs [$(echo $expected)] (every Application that does not sync itself, in its order)"
  done
}
# --- end of syncs ---

case_docs_commands_run() {
  ln -sf "$HKIMGEN" "$WORK/bin/hkimgen" 2>/dev/null || { mkdir -p "$WORK/bin" && ln -sf "$HKIMGEN" "$WORK/bin/hkimgen"; }
  local tool
  for tool in oc kubectl argocd skopeo cosign oras oc-mirror; do
    ln -sf "$SRC/tests/cli/docs_tools/cluster-tool.sh" "$WORK/bin/$tool"
  done
  local file total=0
  while IFS= read -r file; do
    local repo=$WORK/$(echo "$file" | tr '/.' '__')
    make_repo "$repo"
    local n=0 line expect
    while IFS= read -r line; do
      n=$((n + 1))
      total=$((total + 1))
      expect=0
      [[ $line =~ \#.*exits\ ([0-9]+) ]] && expect=${BASH_REMATCH[1]}
      if [[ $line =~ ^bash\ (scripts/[a-z-]+\.sh) ]]; then
        [[ -f $SRC/${BASH_REMATCH[1]} ]] || fail "$file: no such script: $line"
        # What the commands after build-image.sh read: a stand-in layout (the real one is
        # tests/image/image_test.sh's).
        [[ ${BASH_REMATCH[1]} == scripts/build-image.sh ]] &&
          printf '%s\n' 'mkdir -p build/image && echo "{}" > build/image/hkim-wrapper.spdx.json && echo "{\"predicate\": {}}" > build/image/hkim-wrapper.provenance.json' >>"$repo.script"
        continue
      fi
      # One shell per file, so that variables and files carry from one command to the next.
      printf '%s\n' "${line//$'\x1f'/$'\n'}" >>"$repo.script"
      printf '__s=$?; [[ $__s == %s ]] || { echo "exit $__s, expected %s: %q" >&2; exit 1; }\n' \
        "$expect" "$expect" "$line" >>"$repo.script"
    done < <(commands "$file")
    [[ -f $repo.script ]] || continue
    (cd "$repo" && PATH="$WORK/bin:$PATH" HKIM_DOCS_FIXTURES="$SRC/tests/cli/docs_tools" \
      HKIM_DOCS_ARGOCD_LOG="$repo.argocd" \
      GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t \
      bash -o pipefail "$repo.script" >"$repo.out" 2>"$repo.err" </dev/null)
    if [[ $? != 0 ]]; then
      fail "$file: a command failed: $(tail -n 1 "$repo.err")"
      tail -n 30 "$repo.err" | sed 's/^/  | /'
    fi
    check_syncs "$file" "$repo"
  done < <(doc_files)
  [[ $total -ge 40 ]] || fail "found only $total commands in README.md and docs/"
  # README's path syncs the parents of both of its bundles (OpenShift's and OKE's), which
  # check_syncs followed.
  local parent
  for parent in my-cluster oke-prod; do
    grep -qx "app sync $parent" "$WORK/README_md.argocd" 2>/dev/null ||
      fail "README.md's path does not run \`argocd app sync $parent\`"
  done
}

case_readme_keeps_the_two_setup_commands() {
  # CI runs README's test command; a fresh machine needs both.
  local setup
  setup=$(sed -n '/^## Set up/,/^## /p' README.md | sed -n '/^```bash$/,/^```$/p' |
    grep -v '^```' | grep -v '^#' | grep -v '^$')
  [[ $setup == $'bash scripts/render-default.sh\nbash scripts/test.sh' ]] ||
    fail "README's set-up block is not the two commands: $setup"
  grep -qx 'bash scripts/test.sh' .ci/run || fail ".ci/run does not run README's test command"
}

# The dotted paths of a starter's lines marked CHANGE (YAML block style, as init writes it).
change_paths() {
  awk '
    { match($0, /^ */); indent = RLENGTH; line = substr($0, indent + 1) }
    line == "" || line ~ /^#/ { next }
    line !~ /^- / {
      key = line; sub(/:.*/, "", key)
      while (depth > 0 && indents[depth] >= indent) depth--
      indents[++depth] = indent; keys[depth] = key
    }
    /# CHANGE/ { path = keys[1]; for (i = 2; i <= depth; i++) path = path "." keys[i]; print path }'
}

case_readme_change_list_is_what_the_starter_marks() {
  # README step 2 lists exactly the lines the starter marks CHANGE.
  local marked listed
  marked=$( { "$HKIMGEN" init --platform openshift --shape barcelona-h100-cx7 | change_paths
              "$HKIMGEN" init --platform oke --shape BM.GPU.H100.8 | change_paths; } | sort -u)
  listed=$(sed -n '/^\*\*2\. Edit\*\*/,/^Then check\|Then check/p' README.md |
    sed 's/Then check.*//' | grep -o '`[a-z_.]*`' | tr -d '`' | grep -vx 'CHANGE' | sort -u)
  [[ -n $marked ]] || fail "the starters mark no line CHANGE"
  [[ $marked == "$listed" ]] || fail "README step 2 lists: $(echo $listed); the starters mark: $(echo $marked)"
}

case_cli_reference_is_current() {
  bash scripts/cli-reference.sh "$HKIMGEN" >"$WORK/cli-reference.md" ||
    fail "scripts/cli-reference.sh failed"
  if ! diff -u docs/cli-reference.md "$WORK/cli-reference.md" >"$WORK/diff"; then
    fail "docs/cli-reference.md is stale; fix: bash scripts/cli-reference.sh build/generator/hkimgen > docs/cli-reference.md"
    head -n 40 "$WORK/diff"
  fi
  # Every command hkimgen lists has its section.
  local command
  for command in $("$HKIMGEN" --help | awk '/^Subcommands:/ { on = 1; next } on && !NF { exit } on { print $1 }'); do
    grep -q "^## hkimgen $command\$" docs/cli-reference.md || fail "no section for $command"
  done
}

cli_run_case
