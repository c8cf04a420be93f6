#!/usr/bin/env bash
# The first user's path through the command line: the bugs and frictions a platform
# engineer met going from init to a synced cluster, each as it was met. Usage: user_path_test.sh
# HKIMGEN SOURCE_DIR CASE (ctest runs each CASE).
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# A scratch git work tree holding the shipped profiles, for renders whose paths depend on it.
scratch_repo() {
  local repo=$WORK/repo
  mkdir -p "$repo/.git"
  cp -r profiles "$repo/"
  echo "$repo"
}

case_fleet_render_takes_an_absolute_dir_in_a_git_repository() {
  # Was: "cannot tell where '/abs/repo/clusters' is inside the git repository [cli.usage]".
  local repo
  repo=$(scratch_repo)
  run_at "$repo" render profiles/oke-h100.yaml profiles/oke-a100.yaml -d "$repo/clusters" -q
  expect_status 0
  grep -q 'path: clusters/oke-h100/apps' "$repo/clusters/_fleet/applicationset.yaml" ||
    fail "the ApplicationSet does not point at clusters/oke-h100/apps"
  # The same fleet spelt relatively is the same bundle; from a sub-folder too.
  run_at "$repo" render profiles/oke-h100.yaml profiles/oke-a100.yaml -d clusters --check
  expect_status 0
  mkdir -p "$repo/sub"
  run_at "$repo/sub" render ../profiles/oke-h100.yaml ../profiles/oke-a100.yaml -d ../clusters --check
  expect_status 0
  run_at "$repo" diff profiles/oke-h100.yaml profiles/oke-a100.yaml -d "$repo/clusters" --check
  expect_status 0
}

case_build_image_configures_in_a_fresh_clone() {
  # Was: build-image.sh wrote build/image-build.configure.log before build/ existed. A copy
  # of the script in a clone without build/, with a cmake that only says it ran.
  local clone=$WORK/clone bin=$WORK/fakebin
  mkdir -p "$clone/scripts" "$bin"
  cp scripts/build-image.sh "$clone/scripts/"
  cp CMakeLists.txt "$clone/"
  git -C "$clone" init -q && git -C "$clone" -c user.name=t -c user.email=t@t add -A &&
    git -C "$clone" -c user.name=t -c user.email=t@t commit -q -m x
  printf '#!/bin/sh\necho "fake cmake ran: $*"\nexit 1\n' >"$bin/cmake"
  for tool in umoci skopeo; do printf '#!/bin/sh\nexit 0\n' >"$bin/$tool"; done
  chmod +x "$bin"/*
  (cd "$clone" && PATH="$bin:$PATH" bash scripts/build-image.sh >"$WORK/out" 2>"$WORK/err")
  status=$?
  out=$(cat "$WORK/out"); err=$(cat "$WORK/err")
  expect_status 1
  expect_err "fake cmake ran: -S . -B build/image-build"
  expect_no_err "No such file or directory"
}

case_render_json_gives_every_manifest_as_an_object() {
  # Was: the topology ConfigMap (over 8 KiB of XML) came back as raw "text".
  run render "$OKE" -o json
  expect_status 0
  jq -e '[.result.files[] | select(.file | endswith(".yaml"))] | all(has("object"))' \
    <<<"$out" >/dev/null || fail "a manifest came back as text"
  # The workload's and its copy in the health check's namespace (<ns>-fabric-health).
  jq -e '[.result.files[] | select(.object.kind == "ConfigMap" and
           (.object.metadata.name | test("topology")))] | length == 2' <<<"$out" >/dev/null ||
    fail "no topology ConfigMap object"
  jq -e '[.result.files[] | select(.object.kind == "StatefulSet")][0].object.spec.replicas
         | type == "number"' <<<"$out" >/dev/null || fail "replicas is not a number"
}

case_an_invalid_image_reference_is_named_before_closure() {
  # Was: closure.image ("a disconnected cluster cannot pull it") for a misspelt reference.
  run validate "$OKE" --set workload.image=Registry.acme.io/ML/train:1.2
  expect_status 1
  expect_out "--set:1:16: error: workload image 'Registry.acme.io/ML/train:1.2' is not a valid image reference"
  expect_out "[model.image-reference]"
  expect_out "fix: write the repository path in lower case: 'Registry.acme.io/ml/train:1.2'"
  expect_no_out "closure.image"
}

case_init_help_names_every_warning_lint_reports_on_the_starter() {
  # Was: --help called the repository URL "the one thing left"; lint then failed on
  # lint.image-digest. What --help promises is what lint says.
  run init --platform oke --shape BM.GPU.H100.8 --repo-url https://github.com/acme/b.git \
    --output-file "$WORK/p.yaml"
  expect_status 0
  run validate "$WORK/p.yaml"
  expect_status 0
  run lint "$WORK/p.yaml"
  local rules help rule
  rules=$(grep -o '\[lint\.[a-z-]*\]' <<<"$out" | tr -d '[]' | sort -u)
  [[ -n $rules ]] || fail "lint reported no warning on the starter"
  run init --help
  help=$out
  for rule in $rules; do
    [[ $help == *"$rule"* ]] || fail "init --help does not name $rule, which lint reports"
  done
  [[ $help != *"the one thing left"* ]] || fail "init --help still says 'the one thing left'"
}

case_shipped_profiles_validate_and_render_as_one_fleet() {
  # Was: an OpenShift and an OKE profile on one default destination (lint.shared-destination-platform).
  run validate profiles/
  expect_status 0
  expect_no_out "error:"
  local repo
  repo=$(scratch_repo)
  run_at "$repo" render profiles/barcelona-h100-cx7.yaml profiles/oke-a100-gpu4.yaml \
    profiles/oke-a100.yaml profiles/oke-h100.yaml -d clusters
  expect_status 0
  expect_no_err "fleet.default-destination"
  grep -q 'server: https://api.barcelona.nerc.mghpcc.org:6443' \
    "$repo/clusters/_fleet/appprojects/barcelona-platform.yaml" ||
    fail "Barcelona's destination is not in its project"
}

case_fleet_member_bootstrap_binds_the_account_argo_cd_writes_with() {
  # Was: a remote member bound argocd-argocd-application-controller in argocd (neither upstream's
  # name nor on that cluster), and its README said to apply application.yaml by hand.
  local repo
  repo=$(scratch_repo)
  run_at "$repo" render profiles/barcelona-h100-cx7.yaml profiles/oke-h100.yaml -d clusters -q
  expect_status 0
  local binding=$repo/clusters/barcelona/bootstrap/clusterrolebinding-argocd-apply.yaml
  grep -q '^  name: argocd-manager$' "$binding" || fail "remote member: not argocd-manager"
  grep -q '^  namespace: kube-system$' "$binding" || fail "remote member: not in kube-system"
  local readme=$repo/clusters/barcelona/README.md
  grep -q 'the ApplicationSet `hkimgen-fleet` creates its$' "$readme" ||
    fail "the member's README does not say the ApplicationSet creates its Application"
  ! grep -q '^oc apply -f application.yaml' "$readme" || fail "the member's README applies application.yaml"
  grep -q 'Push this folder to `https://github.com/hkim/hkimgen-bundles.git` at revision `main`, as `clusters/barcelona`' \
    "$readme" || fail "the member's README does not say where to push"
  # A member on the central Argo CD's own cluster binds upstream Argo CD's controller.
  run_at "$repo" render profiles/barcelona-h100-cx7.yaml -d single/x -q \
    --set gitops.destination_server=https://kubernetes.default.svc
  grep -q '^  name: openshift-gitops-argocd-application-controller$' \
    "$repo/single/x/bootstrap/clusterrolebinding-argocd-apply.yaml" || fail "single render: not OpenShift GitOps' controller"
  mkdir -p "$repo/local"
  sed 's#https://api.barcelona.nerc.mghpcc.org:6443#https://kubernetes.default.svc#' \
    "$repo/profiles/barcelona-h100-cx7.yaml" >"$repo/local/barcelona.yaml"
  run_at "$repo" render local/ -d fleet2 -q  # a folder: a fleet of one
  expect_status 0
  grep -A3 '^subjects:' "$repo/fleet2/barcelona/bootstrap/clusterrolebinding-argocd-apply.yaml" |
    grep -q '^  name: argocd-application-controller$' || fail "in-cluster member: not upstream's controller"
}

case_images_help_mirrors_as_the_docs_do() {
  # Was: images --help's oc-mirror example (--workspace) disagreed with README's two steps.
  run images --help
  local line
  while IFS= read -r line; do
    grep -qF -- "${line#  }" docs/disconnected.md || fail "docs/disconnected.md lacks: $line"
  done < <(grep '^  oc-mirror ' <<<"$out")
  [[ $(grep -c '^  oc-mirror ' <<<"$out") == 2 ]] || fail "images --help shows no two oc-mirror steps"
}

case_set_a_number_where_text_is_expected_quotes_what_was_set() {
  # Was: the fix quoted line 1 of the profile (`openshift_version: "ema=../schemas/...`).
  run validate "$B" --set operators.openshift_version=4.20
  expect_status 1
  expect_out "fix: quote it: --set 'operators.openshift_version=\"4.20\"'"
  expect_no_out "schema.json\""
  run validate "$OKE" --set gitops.revision=1.10
  expect_status 1
  expect_out "fix: quote it: --set 'gitops.revision=\"1.10\"'"
  # A value from a -f layer: its own line, not the profile's line of that number.
  printf 'gitops:\n  revision: 1.10   # a release\n' >"$WORK/values.yaml"
  run validate "$OKE" -f "$WORK/values.yaml"
  expect_status 1
  expect_out "fix: quote it: revision: \"1.10\""
}

case_set_helm_list_syntax_is_explained() {
  # Was: YAML advice for Helm's {a,b}, and an unquoted {a,b} split by the shell read as a file.
  run validate "$OKE" --set workload.command=python workload.command=train.py  # bash's {python,train.py}
  expect_status 1
  [[ "$out$err" == *"workload.command=train.py: error: is not a profile file but looks like a --set assignment"* ]] ||
    fail "the split --set value is not explained"
  [[ "$out$err" == *"fix: quote the --set value, e.g. --set 'workload.command={python,train.py}'"* ]] ||
    fail "no fix quoting the --set value"
  run validate "$OKE" --set 'workload.command={python,train.py}'
  expect_status 0
  run validate "$OKE" --set workload.command=python
  expect_status 1
  expect_out "fix: write Helm's list form, in quotes so that the shell does not expand the braces: --set 'workload.command={a,b}'"
}

case_explain_shows_a_derived_value_and_its_source() {
  # Was: "(not set) ... hkimgen derives it", without the value.
  run explain "$B" security.scc_name
  expect_status 0
  expect_out 'security.scc_name = "barcelona-nccl-rdma"   (derived)'
  expect_out 'set by  hkimgen, from cluster.name + "-nccl-rdma"'
  run explain "$OKE" gitops.destination_namespace -o json
  expect_status 0
  jq -e '.result.value == "gpu-training" and .result.derived_from == "the profile'"'"'s first namespace"' \
    <<<"$out" >/dev/null || fail "explain -o json: no derived value"
}

case_success_says_what_happened_in_one_line() {
  # Was: --check printed only "0 errors, 0 warnings"; an unchanged re-render "wrote 41 files".
  run render "$OKE" -d out/oke-h100 --check
  expect_status 0
  expect_err "out/oke-h100: current ("
  run render "$OKE" -d "$WORK/b" -q
  run render "$OKE" -d "$WORK/b"
  expect_status 0
  expect_err "$WORK/b: up to date ("
  expect_no_err "wrote "
}

# Frictions a newcomer met, each as they met it.

case_init_creates_the_folder_of_its_output_file() {
  # Was: `init --output-file profiles/x.yaml` failed where profiles/ did not exist yet.
  run_at "$WORK" init --platform openshift --shape barcelona-h100-cx7 --output-file profiles/x.yaml
  expect_status 0
  expect_err "wrote profiles/x.yaml"
  [[ -f $WORK/profiles/x.yaml ]] || fail "no profiles/x.yaml"
  : >"$WORK/file"
  run init --platform openshift --shape barcelona-h100-cx7 --output-file "$WORK/file/x.yaml"
  expect_status 2
  expect_err "cannot write the profile: cannot create the folder $WORK/file"
}

case_init_refuses_kubernetes_and_says_what_to_do() {
  # Was: `--platform kubernetes` wrote the OKE starter (OCI's node image, shapes and charts).
  run init --platform kubernetes --shape BM.GPU.H100.8
  expect_status 1
  expect_err "kubernetes has no starter"
  expect_err "start from --platform oke, then set cluster.platform: kubernetes"
  expect_err "[cli.usage]"
  [[ -z $out ]] || fail "a starter was written"
  run init --help
  expect_out "{openshift,oke}"
}

case_init_marks_the_rail_names_it_cannot_know() {
  # Was: 16 rails rail0.. for an OCI shape on OpenShift, none marked CHANGE.
  run init --platform openshift --shape BM.GPU.H100.8
  expect_status 0
  [[ $(grep -c '^    - name: rail[0-9]*  *# CHANGE$' <<<"$out") == 16 ]] || fail "rail names not marked"
  [[ $(grep -c '^      interface: rail[0-9]*  *# CHANGE' <<<"$out") == 16 ]] || fail "PFs not marked"
  # Barcelona's port names are known: not marked.
  run init --platform openshift --shape barcelona-h100-cx7
  expect_no_out "name: eno5np0             # CHANGE"
}

case_init_pins_a_supported_gpu_operator_and_lint_says_end_of_support() {
  # Was: init pinned v25.10.1, which catalog/releases.json marks end-of-support, and nothing
  # said so offline.
  local platform version
  for platform in openshift oke; do
    run init --platform $platform --shape BM.GPU.H100.8 --output-file "$WORK/$platform.yaml"
    expect_status 0
    version=$(sed -n 's/^    version: \(v[0-9.]*\)   # newest supported release.*/\1/p' "$WORK/$platform.yaml")
    [[ -n $version ]] || fail "$platform: no GPU Operator version"
    grep -q "^| $version | [0-9-]* | supported |" docs/release-lines.md ||
      fail "$platform: $version is not of a supported line (docs/release-lines.md)"
    run validate "$WORK/$platform.yaml"
    expect_no_out "[lint.gpu-operator-support]"
  done
  run validate "$WORK/oke.yaml" --set operators.gpu_operator.version=v25.10.1
  expect_status 0
  expect_out "warning: the bundle installs GPU Operator v25.10.1, whose line NVIDIA no longer supports"
  expect_out "fix: set operators.gpu_operator.version: $version (the newest supported release)"
  expect_out "[lint.gpu-operator-support]"
}

case_starter_says_once_that_its_images_are_pulled_by_tag() {
  # Was: 3 (OpenShift) or 5 (OKE) lint.image-digest warnings of ~350 characters each, every run.
  local platform
  for platform in openshift oke; do
    run init --platform $platform --shape BM.GPU.H100.8 --output-file "$WORK/$platform.yaml"
    run validate "$WORK/$platform.yaml"
    expect_status 0
    [[ $(grep -c '\[lint.image-digest\]' <<<"$out") == 1 ]] || fail "$platform: not one finding"
    expect_out "images are pulled by a tag, not by a digest"
    expect_out "workload image 'nvcr.io/nvidia/pytorch:24.05-py3'"
    local fix
    fix=$(grep -A4 '\[lint.image-digest\]' <<<"$out" | grep '^  fix: ')
    (( ${#fix} < 400 )) || fail "$platform: the fix is ${#fix} characters"
  done
}

case_openshift_starter_says_which_nodes_reboot() {
  # Was: machine_config_role: worker reboots every worker, CPU nodes included, unsaid.
  run init --platform openshift --shape barcelona-h100-cx7 --output-file "$WORK/os.yaml"
  run validate "$WORK/os.yaml"
  expect_status 0
  expect_out "note: iommu.machine_config_role is worker: the bundle's MachineConfig goes to the worker pool, so every worker drains and reboots, CPU nodes included"
  expect_out "[lint.worker-pool-reboots]"
  run validate "$WORK/os.yaml" --set iommu.machine_config_role=gpu
  expect_no_out "[lint.worker-pool-reboots]"
}

case_a_fault_in_a_base_shows_the_way_from_the_profile() {
  # Was: an error in an extends: base pointed into the shared base only.
  local case=tests/generator/lint_cases/layered-fault-in-base.yaml
  run validate "$case"
  expect_status 1
  expect_out "tests/generator/lint_cases/base/openshift-lab.yaml:23:16: error: "
  expect_out "[lint.memlock-uid]"$'\n'"  included from $case:4:10 (extends:)"
  run validate "$case" -o json
  jq -e --arg f "$case" '[.diagnostics[] | select(.rule == "lint.memlock-uid")][0].included_from ==
         [{"file": $f, "line": 4, "column": 10}]' <<<"$out" >/dev/null || fail "-o json: no included_from"
  # A value of the profile itself has no such line.
  expect_no_out "lint.gpus-idle\",\"included_from"
}

case_fleet_says_when_it_replaces_the_argo_cd_namespace() {
  # Was: a fleet render replaced an explicit gitops.argocd_namespace silently.
  local repo=$WORK/repo
  mkdir -p "$repo/.git"
  "$HKIMGEN" init --platform openshift --shape barcelona-h100-cx7 --name here \
    --repo-url https://github.com/acme/b.git --output-file "$repo/p/here.yaml" 2>/dev/null
  "$HKIMGEN" init --platform openshift --shape barcelona-h100-cx7 --name there \
    --repo-url https://github.com/acme/b.git --output-file "$repo/p/there.yaml" 2>/dev/null
  printf '  destination_server: https://api.there.example.com:6443\n' >>"$repo/p/there.yaml"
  run_at "$repo" render p/here.yaml p/there.yaml -d clusters
  expect_status 0
  expect_err "p/here.yaml:"
  expect_err "warning: gitops.argocd_namespace is \"openshift-gitops\", but the fleet's Applications live in the central Argo CD's namespace, \"argocd\" (--fleet-namespace), on this very cluster [fleet.argocd-namespace]"
  expect_err "fix: when the central Argo CD runs in \"openshift-gitops\", render the fleet with --fleet-namespace openshift-gitops"
  expect_err "note: gitops.argocd_namespace is \"openshift-gitops\""
  run_at "$repo" render p/here.yaml p/there.yaml -d clusters -q --fleet-namespace openshift-gitops
  expect_status 0
  expect_no_err "fleet.argocd-namespace"
}

case_fleet_without_destinations_is_one_error() {
  # Was: two starters naming no destination printed an error per shared object (9 for one cause).
  local repo=$WORK/repo
  mkdir -p "$repo/.git"
  "$HKIMGEN" init --platform oke --shape BM.GPU.H100.8 --name one --output-file "$repo/p/one.yaml" 2>/dev/null
  "$HKIMGEN" init --platform oke --shape BM.GPU.H100.8 --name two --output-file "$repo/p/two.yaml" 2>/dev/null
  run_at "$repo" render p/one.yaml p/two.yaml -d clusters
  expect_status 1
  [[ $(grep -c ': error: ' <<<"$err") == 1 ]] || fail "not one error"
  expect_err "error: 2 clusters of the fleet (one, two) name no Argo CD destination, so every one of them is synced to https://kubernetes.default.svc, the central Argo CD's own cluster, where their bundles collide ("
  expect_err "[fleet.no-destination]"
  expect_no_err "[lint.shared-cluster-object]"
  expect_no_err "[fleet.default-destination]"
  [[ ! -e $repo/clusters ]] || fail "the fleet was written"
  # Clusters with an Argo CD each are no fleet: the fix says to render each alone.
  expect_err "If each of these clusters runs its own Argo CD, they are no fleet: render each profile alone"
  # validate of the same profiles lists each collision, and how to check two clusters apart.
  run_at "$repo" validate p/one.yaml p/two.yaml
  expect_status 1
  expect_out "[lint.shared-cluster-object]"
  expect_out 'check each alone (`hkimgen validate A`, then `hkimgen validate B`'
}

case_explain_prints_a_list_one_entry_a_line() {
  # Was: lists and maps as one JSON line; OKE's argocd_namespace "(not set)".
  run explain "$OKE" 'network.rails[0]'
  expect_status 0
  expect_out $'network.rails[0] =\n    attachments_per_pod: 16\n    cni_version: "0.3.1"\n    ipam:\n      pool:\n        gateway: "192.168.0.1"'
  run explain "$OKE" node_shape.tolerations
  expect_out $'node_shape.tolerations =\n    - key: "nvidia.com/gpu"\n      operator: "Exists"'
  run explain "$OKE" namespaces
  expect_out $'namespaces =\n    - "gpu-training"\n  set by  '
  run explain "$OKE" gitops.argocd_namespace
  expect_out 'gitops.argocd_namespace = "argocd"   (derived)'
  expect_out "set by  hkimgen, from cluster.platform"
  run explain "$OKE" fabric_health.periodic.nodes
  expect_status 0
  expect_out "Deprecated and ignored"
}

case_completion_offers_only_warning_rules_to_allow() {
  # Was: --allow completed error rules too, which --allow then refuses.
  "$HKIMGEN" completion bash >"$WORK/c.bash"
  local words
  words=$(bash -c 'source "$1"; COMP_WORDS=(hkimgen lint P --allow lint.); COMP_CWORD=4;
                   _hkimgen; printf "%s\n" "${COMPREPLY[@]}"' _ "$WORK/c.bash")
  grep -qx lint.image-digest <<<"$words" || fail "a warning rule is not offered"
  grep -qx lint.memlock-uid <<<"$words" && fail "an error rule is offered"
  run lint "$B" --allow lint.memlock-uid
  expect_status 1
  expect_out "[profile.accept-error]"
}

case_images_names_the_node_debug_image_by_tag() {
  # Was: docker.io/library/busybox with no tag.
  run images "$OKE"
  expect_status 0
  expect_out "docker.io/library/busybox:1.37.0"
  grep -qx 'docker.io/library/busybox' <<<"$out" && fail "busybox without a tag"
  return 0
}

cli_run_case
