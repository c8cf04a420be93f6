#!/usr/bin/env bash
# Stand-in for the cluster-side tools the docs call (oc, kubectl, argocd, skopeo, cosign, oras,
# oc-mirror), for tests/cli/docs_test.sh: it answers what the hkimgen commands after it read
# (a cluster export, health logs, a digest) from fixtures, and accepts anything else. It never
# judges the command: a typo in a kubectl flag passes here. argocd records its arguments in
# $HKIM_DOCS_ARGOCD_LOG, one call a line.
fx=${HKIM_DOCS_FIXTURES:?}
tool=$(basename "$0")
args=" $* "
case $tool in
  oc | kubectl)
    case $args in
      *" api-resources "*)
        cat "$fx/api-resources.txt" ;;
      *" get --raw "*secrets*)
        echo '{"apiVersion": "v1", "kind": "SecretList", "metadata": {}, "items": []}' ;;
      *" get "*sriovnetworknodestates*" -o json "* | *" get -A -o json "*sriovnetworknodestates*)
        cat "$fx/../../generator/cluster_check/barcelona.json" ;;
      *" get "*" -o json "* | *" get -A -o json "*)
        # tests/generator/discover/oke-intel.json with its GPU pool as BM.GPU.H100.8 (README's
        # OKE path renders that shape): sed 's/BM.GPU.H200.8/BM.GPU.H100.8/;
        # s/NVIDIA-H200/NVIDIA-H100-80GB-HBM3/'.
        cat "$fx/oke-export.json" ;;
      *" logs "*fabric-health*)
        cat "$fx/../../../docs/samples/health-periodic.log" ;;
      *" logs "*)
        cat "$fx/../../../docs/samples/gate-passed.log" ;;
    esac ;;
  argocd)
    # What the docs asked Argo CD to do, in order (docs_test.sh checks the syncs against the
    # bundles the docs rendered).
    [[ -n ${HKIM_DOCS_ARGOCD_LOG:-} ]] && echo "$*" >>"$HKIM_DOCS_ARGOCD_LOG" ;;
  skopeo)
    case $args in
      *" inspect "*) echo "sha256:$(printf '%064d' 0 | tr 0 a)" ;;
    esac ;;
esac
exit 0
