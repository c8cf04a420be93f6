#!/usr/bin/env bash
# Stand-in for the cluster-side tools the docs call (oc, kubectl, argocd, skopeo, cosign, oras,
# oc-mirror), for tests/cli/docs_test.sh: it answers what the hkimgen commands after it read
# (a cluster export, health logs, a digest) from fixtures, and accepts anything else. It never
# judges the command: a typo in a kubectl flag passes here.
fx=${HKIM_DOCS_FIXTURES:?}
tool=$(basename "$0")
args=" $* "
case $tool in
  oc | kubectl)
    case $args in
      *" api-resources "*)
        cat "$fx/api-resources.txt" ;;
      *" get secrets "*)
        echo '{"apiVersion": "v1", "kind": "List", "items": []}' ;;
      *" get "*sriovnetworknodestates*" -o json "* | *" get -A -o json "*sriovnetworknodestates*)
        cat "$fx/../../generator/cluster_check/barcelona.json" ;;
      *" get "*" -o json "* | *" get -A -o json "*)
        cat "$fx/../../generator/discover/oke-intel.json" ;;
      *" logs "*fabric-health*)
        cat "$fx/../../../docs/samples/health-periodic.log" ;;
      *" logs "*)
        cat "$fx/../../../docs/samples/gate-passed.log" ;;
    esac ;;
  skopeo)
    case $args in
      *" inspect "*) echo "sha256:$(printf '%064d' 0 | tr 0 a)" ;;
    esac ;;
esac
exit 0
