#!/usr/bin/env bash
# The command line as users meet it: each case runs the built hkimgen and checks its stdout,
# stderr and exit status. Usage: cli_test.sh HKIMGEN SOURCE_DIR CASE (ctest runs each CASE).
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

case_output_flag_is_the_format() {
  (cd "$WORK" && "$HKIMGEN" render "$SRC/$B" -o yaml >out.yaml 2>err.txt)
  status=$?; out=$(head -c 300 "$WORK/out.yaml"); err=$(cat "$WORK/err.txt")
  expect_status 0
  expect_out "# Source: templates/"
  [[ ! -e $WORK/yaml ]] || fail "-o yaml created a folder named yaml"
  run render "$B" -o json
  expect_status 0
  expect_err_empty
  jq -e '.command == "render" and .ok and (.result.files | length) > 10 and
         (.result.files[0].object.kind | length) > 0' <<<"$out" >/dev/null || fail "render -o json"
  run render "$B" -d "$WORK/b"
  expect_status 0
  [[ -f $WORK/b/kustomization.yaml ]] || fail "-d DIR did not write the bundle"
}

# Validate and lint refuse what render would (closure), and a set checks what a
# profile leaves to an operator it shares against the owner's bundle.
case_validate_and_lint_check_closure() {
  # The VF DaemonSets left to the nodes' image provide what the bundle's would (the catalogue's
  # vf_config row: the rails' sriov and rdma CNI, the exclusive netns mode): nothing missing.
  run lint "$OKE" --set operators.vf_config.install=preinstalled
  expect_status 0
  expect_no_out "[closure."
  run validate "$OKE" profiles/oke-a100.yaml \
    --set 'node_shape.tolerations[1].key=dedicated,node_shape.tolerations[1].operator=Exists'
  expect_status 0  # both tolerate it: the owner's agents serve the A100 pool
  sed 's/^  tolerations:$/  tolerations:\n    - key: dedicated\n      operator: Exists/' \
    "$SRC/profiles/oke-a100.yaml" >"$WORK/oke-a100.yaml"
  run validate "$OKE" "$WORK/oke-a100.yaml"
  expect_status 1
  expect_out "oke-a100.yaml:25:7: error: the workload tolerates taint dedicated"
  expect_out "node agent NicClusterPolicy nic-cluster-policy (wave 1) of $OKE"
  expect_out "[closure.toleration]"
}

case_images_lists_every_pulled_image() {
  run images "$OKE"
  expect_status 0
  # (stderr: only the notes of the profile's accepted lint.image-digest)
  expect_no_err ": warning: "
  expect_out "quay.io/hkim/hkim-wrapper:"
  expect_out "nvcr.io/nvidia/mellanox/sriov-network-device-plugin:"
  expect_out "# chart: https://helm.ngc.nvidia.com/nvidia gpu-operator "
  [[ $(grep -v '^#' <<<"$out" | sort -u) == "$(grep -v '^#' <<<"$out")" ]] || fail "not sorted/unique"
  # Barcelona's operators run already (preinstalled); installed by the bundle, OLM's come in.
  local olm="operators.sriov_network_operator.install=managed,operators.nfd.install=managed"
  olm+=",operators.gpu_operator.install=managed"
  run images "$B" -o json --set "$olm"
  expect_status 0
  jq -e '.command == "images" and (.result.olm_packages | map(.package) | index("sriov-network-operator"))
         and (.result.images[] | select(.image | startswith("registry.redhat.io/openshift4/"))
              | .origins[0].object == "NodeFeatureDiscovery/openshift-nfd/nfd-instance")' \
    <<<"$out" >/dev/null || fail "images -o json"
  run images "$B" -o imageset --set "$olm"
  expect_status 0
  expect_out "apiVersion: mirror.openshift.io/v2alpha1"
  expect_out "catalog: registry.redhat.io/redhat/certified-operator-index:v4."
  # A mirror: every image under it; a reference it cannot rewrite is an error naming it.
  run images "$OKE" --set images.mirror=mirror.example.com,images.chart_mirror=https://c.example.com/x
  expect_status 0
  [[ -z $(grep -v '^#' <<<"$out" | grep -v '^mirror.example.com/') ]] || fail "image outside the mirror"
  # The charts' own operands too, through their values (chart_images.cc).
  expect_out "mirror.example.com/nvidia/gpu-operator:v25.10.1"
  expect_out "mirror.example.com/nfd/node-feature-discovery:v0.18.2"
  expect_out "mirror.example.com/nvidia/cloud-native/network-operator:v25.10.0"
  run images "$OKE" --set images.mirror=mirror.example.com
  expect_status 1
  expect_err "[model.image-mirror]"
  expect_err "the chart gpu-operator"
  run images "$OKE" --set images.mirror=Mirror.example.com
  expect_status 1
  expect_err "fix: write the mirror as HOST[:PORT][/PATH]"
}

case_old_output_spelling_warns_or_is_refused() {
  run render "$B" -o "$WORK/legacy"
  expect_status 0
  expect_err "warning: -o $WORK/legacy names a folder: that spelling is deprecated"
  expect_err "fix: write -d $WORK/legacy"
  [[ -f $WORK/legacy/kustomization.yaml ]] || fail "the deprecated -o DIR did not write"
  (cd "$WORK" && "$HKIMGEN" render "$SRC/$B" -o bundle >out.txt 2>err.txt)
  status=$?; out=$(cat "$WORK/out.txt"); err=$(cat "$WORK/err.txt")
  expect_status 1
  expect_err "-o 'bundle' is not an output format (yaml, json) nor clearly a folder"
  expect_err "for the folder write -d bundle"
  [[ ! -e $WORK/bundle ]] || fail "the ambiguous -o bundle created a folder"
  (cd "$WORK" && "$HKIMGEN" init --platform oke --shape BM.GPU.H100.8 --output starter >out.txt 2>err.txt)
  status=$?; out=$(cat "$WORK/out.txt"); err=$(cat "$WORK/err.txt")
  expect_status 1
  expect_err "for the file write --output-file starter"
  [[ ! -e $WORK/starter ]] || fail "init --output starter wrote a file named starter"
  (cd "$WORK" && "$HKIMGEN" init --platform oke --shape BM.GPU.H100.8 --output json >out.txt 2>err.txt)
  status=$?; out=$(cat "$WORK/out.txt"); err=$(cat "$WORK/err.txt")
  expect_status 0  # json is init's format now: the report, no file named json
  [[ ! -e $WORK/json ]] || fail "init --output json wrote a file named json"
  run init --platform oke --shape BM.GPU.H100.8 -o "$WORK/p.yaml"
  expect_status 0
  expect_err "names a file: that spelling is deprecated"
  [[ -f $WORK/p.yaml ]] || fail "init -o FILE.yaml did not write"
  run diff "$B" -o out/barcelona-h100-cx7
  expect_status 0
  expect_err "fix: write -d out/barcelona-h100-cx7"
}

case_command_list_help_and_unknown_commands() {
  run
  expect_status 0
  expect_out "Usage: hkimgen"
  for c in render validate lint explain diff init schema completion version help; do
    expect_out "  $c"
  done
  run help
  expect_status 0
  expect_out "completion"
  run help render
  expect_status 0
  expect_out "Usage: hkimgen render"
  expect_out "--output-dir"
  run rendr "$B"
  expect_status 1
  expect_err "unknown command 'rendr'"
  expect_err "did you mean \`hkimgen render\`?"
  run help valdate
  expect_status 1
  expect_err "did you mean \`hkimgen validate\`?"
  run render --help
  expect_no_out "/build/"
  expect_out "Usage: hkimgen render"
}

case_version_names_version_commit_and_schema() {
  local version
  version=$(sed -n 's/^project(hkimgen VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
  run --version
  expect_status 0
  expect_out "hkimgen $version"
  [[ $out =~ commit:\ ([0-9a-f]{12}|unknown) ]] || fail "no commit line"
  expect_out "schema: sha256:$(sha256sum schemas/profile.schema.json | cut -c1-64)"
  local text=$out
  run version
  [[ $out == "$text" ]] || fail "version and --version differ"
  run version -o json
  expect_status 0
  jq -e --arg v "$version" '.command == "version" and .result.version == $v' <<<"$out" >/dev/null ||
    fail "version -o json"
}

case_completion_scripts() {
  run completion bash
  expect_status 0
  "$HKIMGEN" completion bash >"$WORK/c.bash"
  complete_words() {  # the words bash offers for the command line "$@" (last word = cursor)
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
             _hkimgen; printf "%s\n" "${COMPREPLY[@]}"' _ "$WORK/c.bash" "$@"
  }
  [[ $(complete_words hkimgen ren) == render ]] || fail "sub-command completion"
  [[ $(complete_words hkimgen init --shape BM.GPU.H) == *BM.GPU.H100.8* ]] || fail "shapes"
  [[ $(complete_words hkimgen init --platform o) == *openshift* ]] || fail "platforms"
  [[ $(complete_words hkimgen lint P --allow lint.image-l) == lint.image-latest ]] || fail "rules"
  [[ $(complete_words hkimgen render P -o j) == json ]] || fail "render formats"
  [[ $(complete_words hkimgen render P --out) == *--output-dir* ]] || fail "flags"
  [[ $(complete_words hkimgen render P -- | grep -cx -- --help) == 1 ]] || fail "--help twice"
  [[ $(complete_words hkimgen explain "$B" network.rails\[0\].mtu) == *network.rails\[0\].mtu_bytes* ]] ||
    fail "explain paths"
  [[ $(complete_words hkimgen render P --set workload.repl) == workload.replicas= ]] ||
    fail "--set paths"
  run completion zsh
  expect_status 0
  expect_out "bashcompinit"
  run completion fish
  expect_status 0
  expect_out "complete -c hkimgen -n __fish_use_subcommand -a render"
  expect_out "-l shape -r -a 'BM.GPU"
  run completion tcsh
  expect_status 1
}

case_init_platform_defaults_and_checked_name() {
  run init --platform openshift --shape barcelona-h100-cx7 --name lab
  expect_status 0
  expect_out "argocd_namespace: openshift-gitops"
  run_in "$out" explain - gitops.argocd_namespace
  expect_out "openshift-gitops"
  local p
  p=$(variant '/argocd_namespace/d' no-ns.yaml)
  run explain "$p" gitops.argocd_namespace
  run render "$p" -o json
  jq -e '[.result.files[].object | select(.kind == "Application")][0].metadata.namespace ==
         "openshift-gitops"' <<<"$out" >/dev/null || fail "OpenShift default Argo CD namespace"
  run init --platform oke --shape BM.GPU.H100.8 --name My_Cluster
  expect_status 1
  expect_err "--name 'My_Cluster'"
  expect_err "[schema.pattern]"
  [[ -z $out ]] || fail "init wrote a starter for a bad name"
  run init --platform oke --shape BM.GPU.H100.8 --name 'x: y'
  expect_status 1
  expect_err "--name 'x: y'"
  run init --platform oke --shape BM.GPU.H100.8 --name 123
  expect_status 1
  expect_err "--name '123'"
}

case_explain_errors_where_set_does_and_warns_on_invalid() {
  run explain "$B" 'network.rails[9].mtu_bytes'
  expect_status 1
  expect_err "index 9 is past the end of 'network.rails', a list of 4"
  expect_no_out "9000"
  run validate "$B" --set 'network.rails[9].mtu_bytes=1'
  expect_status 1
  expect_err "" # --set reports on stdout via validate; its message names the index
  expect_out "index 9 is past the end"
  run explain "$B" workload.replicas --set workload.replicas=0
  expect_status 0
  expect_out "workload.replicas = 0"
  expect_err "warning: the profile does not validate (1 error"
  expect_err "[explain.invalid-profile]"
}

case_diff_exit_codes_and_missing_folder() {
  # A folder never written: the first render's plan, every file added.
  run diff "$B" -d "$WORK/nothing" --detailed-exitcode
  expect_status 2
  expect_err "$WORK/nothing: note: the folder does not exist yet: every file of the bundle is new [diff.new-dir]"
  expect_err "fix: write it with: hkimgen render $B -d $WORK/nothing"
  [[ ! -e $WORK/nothing ]] || fail "diff wrote the folder"
  run diff "$B" -d out/barcelona-h100-cx7 --detailed-exitcode
  expect_status 0
  run diff "$B" -d out/barcelona-h100-cx7 --set workload.replicas=3
  expect_status 0
  expect_out "~ "
  run diff "$B" -d out/barcelona-h100-cx7 --set workload.replicas=3 --detailed-exitcode
  expect_status 2
  run diff "$B" -d out/barcelona-h100-cx7 --set workload.replicas=zero --detailed-exitcode
  expect_status 1
}

case_diff_names_what_a_sync_does() {
  # A fresh OpenShift cluster's profile: its bundle renders the node objects (Barcelona's, which
  # describes a cluster that has them, does not).
  local p="$WORK/lab.yaml"
  "$HKIMGEN" init --platform openshift --shape barcelona-h100-cx7 --name lab \
    --repo-url https://github.com/lab/bundles.git --output-file "$p" >/dev/null 2>&1 || fail "init"
  run render "$p" -d "$WORK/b"
  expect_status 0
  # A file of the user's in the bundle is kept, never "removed".
  echo "kind: ConfigMap" >"$WORK/b/platform/mine.yaml"
  run diff "$p" -d "$WORK/b" --check
  expect_status 0
  expect_out "= kept platform/mine.yaml (yours: .hkimgen-bundle does not list it; render keeps it)"
  expect_no_out "removed"
  # The IOMMU MachineConfig leaves the bundle, but Argo CD leaves it on the cluster.
  run diff "$p" -d "$WORK/b" --set iommu.policy=already-configured
  expect_status 0
  expect_out "- removed nodes/20-machineconfig-99-worker-lab-iommu-passthrough.yaml"
  expect_out "note: left in place: Argo CD does not delete it (Prune=false, Delete=false)"
  # The NCCL environment reaches the pods through the checksum: a job restart.
  run diff "$p" -d "$WORK/b" --set nccl.debug=INFO
  expect_out "[job restart: every pod of the StatefulSet is replaced"
  expect_out "running pods read it at start only"
  # The GPUDirect mode rolls the GPU driver.
  run diff "$p" -d "$WORK/b" --set nccl.gpudirect=nvidia-peermem
  expect_out "(ClusterPolicy cluster-policy) [disruptive: driver roll:"
  # OLM cannot downgrade: an error at the value, and the plan still shows why.
  # (v25.3.4 declares OpenShift 4.14-4.19: the profile says 4.19 for it, lint.operator-release.)
  run diff "$p" -d "$WORK/b" --set operators.gpu_operator.version=v25.3.4 \
    --set operators.openshift_version='"4.19"'
  expect_status 1
  expect_err "--set:1:"
  expect_err "to the older v25.3"  # from the starter's release
  expect_err "[diff.operator-downgrade]"
  expect_out "[refused: the Subscription of gpu-operator-certified"
}

case_type_errors_say_what_to_write() {
  local p
  p=$(variant '0,/mtu_bytes: 9000/s//mtu_bytes: "9000"/' quoted.yaml)
  run validate "$p"
  expect_status 1
  expect_out "fix: write the number without quotes, e.g. mtu_bytes: 9000"
  p=$(variant 's/^  revision: main/  revision: 1.10/' revision.yaml)
  run validate "$p"
  expect_status 1
  expect_out 'fix: quote it: revision: "1.10"'
  p=$(variant 's/^  debug: .*/  debug: [1]/' list.yaml)
  run validate "$p" --set workload.replicas=true
  expect_status 1
  expect_out "fix: write an integer, e.g. replicas:"
}

case_network_values_are_parsed_as_addresses() {
  local p
  p=$(variant 's#range: 10.0.103.0/24#range: 10.0.300.0/24#' octet.yaml)
  run validate "$p"
  expect_status 1
  expect_out "the third number of '10.0.300.0', 300, is above 255"
  expect_out "[network.address]"
  expect_no_out "does not match the pattern"
  run validate "$B" --set 'network.rails[0].ipam.range=10.0.103.0/33'
  expect_out "the prefix length /33 is above 32 (an IPv4 network is /0 to /32) [network.prefix]"
  run validate "$B" --set 'network.rails[0].ipam.range=10.0.103.5/24'
  expect_status 1
  expect_out "'10.0.103.5/24' has host bits set: the network of that address and prefix is 10.0.103.0/24 [lint.host-bits]"
  run validate "$B" --set 'network.rails[0].ipam.gateway=10.0.99.1'
  expect_status 1
  expect_out "the gateway 10.0.99.1 is outside its subnet 10.0.103.0/24"
  expect_out "[lint.gateway-outside]"
  run validate "$B" --set 'network.rails[0].ipam.gateway=10.0.103.1'
  expect_status 0
}

case_io_errors_give_the_os_reason() {
  run validate "$WORK/none.yaml"
  expect_status 2
  expect_out "none.yaml: error: cannot read the profile: No such file or directory [io.read]"
  run render "$B" -f "$WORK/values.yaml"
  expect_status 2
  expect_err "values.yaml: error: cannot read the values file: No such file or directory [io.read]"
  # A folder is a set of profiles (a fleet): it needs -d, and must hold some.
  run render "$WORK" --check
  expect_err "several profiles (a fleet) need -d DIR with --check"
  mkdir -p "$WORK/empty-profiles"
  run render "$WORK/empty-profiles" -d "$WORK/fleet-out"
  expect_status 2
  expect_err "empty-profiles: error: the folder holds no profiles (*.yaml, *.yml) [io.read]"
  # (a missing folder is made: a file where one would be is the OS's refusal)
  : >"$WORK/a-file"
  run init --platform oke --shape BM.GPU.H100.8 --output-file "$WORK/a-file/dir/p.yaml"
  expect_status 2
  expect_err "cannot write the profile: cannot create the folder $WORK/a-file/dir: Not a directory"
}

case_json_is_one_document_on_stdout() {
  local bad
  bad=$(variant 's/^  revision: main/  revision: 1.10/' bad.yaml)
  for args in "render $B -o json" "render $bad -o json" "validate $B -o json" \
      "validate $bad -o json" "lint $B -o json" "lint --list-rules -o json" \
      "explain $B nccl.cross_nic -o json" "explain $B nope -o json" \
      "diff $B -d out/barcelona-h100-cx7 -o json" "diff $bad -d out/barcelona-h100-cx7 -o json" \
      "version -o json"; do
    # shellcheck disable=SC2086
    run $args
    [[ -z $err ]] || fail "$args: stderr not empty"
    jq -e 'has("command") and has("ok") and has("exit_code") and has("errors") and
           has("warnings") and (.diagnostics | type == "array") and has("result")' \
      <<<"$out" >/dev/null || fail "$args: not the one JSON shape"
    jq -e --argjson s "$status" '.exit_code == $s' <<<"$out" >/dev/null ||
      fail "$args: exit_code differs from the status"
  done
}

case_colour_on_terminals_only() {
  local bad
  bad=$(variant 's/^  revision: main/  revision: 1.10/' bad.yaml)
  out=$(TERM=xterm script -qec "$HKIMGEN render $bad" /dev/null)
  status=0; err=""
  [[ $out == *$'\033[1;31merror:'* ]] || fail "no colour on a terminal"
  out=$(NO_COLOR=1 TERM=xterm script -qec "$HKIMGEN render $bad" /dev/null)
  [[ $out != *$'\033['* ]] || fail "NO_COLOR ignored"
  out=$(TERM=xterm script -qec "$HKIMGEN render --no-color $bad" /dev/null)
  [[ $out != *$'\033['* ]] || fail "--no-color ignored"
  out=$(TERM=xterm script -qec "$HKIMGEN --no-color validate $bad" /dev/null)
  [[ $out != *$'\033['* ]] || fail "--no-color before the command ignored"
  run render "$bad"
  [[ $err != *$'\033['* ]] || fail "colour into a file"
}

case_accepted_warnings_are_shown_with_reason() {
  run validate "$B" --set workload.gpus_per_pod=2
  expect_status 0
  expect_out "warning:"
  expect_out "[lint.gpus-idle]"
  run lint "$B" --set workload.gpus_per_pod=2
  expect_status 1
  run lint "$B" --set workload.gpus_per_pod=2 --allow lint.gpus-idle
  expect_status 0
  expect_out "note: accepted (--allow): "
  expect_out "0 errors, 0 warnings"
  local p="$WORK/accepting.yaml"
  # (the shipped profile ends with its own accept_warnings list: one more item)
  { cat "$B"; printf '  - rule: lint.gpus-idle\n    reason: two jobs share a node\n'; } >"$p"
  run lint "$p" --set workload.gpus_per_pod=2
  expect_status 0
  expect_out "note: accepted (two jobs share a node): "
  run_in "$(cat "$p")" lint - --set workload.gpus_per_pod=2
  expect_status 0
  expect_out "note: accepted (two jobs share a node): "
  run validate "$B" --allow lint.no-such-rule
  expect_status 1
  expect_out "'lint.no-such-rule' is not a rule id [profile.accept-unknown-rule]"
  run validate "$B" --allow schema.type
  expect_status 1
  expect_out "[profile.accept-error]"
}

case_list_rules_names_every_rule_id_in_the_sources() {
  run lint --list-rules -o json
  expect_status 0
  jq -r '.result.rules[].id' <<<"$out" | sort -u >"$WORK/listed"
  # Every id a diagnostic can carry: rule strings in the generator's sources.
  grep -rhE '' generator | sed -E 's#(^|[[:space:]])//.*$##' | grep -oE '"(cli|closure|cluster|diff|images|discover|explain|fleet|io|layering|limit|lint|model|network|profile|render|schema|template|write|yaml)\.[a-zA-Z][a-zA-Z-]*"' \
      | tr -d '"' | grep -vE '\.(h|cc|yaml|json|md)$' | sort -u >"$WORK/used"
  local missing extra
  missing=$(comm -23 "$WORK/used" "$WORK/listed")
  extra=$(comm -13 "$WORK/used" "$WORK/listed")
  [[ -z $missing ]] || fail "ids used but not listed: $missing"
  [[ -z $extra ]] || fail "ids listed but never used: $extra"
  run lint --help
  expect_out "lint runs the checks validate runs, and adds two things"
}

case_profiles_of_one_cluster_are_checked_as_a_set() {
  # The OKE H100 and A100 profiles, both owning the platform, fight in one cluster.
  local old=tests/generator/cluster_sharing
  run lint "$old/old-oke-h100.yaml" "$old/old-oke-a100.yaml"
  expect_status 1
  expect_out "old-oke-a100.yaml:14:5: error: this profile and $old/old-oke-h100.yaml (namespaces[0] at $old/old-oke-h100.yaml:14:5)"
  expect_out "[lint.shared-cluster-object]"
  expect_out "NicClusterPolicy nic-cluster-policy"
  expect_out "set operators.network_operator.install: shared in the others"
  expect_no_out "old-oke-a100.yaml: valid"
  run validate "$old/old-oke-h100.yaml" "$old/old-oke-a100.yaml" -o json
  expect_status 1
  [[ $(jq -r '[.result.profiles[].valid] | join(",")' <<<"$out") == "true,false" ]] ||
    fail "the later profile of the pair is not marked invalid"
  # Each alone is fine; the shipped OKE set (one OKE cluster, oke-h100 owning the platform)
  # passes. (With Barcelona, on the same default destination, it does not.)
  run validate "$old/old-oke-a100.yaml"
  expect_status 0
  run validate profiles/oke-*.yaml
  expect_status 0
  expect_no_out "lint.shared-"
}

case_two_clusters_with_their_own_argo_cd_validate_together() {
  # One repository for an OpenShift and an OKE cluster, each synced by its own Argo CD (both at
  # Argo CD's own cluster): validate of both passes with a note; a fleet render refuses.
  local own
  own=$(variant 's#^  destination_server: .*#  destination_server: https://kubernetes.default.svc#' own.yaml)
  run validate "$own" "$OKE"
  expect_status 0
  expect_out "note: this oke profile and $own (openshift) sync into one Argo CD destination"
  expect_out "[lint.shared-destination-platform]"
  expect_out "$OKE: valid"
  run render "$own" "$OKE" -d "$WORK/fleet" --fleet-path fleet
  expect_status 1
  expect_err "error: this oke profile and $own (openshift)"
  [[ ! -e $WORK/fleet ]] || fail "a refused fleet render wrote $WORK/fleet"
}

case_an_unread_cluster_export_leaves_the_profiles_unjudged() {
  # A wrong --cluster path is an I/O failure: the profile is not called invalid for it.
  run validate "$OKE" --cluster "$WORK/no-such-export.json"
  expect_status 2
  expect_out "cannot read the cluster export"
  expect_out "$OKE: not judged (valid alone; the cluster export could not be read)"
  expect_no_out "$OKE: invalid"
  run validate "$OKE" --cluster "$WORK/no-such-export.json" -o json
  expect_status 2
  [[ $(jq -c '.result.profiles[0] | [.valid, .judged]' <<<"$out") == '[false,false]' ]] ||
    fail "-o json does not say the profile was not judged"
}

case_usage_errors_are_diagnostics_and_json() {
  # CLI11's own usage errors go through the diagnostics format and -o json too.
  run validate
  expect_status 1
  expect_err "error: PROFILE is required [cli.usage]"
  expect_err "fix: \`hkimgen validate --help\` lists its arguments"
  run init --platform aks --shape BM.GPU.H100.8
  expect_status 1
  expect_err "[cli.usage]"
  expect_err "aks"
  run completion powershell
  expect_status 1
  expect_err "[cli.usage]"
  run diff "$B"
  expect_status 1
  expect_err "error: -d DIR is required [cli.usage]"
  expect_err "fix: name the bundle folder to compare with"
  for args in "validate -o json" "init --platform aks --shape BM.GPU.H100.8 -o json" \
      "render --output json" "diff $B -o json" "render $B $OKE --cluster x.json -o json"; do
    # shellcheck disable=SC2086
    run $args
    expect_status 1
    expect_err_empty
    jq -e '.ok == false and .exit_code == 1 and .diagnostics[0].rule == "cli.usage"' \
      <<<"$out" >/dev/null || fail "$args: not one JSON report of the usage error"
  done
  # init and discover print one JSON document under -o json, the profile in its result.
  run init --platform oke --shape BM.GPU.H100.8 -o json
  expect_status 0
  expect_err_empty
  jq -e '.command == "init" and .ok and (.result.profile | startswith("# yaml-language-server"))' \
    <<<"$out" >/dev/null || fail "init -o json"
  run init --platform oke --shape BM.GPU.H100.8 --name Bad_Name -o json
  expect_status 1
  expect_err_empty
  jq -e '.ok == false and .diagnostics[0].rule == "schema.pattern" and .result == null' \
    <<<"$out" >/dev/null || fail "init -o json with a bad name"
  run discover tests/generator/discover/openshift-amd.json --name lab -o json
  expect_status 0
  expect_err_empty
  jq -e '.command == "discover" and .ok and (.result.profile | contains("name: lab"))' \
    <<<"$out" >/dev/null || fail "discover -o json"
}

case_render_refuses_a_folder_named_by_its_place() {
  # `-d .` is refused with its reason (write.refused, exit 1), as -d profiles is.
  local here
  mkdir -p "$WORK/cwd"
  here=$(cd "$WORK/cwd" && pwd -P)
  run_at "$WORK/cwd" render "$SRC/$B" -d .
  expect_status 1
  expect_err ".: error: not written: . holds the current directory ($here), which hkimgen never replaces [write.refused]"
  expect_err "fix: write the bundle to a folder of its own, e.g. -d out/<cluster>"
  [[ -z $(ls -A "$WORK/cwd") ]] || fail "render -d . wrote into the current directory"
  run render "$B" -d profiles
  expect_status 1
  expect_err "[write.refused]"
}

case_set_examples_of_the_reference_validate() {
  # The profile reference's own `--set 'nccl.ib_hca==mlx5_0\,mlx5_1'` example validates.
  local examples value n=0
  examples=$(grep '^`--set` paths' docs/profile-reference.md |
    grep -o "\`--set '[^']*'\`\|\`--set [^\` ']*\`" | sed "s/^\`--set //; s/\`\$//; s/^'//; s/'\$//")
  while IFS= read -r value; do
    [[ -n $value ]] || continue
    n=$((n + 1))
    run validate "$B" --set "$value"
    [[ $status == 0 ]] || fail "the reference's example --set '$value' does not validate"
  done <<<"$examples"
  [[ $n -ge 3 ]] || fail "found only $n --set examples in docs/profile-reference.md"
}

case_enum_values_get_did_you_mean() {
  # nccl.debug: WARNING gets "did you mean 'WARN'?", not the description as its fix.
  run validate "$B" --set nccl.debug=WARNING
  expect_status 1
  expect_out '"WARNING" is not one of: VERSION, WARN, INFO, TRACE [schema.enum]'
  expect_out "fix: did you mean 'WARN'?"
}

case_validate_gives_every_profile_a_verdict_line() {
  # Every profile gets its verdict line, in order, the invalid one too.
  local bad
  bad=$(variant 's/^  revision: main/  revision: 1.10/' bad.yaml)
  run validate "$bad" "$OKE"
  expect_status 1
  [[ $(tail -n 2 <<<"$out") == "$bad: invalid"$'\n'"$OKE: valid" ]] ||
    fail "the verdict lines are not one per profile in order"
  run validate "$OKE" "$bad"
  expect_status 1
  [[ $(tail -n 2 <<<"$out") == "$OKE: valid"$'\n'"$bad: invalid" ]] ||
    fail "the verdict lines are not one per profile in order"
  # lint of a starter: no error, warnings only; the verdict says that warnings fail it.
  "$HKIMGEN" init --platform oke --shape BM.GPU.H100.8 --output-file "$WORK/starter.yaml" 2>/dev/null
  run lint "$WORK/starter.yaml"
  expect_status 1
  expect_out "0 errors, "
  [[ $(tail -n 1 <<<"$out") == "$WORK/starter.yaml: invalid (lint fails on warnings: fix or accept them)" ]] ||
    fail "lint's verdict does not say that the warnings fail it"
}

case_set_takes_comma_separated_assignments() {
  run explain "$B" workload.replicas --set workload.replicas=6,nccl.debug=INFO
  expect_status 0
  expect_out "workload.replicas = 6"
  run explain "$B" nccl.debug --set workload.replicas=6,nccl.debug=INFO
  expect_out "nccl.debug = \"INFO\""
  run explain "$B" workload.env.NCCL_IB_HCA --set 'workload.env.NCCL_IB_HCA==mlx5_0\,mlx5_1'
  expect_status 0
  expect_out '"=mlx5_0,mlx5_1"'
  run validate "$B" --set 'workload.env.NCCL_IB_HCA==mlx5_0,mlx5_1'
  expect_status 1
  expect_out "\`mlx5_1\` (after a comma in \`--set workload.env.NCCL_IB_HCA==mlx5_0,mlx5_1\`) has no '='"
  expect_out 'write \, to keep the comma'
}

# Found by scripts/fuzz.sh (set_fuzzer): a --set argument with bytes that are not UTF-8 and a comma
# ended in an uncaught JSON exception, because the comma's message quoted the raw argument.
case_set_with_bytes_that_are_not_unicode_is_a_diagnostic() {
  run validate "$B" --set $'workload.replicas=4\xf4x,2' -o json
  expect_status 1
  expect_out '"rule": "layering.set-syntax"'
  # The byte that is not UTF-8 is shown as a visible escape (support/untrusted_text.h).
  expect_out 'after a comma in `--set workload.replicas=4\\xf4x,2`'
  run validate "$B" --set $'workload.replicas=4\xf4x,2'
  expect_status 1
  expect_out 'not UTF-8 text: byte 0xF4'
}

case_dash_reads_stdin() {
  run_in "$(cat "$B")" validate -
  expect_status 0
  expect_out "<stdin>: valid"
  run_in "$(printf 'workload:\n  replicas: 7\n')" explain "$B" workload.replicas -f -
  expect_status 0
  expect_out "workload.replicas = 7"
  expect_out "<stdin>:2:"
  run_in "$(cat "$B")" render - -o yaml
  expect_status 0
  expect_out "kind: Application"
}

case_yaml_merge_keys() {
  local p="$WORK/merge.yaml"
  python3 - "$B" "$p" <<'PY'
import sys
text = open(sys.argv[1]).read()
# The second rail takes its mtu and interface-independent keys from the first via an anchor.
text = text.replace("      mtu_bytes: 9000\n", "      mtu_bytes: &mtu 9000\n", 1)
open(sys.argv[2], "w").write(text)
PY
  cat >>"$p" <<'YAML'
YAML
  run_in "$(printf 'workload: &w\n  replicas: 5\nnccl:\n  <<: {debug: INFO}\n  cross_nic: 0\n')" \
    explain "$B" nccl.debug -f -
  expect_status 0
  expect_out 'nccl.debug = "INFO"'
  run_in "$(printf 'nccl:\n  <<: 5\n')" validate "$B" -f -
  expect_status 1
  expect_out "[yaml.merge-key]"
  expect_out "extends:"
}

case_render_reports_what_it_wrote() {
  run render "$B" -d "$WORK/b"
  expect_status 0
  # The last line (the notes of the profile's accepted lint.image-digest come first).
  [[ $(tail -n 1 <<<"$err") =~ ^wrote\ ([0-9]+)\ files\ to\ $WORK/b:\ 0\ changed,\ ([0-9]+)\ added,\ 0\ removed$ ]] ||
    fail "first render summary"
  [[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]] || fail "all files are new the first time"
  run render "$B" -d "$WORK/b" --set workload.replicas=3
  local changed
  changed=$("$HKIMGEN" diff "$B" -d out/barcelona-h100-cx7 --set workload.replicas=3 -o json |
    jq '.result.summary.changed')
  [[ $changed -ge 1 ]] || fail "diff counts no change"
  # The StatefulSet changes (its pods run the fabric check); nothing is added or removed.
  expect_err ": $changed changed, 0 added, 0 removed"
  run render "$B" -d "$WORK/b" -q
  expect_status 0
  expect_no_err "wrote "
  expect_no_err ": warning: "
}

case_wrapper_digest_pins_every_init_container() {
  local a b version pinned
  a=sha256:$(printf 'a%.0s' {1..64})
  b=sha256:$(printf 'b%.0s' {1..64})
  version=$("$HKIMGEN" version | sed -n 's/^hkimgen \([^ ]*\).*/\1/p' | head -1)
  # By tag: the version this hkimgen is built from, in the StatefulSet and the CronJob.
  run render "$OKE"
  expect_status 0
  [[ $(grep -c "image: quay.io/hkim/hkim-wrapper:$version\$" <<<"$out") == 2 ]] ||
    fail "two init containers with quay.io/hkim/hkim-wrapper:$version"
  # By digest: the flag, and the flag over the profile's wrapper.digest.
  run render "$OKE" --wrapper-digest "$b"
  expect_status 0
  [[ $(grep -c "image: quay.io/hkim/hkim-wrapper:$version@$b\$" <<<"$out") == 2 ]] ||
    fail "--wrapper-digest did not pin the two init containers"
  [[ $(grep -c "hkim-wrapper:$version\$" <<<"$out") == 0 ]] || fail "an init container by tag only"
  pinned=$(variant "/^  image: quay.io\/hkim\/hkim-wrapper/a\\  digest: $a" pinned.yaml)
  run render "$pinned"
  expect_status 0
  expect_out "image: quay.io/hkim/hkim-wrapper:$version@$a"
  run render "$pinned" --wrapper-digest "$b"
  expect_status 0
  expect_out "image: quay.io/hkim/hkim-wrapper:$version@$b"
  expect_no_out "@$a"
  # Empty (what $(skopeo inspect ...) gives when skopeo fails): refused, not silently unpinned.
  for command in "render $OKE -d $WORK/empty" "diff $OKE -d out/oke-h100"; do
    # shellcheck disable=SC2086
    run $command --wrapper-digest ""
    expect_status 1
    expect_err "error: --wrapper-digest is empty: the bundle would not be pinned"
    expect_err "[cli.usage]"
    expect_err "fix: run bash scripts/build-image.sh"
  done
  [[ ! -e $WORK/empty ]] || fail "an empty --wrapper-digest wrote the bundle"
  # Not a digest: the flag is named with the expected form, nothing is written.
  run render "$OKE" --wrapper-digest sha256:ABC -d "$WORK/bad"
  expect_status 1
  expect_err "--wrapper-digest 'sha256:ABC' is not a manifest digest (expected sha256: followed by 64 lower-case hex digits)"
  [[ ! -e $WORK/bad ]] || fail "a bad --wrapper-digest wrote the bundle"
  upper=sha256:$(printf 'B%.0s' {1..64})  # 64 hex digits, but upper-case; and one too many
  for bad in "$upper" "${b}0"; do
    run render "$OKE" --wrapper-digest "$bad"
    expect_status 1
    expect_err "is not a manifest digest"
  done
  # diff takes the flag too: a bundle rendered with it is current against the same digest.
  run render "$OKE" --wrapper-digest "$b" -q -d "$WORK/pinned"
  expect_status 0
  run diff "$OKE" --wrapper-digest "$b" -d "$WORK/pinned" --check
  expect_status 0
  run diff "$OKE" -d "$WORK/pinned" --check
  expect_status 2
  expect_out "@$b"
  run diff "$OKE" --wrapper-digest sha256:ABC -d "$WORK/pinned"
  expect_status 1
  expect_err "--wrapper-digest 'sha256:ABC' is not a manifest digest"
  # Not a digest in the profile: file:line:col of the field.
  pinned=$(variant "/^  image: quay.io\/hkim\/hkim-wrapper/a\\  digest: md5:abc" bad.yaml)
  run render "$pinned"
  expect_status 1
  # The line of the inserted field (the shipped profile's length changes with its comments).
  line=$(grep -n '^  digest: md5:abc$' "$pinned" | cut -d: -f1)
  expect_err "$pinned:$line:11: error:"
  expect_err "/wrapper/digest"
  expect_err "64 lower-case hex digits"
  # A mutable tag: lint warns and names the digest form; a digest quiets it.
  run lint "$B" --set wrapper.image=quay.io/hkim/hkim-wrapper:latest
  expect_status 1
  expect_out "[lint.image-latest]"
  expect_out "wrapper.digest: sha256:<64 hex>"
  expect_out ":$version@sha256:<64 hex>"
  run lint "$B" --set wrapper.image=quay.io/hkim/hkim-wrapper:latest --set "wrapper.digest=$a"
  expect_status 0
  expect_no_out "[lint.image-latest]"
}

case_image_digest_pins_any_named_image() {
  local d w v line version
  version=$("$HKIMGEN" version | sed -n 's/^hkimgen \([^ ]*\).*/\1/p' | head -1)
  d=sha256:$(printf 'e%.0s' {1..64})
  w=iad.ocir.io/hpc_limited_availability/nccl-tests:pytorch-23.10-nccl-2.19.3-1
  v=docker.io/library/oraclelinux:9
  # By tag: one warning for every image, naming each and its line, and how to get and pin the
  # digests; the shipped profile accepts it with a reason (a note).
  sed '/^accept_warnings:/,$d' "$OKE" >"$WORK/tags.yaml"
  run lint "$WORK/tags.yaml"
  expect_status 1
  line=$(grep -n "^  image: $w\$" "$WORK/tags.yaml" | cut -d: -f1)
  expect_out "$WORK/tags.yaml:$line:10: warning: 5 images are pulled by a tag, not by a digest"
  # workload, wrapper, VF DaemonSet, and the NicClusterPolicy's device plugin and nv-ipam
  expect_out "workload image '$w' ($WORK/tags.yaml:$line); "
  expect_out "'$v' (the default, "
  expect_out "[lint.image-digest]"
  expect_out "skopeo inspect --format '{{.Digest}}' docker://IMAGE"
  expect_out "--image-digest IMAGE=sha256:<64 hex> for each"
  expect_out "a NicClusterPolicy image: its version"
  [[ $(grep -c '\[lint.image-digest\]' <<<"$out") == 1 ]] || fail "not one warning for the images"
  run lint "$WORK/tags.yaml" --allow lint.image-digest --allow lint.gpu-operator-support
  expect_status 0
  run lint "$OKE"
  expect_status 0
  expect_out "note: accepted (pinned at render time (--image-digest); no unverified digest recorded here): 5 images are pulled by a tag"
  expect_no_out "fix: render with --image-digest"  # an accepted warning is one line: no fix
  # Pinned at render, under the mirror too; the warning goes.
  run render "$WORK/tags.yaml" --image-digest "$w=$d" --image-digest "$v=$d" \
    --image-digest "quay.io/hkim/hkim-wrapper:$version=$d" \
    --image-digest "nvcr.io/nvidia/mellanox/sriov-network-device-plugin:network-operator-v25.10.0=$d" \
    --image-digest "nvcr.io/nvidia/mellanox/nvidia-k8s-ipam:network-operator-v25.10.0=$d" \
    --set images.mirror=mirror.example.com:5000/gpu,images.chart_mirror=https://charts.example.com
  expect_status 0
  expect_no_err "[lint.image-digest]"
  expect_out "image: mirror.example.com:5000/gpu/hpc_limited_availability/nccl-tests:pytorch-23.10-nccl-2.19.3-1@$d"
  expect_out "image: mirror.example.com:5000/gpu/library/oraclelinux:9@$d"
  # The NicClusterPolicy takes the digest as its version (repository/image@version).
  expect_out "repository: mirror.example.com:5000/gpu/nvidia/mellanox"$'\n'"    image: sriov-network-device-plugin"$'\n'"    version: $d"
  expect_out "image: mirror.example.com:5000/gpu/hkim/hkim-wrapper:$version@$d"
  [[ $(grep -c "image: .*oraclelinux:9\$" <<<"$out") == 0 ]] || fail "oraclelinux by tag only"
  # An image the profile does not name: the error lists the ones it does, with the closest.
  run render "$OKE" --image-digest "docker.io/library/oraclelinux:8=$d" -d "$WORK/bad"
  expect_status 1
  expect_err "a digest is given for 'docker.io/library/oraclelinux:8', an image this profile does not name (--image-digest or images.digests) [model.image-digest]"
  expect_err "did you mean $v? name one of the profile's images as written: $w, quay.io/hkim/hkim-wrapper:$version, $v"
  [[ ! -e $WORK/bad ]] || fail "an unknown --image-digest image wrote the bundle"
  # Not IMAGE=DIGEST: the flag is named.
  run render "$OKE" --image-digest "$v=sha256:ABC"
  expect_status 1
  expect_err "--image-digest '$v=sha256:ABC' is not IMAGE=sha256:<64 hex> ('sha256:ABC' is not a manifest digest) [cli.usage]"
  run render "$OKE" --image-digest "$d"
  expect_status 1
  expect_err "(no IMAGE= before the digest) [cli.usage]"
  # diff and the fleet render take it as render does.
  run render "$OKE" --image-digest "$v=$d" -q -d "$WORK/pinned"
  expect_status 0
  run diff "$OKE" --image-digest "$v=$d" -d "$WORK/pinned" --check
  expect_status 0
  run diff "$OKE" -d "$WORK/pinned" --check
  expect_status 2
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml --image-digest "$v=$d" -q -d "$WORK/fleet" --fleet-path fleet
  expect_status 0
  [[ $(grep -rl "image: $v@$d" "$WORK/fleet" | wc -l) == 2 ]] || fail "fleet: not pinned in both"
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml --image-digest "$v=$d" -d "$WORK/fleet" --fleet-path fleet --check
  expect_status 0
  run diff profiles/oke-h100.yaml profiles/oke-a100.yaml --image-digest "$v=$d" -d "$WORK/fleet" --fleet-path fleet --check
  expect_status 0
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml -d "$WORK/fleet" --fleet-path fleet --check
  expect_status 1
  # The stale fleet's fix repeats the whole command, the pins included.
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml -q -d "$WORK/fleet2" --fleet-path fleet
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml --image-digest "$v=$d" -d "$WORK/fleet2" --fleet-path fleet --check
  expect_status 1
  expect_err "--image-digest $v=$d"
}

case_render_points_argo_cd_at_the_folder_it_writes() {
  # README's publishing example (-d deploy/oke-h100, gitops.path out/oke-h100)
  # in a git repository: the Applications name the folder the files are in, and say so.
  local repo=$WORK/repo
  mkdir -p "$repo/.git" "$repo/profiles" "$repo/deploy"
  cp "$OKE" "$repo/profiles/"
  run_at "$repo" render profiles/oke-h100.yaml -d deploy/oke-h100
  expect_status 0
  expect_err "profiles/oke-h100.yaml:179:9: warning: gitops.path is 'out/oke-h100' but -d deploy/oke-h100 is 'deploy/oke-h100' in its git repository"
  expect_err "[write.gitops-path]"
  grep -q '^    path: deploy/oke-h100/apps$' "$repo/deploy/oke-h100/application.yaml" ||
    fail "application.yaml does not name deploy/oke-h100/apps"
  ! grep -rq 'out/oke-h100' "$repo/deploy/oke-h100" || fail "a file still names out/oke-h100"
  # --check and diff compare with the same path; from a sub-folder the path is the same.
  run_at "$repo" render profiles/oke-h100.yaml -d deploy/oke-h100 --check
  expect_status 0
  run_at "$repo" diff profiles/oke-h100.yaml -d deploy/oke-h100 --check
  expect_status 0
  run_at "$repo/deploy" render ../profiles/oke-h100.yaml -d oke-h100 --check
  expect_status 0
  # Outside a git repository nobody can tell: the profile's gitops.path stands, no warning.
  run render "$OKE" -d "$WORK/plain"
  expect_status 0
  expect_no_err "write.gitops-path"
  grep -q '^    path: out/oke-h100/apps$' "$WORK/plain/application.yaml" || fail "path changed"
  # The shipped bundles, rendered as usual (-d out/<name> from the top), are current.
  run render "$OKE" -d out/oke-h100 --check
  expect_status 0
  expect_no_err "write.gitops-path"
}

case_a_fleet_owns_its_folders() {
  # A single render into a fleet member is refused; the fleet's --check names
  # the fleet command. Item 3: clusters with no destination are named.
  local fleet=$WORK/fleet
  # The shipped OKE profiles name Argo CD's own cluster; copies that name no destination.
  mkdir -p "$WORK/nodest"
  for p in oke-h100 oke-a100; do
    grep -v '^  destination_server: ' "profiles/$p.yaml" >"$WORK/nodest/$p.yaml"
  done
  run render "$WORK/nodest/oke-h100.yaml" "$WORK/nodest/oke-a100.yaml" -d "$fleet" --fleet-path fleet
  expect_status 0
  expect_err "warning: 2 clusters of the fleet (oke-h100, oke-a100) name no Argo CD destination"
  expect_err "[fleet.default-destination]"
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml -d "$fleet" --fleet-path fleet
  expect_status 0
  expect_no_err "fleet.default-destination"
  local before
  before=$(cd "$fleet" && find . -type f | sort | xargs sha256sum)
  run render profiles/oke-a100.yaml -d "$fleet/oke-a100"
  expect_status 1
  expect_err "$fleet/oke-a100: error: not written: $fleet/oke-a100 is in the fleet folder $fleet"
  expect_err "[write.refused]"
  expect_err "hkimgen render PROFILES... -d $fleet"
  run render profiles/oke-a100.yaml -d "$fleet/oke-a100" --force
  expect_status 1
  run diff profiles/oke-a100.yaml -d "$fleet/oke-a100"
  expect_status 1
  expect_err "[write.refused]"
  [[ $(cd "$fleet" && find . -type f | sort | xargs sha256sum) == "$before" ]] ||
    fail "the fleet folder changed"
  rm "$fleet/oke-a100/kustomization.yaml"
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml -d "$fleet" --fleet-path fleet --check
  expect_status 1
  expect_err "fix: run \`hkimgen render profiles/oke-h100.yaml profiles/oke-a100.yaml -d $fleet --fleet-path fleet\` (the whole fleet)"
  expect_no_err "hkimgen render PROFILE -d"
}

case_fleet_render_outside_git_says_so() {
  # An absolute -d in no git work tree: the error says that, not only "cannot tell where".
  run render profiles/oke-h100.yaml profiles/oke-a100.yaml -d "$WORK/nogit/clusters"
  [[ $status != 0 ]] || fail "a fleet render into no git work tree passed"
  expect_err "is in no git work tree (git init there, or see the fix)"
  expect_err "--fleet-path PATH"
  [[ ! -e $WORK/nogit ]] || fail "the refused render wrote $WORK/nogit"
}

case_render_quiet_leaves_out_notes_not_warnings() {
  # -q: the OKE profile's accepted warnings and hints (notes) are left out; a warning is not.
  run render "$OKE" -d "$WORK/q" -q
  expect_status 0
  expect_err_empty
  run render "$OKE" -d "$WORK/q" -q --set "workload.command={torchrun,--nnodes=3,t.py}"
  expect_status 0
  expect_err "warning: "
  expect_no_err "note: "
  run render "$OKE" -d "$WORK/q2"
  expect_err "note: "
}

case_render_check_fix_is_the_command_that_renders_the_bundle() {
  # A stale bundle's fix names this profile and its layers, not a placeholder.
  run render "$OKE" -d "$WORK/b"
  expect_status 0
  echo "# edited" >>"$WORK/b/README.md"
  run render "$OKE" -d "$WORK/b" --check
  expect_status 1
  expect_err "fix: run \`hkimgen render $OKE -d $WORK/b\` and commit the result"
  run render "$OKE" -d "$WORK/b" --check --set workload.replicas=3
  expect_err "fix: run \`hkimgen render $OKE -d $WORK/b\` with this command's --set and digest flags"
}

case_profiles_of_different_platforms_are_never_one_destination() {
  # The OpenShift and an OKE profile, both on Argo CD's own cluster.
  local local_b
  local_b=$(variant 's#https://api.barcelona.nerc.mghpcc.org:6443#https://kubernetes.default.svc#' b-local.yaml)
  # Checked together, they are two clusters with an Argo CD each (a note); a fleet render
  # (case two_clusters_with_their_own_argo_cd_validate_together) refuses them.
  run lint "$local_b" "$OKE"
  expect_status 0
  expect_out "oke-h100.yaml"
  expect_out "note: this oke profile and $local_b (openshift) sync into one Argo CD destination (https://kubernetes.default.svc)"
  expect_out "[lint.shared-destination-platform]"
  # As shipped each names its own cluster's destination: one set, no such error.
  run validate profiles/*.yaml
  expect_status 0
  expect_no_out "[lint.shared-destination-platform]"
  # Given its own destination, Barcelona is another cluster.
  run lint "$(variant 's#^  path: out/barcelona-h100-cx7#  path: out/barcelona-h100-cx7\n  destination_name: barcelona#' b-own.yaml)" "$OKE"
  expect_no_out "lint.shared-destination-platform"
}

case_force_counts_and_names_what_it_overwrites() {
  # A user's notes.txt is kept (not "removed"), and a user's kustomization.yaml
  # that the bundle overwrites is named.
  mkdir -p "$WORK/m2"
  echo "my notes" >"$WORK/m2/notes.txt"
  echo "mine: 1" >"$WORK/m2/kustomization.yaml"
  run render "$OKE" -d "$WORK/m2" --force
  expect_status 0
  expect_err "$WORK/m2/kustomization.yaml: warning: not written by hkimgen, but the bundle writes a file of this name: overwritten (--force) [write.overwritten]"
  expect_err "$WORK/m2/notes.txt: warning: not written by hkimgen: kept as it is; not applied"
  expect_err " 1 changed, "
  expect_err ", 0 removed"
  [[ $(cat "$WORK/m2/notes.txt") == "my notes" ]] || fail "notes.txt changed"
  # A manifest dropped into apps/ is applied by Argo CD (item 5): the warning says so.
  echo "kind: ConfigMap" >"$WORK/m2/apps/mine.yaml"
  run render "$OKE" -d "$WORK/m2"
  expect_status 0
  expect_err "$WORK/m2/apps/mine.yaml: warning: not written by hkimgen: kept as it is, and APPLIED"
  # Nothing of the bundle changed, and the user's file is not counted as removed (an
  # unchanged re-render says so in one line).
  expect_err "$WORK/m2: up to date ("
  expect_no_err " removed"
}

case_unknown_flags_and_near_misses_say_did_you_mean() {
  # An unknown flag goes through the diagnostics, with the closest flag.
  run render "$B" -d "$WORK/x" --chek
  expect_status 1
  expect_err "error: unknown flag '--chek' for \`hkimgen render\` [cli.unknown-flag]"
  expect_err "fix: did you mean --check?"
  [[ ! -e $WORK/x ]] || fail "an unknown flag still wrote"
  run render "$B" --chek -o json
  expect_status 1
  expect_err_empty
  jq -e '.command == "render" and (.ok | not) and .diagnostics[0].rule == "cli.unknown-flag"' \
    <<<"$out" >/dev/null || fail "no JSON report for an unknown flag under -o json"
  # Values that look like flags are values; known flags pass.
  run render "$B" --set workload.replicas=2 -q -d "$WORK/y"
  expect_status 0
  # --allow with a near-miss rule id, and --set with a part of an enum word.
  run validate "$B" --allow lint.image-lates
  expect_status 1
  expect_out "did you mean lint.image-latest?"
  run validate "$B" --set nccl.gpudirect=peermem
  expect_status 1
  expect_out "did you mean 'nvidia-peermem'?"
}

case_the_root_cause_comes_first() {
  # Two profiles of one cluster.name: that cause first, its consequences
  # (every object both emit) folded into one note under it.
  cp "$OKE" "$WORK/copy.yaml"
  run validate "$OKE" "$WORK/copy.yaml"
  expect_status 1
  local first
  first=$(grep -m1 -E ': (error|warning):' <<<"$out")
  [[ $first == *"[fleet.duplicate-cluster]"* ]] || fail "the first finding is not the cause: $first"
  expect_out "more error(s) between the profiles that share a cluster.name (lint.shared-*) follow from it"
  expect_no_out "[lint.shared-cluster-object]"
  run render "$OKE" "$WORK/copy.yaml" -d "$WORK/f" --fleet-path f
  expect_status 1
  expect_err "[fleet.duplicate-cluster]"
  expect_no_err "[lint.shared-cluster-object]"
}

case_init_says_what_to_fill_or_takes_the_repository() {
  # The starter's one lint warning is the placeholder repository.
  run init --platform oke --shape BM.GPU.H100.8 --output-file "$WORK/p.yaml"
  expect_status 0
  expect_err "next: fill gitops.repo_url (your bundle repository), then hkimgen validate"
  run lint "$WORK/p.yaml"
  expect_status 1
  expect_out "[lint.repo-url-placeholder]"
  expect_no_out "p.yaml: valid"  # lint fails on the warning: not "valid" then
  run init --platform oke --shape BM.GPU.H100.8 --repo-url https://github.com/me/bundles.git \
    --output-file "$WORK/q.yaml"
  expect_status 0
  # Its images are named by tag: pinning them by digest is the user's step (lint.image-digest).
  run lint "$WORK/q.yaml" --allow lint.image-digest
  expect_status 0
  expect_no_out "lint.repo-url-placeholder"
  run init --platform oke --shape BM.GPU.H100.8 --repo-url 'not a url'
  expect_status 1
  expect_err "--repo-url 'not a url'"
}

case_validate_cluster_names_drift_at_the_profile_line() {
  local fx=tests/generator/cluster_check
  run validate "$B" --cluster "$fx/barcelona.json"
  expect_status 0
  expect_out "$B: valid"
  run validate "$B" --cluster "$fx/pf-renamed.json" --node-table
  expect_status 1
  expect_out "barcelona-h100-cx7.yaml:"
  expect_out "error: SriovNetworkNodeState/h100-n02 ($fx/pf-renamed.json:"
  expect_out "has no PF eno7np0 (rail eno7np0)"
  expect_out "[cluster.rail-pf]"
  expect_out "h100-n02  4     3/4 missing eno7np0: eno7np0"
  # stdin, and the same findings as JSON with the node table.
  "$HKIMGEN" validate "$B" --cluster - -o json <"$fx/no-rdma-vfs.json" >"$WORK/out" 2>"$WORK/err"
  status=$?
  out=$(cat "$WORK/out")
  expect_status 1
  jq -e '.result.cluster.export == "<stdin>" and
         ([.diagnostics[].rule] | index("cluster.rail-vfs") != null) and
         (.result.cluster.profiles[0].nodes[1].node == "h100-n02") and
         (.result.cluster.profiles[0].nodes[1].ok == false)' <<<"$out" >/dev/null ||
    fail "validate --cluster - -o json"
  # Barcelona renders nothing that goes through pool h100: its absence matters once a
  # MachineConfig of the bundle does (no kernel argument set already).
  run lint "$B" --cluster "$fx/missing-label-pool.json"
  expect_no_out "[cluster.pool-missing]"
  run lint "$B" --cluster "$fx/missing-label-pool.json" --set 'iommu.already_set={}'
  expect_status 1
  expect_out "[cluster.pool-missing]"
  expect_out "[cluster.node-role]"
  run validate "$OKE" --cluster "$fx/barcelona.json"
  expect_status 1
  expect_out "[cluster.no-nodes]"
  run validate "$B" --cluster "$fx/does-not-exist.json"
  expect_status 2
  expect_out "cannot read the cluster export"
}

case_validate_cluster_answers_okes_preconditions() {
  local fx=tests/generator/cluster_check
  # oke-installed.json: the operators run already (a Helm release, a ClusterPolicy made outside
  # Argo CD), the A100 pool is in us-ashburn-1.
  run validate "$OKE" profiles/oke-a100.yaml --cluster "$fx/oke-installed.json"
  expect_status 1
  expect_out "Secret/nvidia-network-operator/sh.helm.release.v1.network-operator.v2 ($fx/oke-installed.json:"
  expect_out "ClusterPolicy/cluster-policy ($fx/oke-installed.json:"
  expect_out "[cluster.operator-installed]"
  expect_out "oke-a100.yaml:18:9: warning: Node/a100-1"
  expect_out "is in region us-ashburn-1"
  expect_out "[cluster.oci-region]"
}

case_render_check_with_cluster_refuses_a_takeover() {
  local fx=tests/generator/cluster_check
  run render "$B" -d out/barcelona-h100-cx7 --check --cluster "$fx/takeover.json"
  expect_status 1
  expect_err "SecurityContextConstraints/barcelona-nccl-rdma ($fx/takeover.json:"
  expect_err "[cluster.takeover]"
  expect_err "[cluster.ip-overlap]"
  run render "$B" -d out/barcelona-h100-cx7 --check --cluster "$fx/barcelona.json"
  expect_status 0
  run render "$B" --cluster "$fx/barcelona.json"
  expect_status 1
  expect_err "--cluster compares with a cluster only with --check"
}

case_discover_draft_passes_validate_against_its_export() {
  local fx=tests/generator/discover
  for export in openshift-amd.json oke-intel.json; do
    run discover "$fx/$export" --name lab --output-file "$WORK/$export.yaml"
    expect_status 0
    run validate "$WORK/$export.yaml" --cluster "$fx/$export"
    expect_status 0
    expect_no_out "error:"
  done
}

case_discover_refuses_a_name_that_is_not_a_dns_label() {
  # --name names the bundle folder too: ../../etc/passwd is refused.
  run discover tests/generator/discover/openshift-amd.json --name ../../etc/passwd
  expect_status 1
  expect_err '--name: error: --name "../../etc/passwd" is not a DNS label'
  expect_err "[cli.usage]"
  [[ -z $out ]] || fail "a draft was printed"
}

case_stdin_is_not_both_the_profile_and_the_cluster_export() {
  # `validate - --cluster -`: stdin is read once, so it cannot be both.
  run_in "$(cat "$B")" validate - --cluster -
  expect_status 1
  expect_out "<stdin>: error: the cluster export cannot be read from stdin: stdin is already read as a profile or values file [cli.usage]"
}

case_control_characters_from_an_export_are_escaped_in_messages() {
  # An ESC sequence and a carriage return in a name never reach the terminal raw.
  printf '{"kind": "List", "items": [7, {"kind": "Node", "metadata": {"name": "n\\u001b[2J\\r"}, "status": {"capacity": {"nvidia.com/gpu": -5}}}]}' >"$WORK/e.json"
  run discover "$WORK/e.json"
  [[ $err != *$'\e'* && $err != *$'\r'* ]] || fail "stderr holds a raw ESC or CR"
  expect_err 'warning: Node "n\x1b[2J\r" advertises nvidia.com/gpu capacity -5'
  expect_err "[discover.gpu-capacity]"
  expect_err "e.json:1:28: warning: the item at /items/0 is not a Kubernetes object"
}

# --- render --tree (plan/bundle_graph.h) ---
case_render_tree_prints_the_bundles_applications_and_json_the_same_graph() {
  run render "$OKE" --tree
  expect_status 0
  expect_out "Application oke-h100 (application.yaml): argocd app sync oke-h100"
  expect_out "|-- oke-h100-gpu-operator (operator chart gpu-operator v"
  expect_out "|-- oke-h100-nodes (nodes, apps/nodes.yaml, parent wave 2): argocd app sync oke-h100-nodes; disrupts: "
  expect_out "\`-- oke-h100-workload (workload, apps/workload.yaml, parent wave 4): syncs itself; disrupts: job restart"
  expect_out "StatefulSet (1): job restart"
  local text=$out
  run render "$OKE" --tree -o json
  expect_status 0
  # The same Applications, in the same order, with the same kinds and counts as the text.
  local from_json
  from_json=$(jq -r '.result.tree.applications[] | .name, (.waves[] | "wave \(.wave)",
    (.kinds[] | "\(.kind) (\(.count))"))' <<<"$out")
  [[ $from_json == "$(sed -n 's/^[|` ]*-- //p' <<<"$text" | sed 's/ (\(operator chart\|platform\|nodes\|health\|workload\)[ ,].*//; s/): .*/)/')" ]] ||
    fail "the JSON graph is not the text's tree"
  jq -e '.result.tree.parent == "oke-h100" and .result.tree.self_sync == "namespaces"' <<<"$out" >/dev/null ||
    fail "the JSON graph lacks its parent"
  # A picture, not a bundle: not with -d, and of one profile.
  run render "$OKE" --tree -d "$WORK/tree"
  expect_status 1
  expect_err "--tree prints the bundle's tree instead of writing it: not with -d [cli.usage]"
  [[ ! -e $WORK/tree ]] || fail "render --tree -d wrote a folder"
  run render "$OKE" profiles/oke-a100.yaml --tree
  expect_status 1
  expect_err "--tree draws one profile's bundle [cli.usage]"
}
# --- end of render --tree ---

# --- discover: drafts for any cluster size ---
case_discover_drafts_ranges_that_hold_a_big_clusters_pods() {
  # 1,503 GPU nodes and no NAD: each rail's drafted range holds the pods (a /21, not a /24 that the
  # draft's own lint.ip-pool-capacity would refuse).
  command -v python3 >/dev/null || { echo "skip: needs python3"; return; }
  (cd tests/generator/cluster_check && python3 -c '
import json, sys, make_fixtures
json.dump(make_fixtures.cluster(1503), sys.stdout)') >"$WORK/big.json" || fail "make_fixtures"
  run discover "$WORK/big.json" --name big --output-file "$WORK/big.yaml"
  expect_status 0
  expect_err "wrote $WORK/big.yaml; next: hkimgen validate $WORK/big.yaml"
  grep -q 'range: 192.168.200.0/21  # TODO: a subnet of its own for every isolated rail; 2048 addresses for 1503 pods' "$WORK/big.yaml" ||
    fail "the first rail's range is not sized: $(grep 'range:' "$WORK/big.yaml")"
  run validate "$WORK/big.yaml" --cluster "$WORK/big.json"
  expect_status 0
  expect_no_out "error:"
}

case_discover_writes_a_draft_that_does_not_validate_with_its_findings_and_exits_one() {
  # The cluster's own NADs hand out a /24 a rail, too small for its 1,503 nodes: the draft keeps
  # what the export says, with the findings as comments at its top, and exits 1.
  command -v python3 >/dev/null || { echo "skip: needs python3"; return; }
  (cd tests/generator/cluster_check && python3 -c '
import json, sys, make_fixtures
doc = make_fixtures.cluster(1503)
for i, rail in enumerate(make_fixtures.RAILS):
    config = {"cniVersion": "1.0.0", "name": rail, "type": "sriov",
              "ipam": {"type": "whereabouts", "range": "10.0.%d.0/24" % (103 + i)}}
    doc["items"].append({"apiVersion": "k8s.cni.cncf.io/v1", "kind": "NetworkAttachmentDefinition",
                         "metadata": {"name": rail, "namespace": "ml", "annotations": {
                             "k8s.v1.cni.cncf.io/resourceName": "openshift.io/%srdma" % rail}},
                         "spec": {"config": json.dumps(config)}})
json.dump(doc, sys.stdout)') >"$WORK/big.json" || fail "make_fixtures"
  run discover "$WORK/big.json" --name big --output-file "$WORK/big.yaml"
  expect_status 1
  expect_err "<draft>: error: the drafted profile does not validate (lint.ip-pool-capacity: range 10.0.103.0/24 of rail 'eno5np0' has 254 usable addresses"
  expect_err "the draft is written with this as a comment at its top [discover.draft-invalid]"
  expect_err "wrote $WORK/big.yaml, which does not validate yet (4 finding(s), as comments at its top)"
  local draft
  draft=$(cat "$WORK/big.yaml")
  # One finding a rail (four), each with its fix.
  [[ $(head -n 3 <<<"$draft") == "# hkimgen discover: this draft does not validate yet (4 findings); fix each, then run hkimgen validate on it:
#   /network/rails/0/ipam/range: range 10.0.103.0/24 of rail 'eno5np0' has 254 usable addresses, but 1503 replicas x 1 attachment(s) x 1 namespace(s) need 1503: the last pods fail to start (no IP) [lint.ip-pool-capacity]
#     fix: widen the range to hold at least 1503 addresses" ]] ||
    fail "the draft does not start with its finding: $(head -n 3 <<<"$draft")"
  grep -q '^cluster:' "$WORK/big.yaml" || fail "the draft lost its profile"
  # The same findings from validate, at the lines the draft holds them.
  run validate "$WORK/big.yaml"
  expect_status 1
  [[ $(grep -c "error: range 10.0.10[3-6].0/24 of rail" <<<"$out$err") == 4 ]] ||
    fail "validate does not report the draft's four findings"
  # To stdout: the same text, the same status.
  run discover "$WORK/big.json" --name big
  expect_status 1
  [[ $out == "$draft" ]] || fail "stdout is not the written draft"
}

case_discover_cites_only_what_the_export_holds() {
  # On an export of Nodes only, no CNI precondition claims "the export's NADs use it".
  local full=tests/cli/docs_tools/oke-export.json
  jq '.items |= map(select(.kind == "Node"))' "$full" >"$WORK/nodes-only.json"
  run discover "$full" --name oke
  expect_status 0
  expect_out "why: NetworkAttachmentDefinition ml-jobs/roce-vf of the export uses it"
  run discover "$WORK/nodes-only.json" --name oke
  expect_status 0
  expect_no_out "of the export uses it"
  expect_no_out "the export's NADs"
  expect_out "why: the bundle's NADs chain it (no NAD of the export shows the cluster has it)"
  expect_out "why: the RDMA CNI the bundle's NADs chain needs it"
}

case_discover_all_groups_writes_a_file_a_group() {
  # One file a group, each with its own cluster.name, so each validates alone.
  local fx=tests/generator/discover/oke-intel.json
  run discover "$fx" --name oke --all-groups -d "$WORK/drafts"
  expect_status 0
  expect_err "wrote $WORK/drafts/oke-bm-gpu-h200-8.yaml; next: hkimgen validate"
  expect_err "wrote $WORK/drafts/oke-vm-gpu-a10-2.yaml; next: hkimgen validate"
  run validate "$WORK/drafts/oke-bm-gpu-h200-8.yaml" "$WORK/drafts/oke-vm-gpu-a10-2.yaml"
  expect_status 0
  run discover "$fx" --name oke --all-groups
  expect_status 1
  expect_err "--all-groups drafts one file per GPU node group: it needs -d DIR [cli.usage]"
}

case_discover_leaves_another_teams_nodes_out() {
  run discover tests/generator/cluster_check/barcelona-live.json --name barcelona --namespace nccl-test
  expect_status 0
  expect_err "warning: nodes moc-r4pcc02u15-yunshi, moc-r4pcc02u16-yunshi (another team's, it seems): GPU or RDMA pods of namespace b-ts-data-agent-0a0cee run there"
  expect_err "[discover.other-team]"
  expect_out "  exclude_nodes:  # another team's nodes of the group, it seems (warnings discover.other-team)"
  expect_out "replicas: 3  # one pod per node of the group less the 2 excluded"
}
# --- end of discover ---

case_validate_cluster_checks_the_fabric_consumers_are_installed() {
  # The consumers' implied preconditions against an export (fabric_health.consumers): the
  # NodeHealthCheck's CRDs among the exported CRDs, NVSentinel's and node-problem-detector's
  # containers among the exported Pods.
  local fx=tests/generator/cluster_check on=fabric_health.consumers
  crd() { jq -n --arg g "$1" --arg k "$2" '{apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition", metadata: {name: ("x." + $g)},
    spec: {group: $g, names: {kind: $k}}}'; }
  pod() { jq -n --arg ns "$1" --arg c "$2" '{apiVersion: "v1", kind: "Pod",
    metadata: {name: ($c + "-0"), namespace: $ns}, spec: {containers: [{name: $c}]}}'; }
  crd sriovnetwork.openshift.io SriovNetworkNodePolicy >"$WORK/other.json"
  jq --slurpfile o "$WORK/other.json" '.items += $o' "$fx/barcelona.json" >"$WORK/no-nhc.json"
  run validate "$B" --cluster "$WORK/no-nhc.json" --set "$on.node_health_check.enabled=true"
  expect_status 1
  expect_out "has no CRD remediation.medik8s.io/NodeHealthCheck, which the bundle takes as given"
  expect_out "has no CRD self-node-remediation.medik8s.io/SelfNodeRemediationTemplate"
  expect_out "[cluster.precondition]"
  { crd remediation.medik8s.io NodeHealthCheck; crd self-node-remediation.medik8s.io SelfNodeRemediationTemplate; } |
    jq -s '.' >"$WORK/nhc.json"
  jq --slurpfile o "$WORK/nhc.json" '.items += $o[0]' "$WORK/no-nhc.json" >"$WORK/with-nhc.json"
  run validate "$B" --cluster "$WORK/with-nhc.json" --set "$on.node_health_check.enabled=true"
  expect_status 0
  expect_no_out "[cluster.precondition]"
  # OKE: NVSentinel's two modules and node-problem-detector, by their containers.
  local set=(--set "$on.nvsentinel.enabled=true" --set "$on.node_problem_detector.enabled=true")
  run validate "$OKE" --cluster tests/cli/docs_tools/oke-export.json "${set[@]}"
  expect_out "whether nvsentinel/kubernetes-object-monitor runs"  # no Pod exported: not judged
  pod kube-system coredns | jq -s '.' >"$WORK/dns.json"
  jq --slurpfile o "$WORK/dns.json" '.items += $o[0]' tests/cli/docs_tools/oke-export.json \
    >"$WORK/no-consumers.json"
  run validate "$OKE" --cluster "$WORK/no-consumers.json" "${set[@]}"
  expect_out "runs no pod with a container kubernetes-object-monitor in namespace nvsentinel"
  expect_out "runs no pod with a container fault-quarantine in namespace nvsentinel"
  expect_out "runs no pod with a container node-problem-detector in namespace kube-system"
  { pod nvsentinel kubernetes-object-monitor; pod nvsentinel fault-quarantine;
    pod kube-system node-problem-detector; } | jq -s '.' >"$WORK/pods.json"
  jq --slurpfile o "$WORK/pods.json" '.items += $o[0]' tests/cli/docs_tools/oke-export.json \
    >"$WORK/with-pods.json"
  run validate "$OKE" --cluster "$WORK/with-pods.json" "${set[@]}"
  expect_no_out "runs no pod with a container"
}

cli_run_case
