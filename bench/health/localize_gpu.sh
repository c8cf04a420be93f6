#!/usr/bin/env bash
# Issue 30's GPU proof (bench/RESULTS.md, "Localization"): the gate's pairwise localization on a
# two-GPU machine, with "pods" as processes of one host. NCCL treats ranks with different
# NCCL_HOSTID values as separate hosts (socket transport between them, slow), so:
#   fault:    3 pods on 2 GPUs: pods 0 and 1 on GPUs 0 and 1 with host id A, pod 2 on GPU 0 with
#             host id B. The 3-pod job check misses the threshold; the localization must name
#             pod 2's node (its pairs slow, 0-1 fast) within 3 rounds.
#   healthy:  2 pods, GPUs 0 and 1, one host id, HKIM_HEALTH_LOCALIZE=always: the job check
#             passes, the rounds still run, nobody is named.
#   low bar:  the fault's 3 pods with a threshold below the socket speed and
#             HKIM_HEALTH_LOCALIZE=always: every pair passes, nobody is named.
# Programs: BIN (default .dev30/bin: hkim-wrapper, hkim-health, hkim-nccl-check built on the
# development machine; CUDA and NCCL are opened at run time). NCCL: PyTorch's wheel's.
# Logs and summaries go to $OUT; prints PASS/FAIL per scenario.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/hkim-localize-out}
BIN=$(realpath "${BIN:-.dev30/bin}")
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [[ -z ${HKIM_NCCL_LIBRARY:-} ]]; then
  HKIM_NCCL_LIBRARY=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
  export HKIM_NCCL_LIBRARY
fi
AT=${AT:-256M}
failures=0
date -u +"date: %F %T UTC"; nvidia-smi -L; echo "NCCL: $HKIM_NCCL_LIBRARY"
"$BIN/hkim-nccl-check" --which-nccl

# run NAME MIN_GBPS LOCALIZE "GPU:HOSTID ..." -> one hkim-health gate per pod, in parallel
run() {
  local name=$1 min=$2 localize=$3 pods=($4) pids=() i=0 start end
  local n=${#pods[@]} port=$((31000 + RANDOM % 2000))
  start=$(date +%s.%N)
  for spec in "${pods[@]}"; do
    env CUDA_VISIBLE_DEVICES=${spec%%:*} NCCL_HOSTID=${spec##*:} HKIM_MODE=tcp HKIM_NCCL_CHECK=off \
      NCCL_SOCKET_IFNAME=lo HKIM_NODE_NAME=gpu-n0$i HKIM_POD_NAME=gate-$i HKIM_REPLICAS=$n \
      MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=$port HKIM_NCCL_CHECK_SCOPE=job \
      HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=$min HKIM_NCCL_CHECK_AT_BYTES=$AT HKIM_NCCL_CHECK_MAX_BYTES=$AT \
      HKIM_NCCL_CHECK_TRANSPORT=any HKIM_HEALTH_POLICY=fail HKIM_HEALTH_TIMEOUT_S=240 \
      HKIM_HEALTH_PAIR_TIMEOUT_S=90 HKIM_HEALTH_LOCALIZE=$localize \
      HKIM_HEALTH_TERMINATION_LOG="$OUT/$name-$i.termination" \
      "$BIN/hkim-health" gate --bin-dir "$BIN" > "$OUT/$name-$i.out" 2> "$OUT/$name-$i.log" &
    pids+=($!)
    i=$((i + 1))
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(date +%s.%N)
  echo "=== $name: $n pods, threshold $min GB/s at $AT, localize=$localize, $(python3 -c "print(round($end - $start, 1))") s"
  grep -h "hkim-health: localize\|SUSPECT\|busbw\|gate on" "$OUT/$name-0.log" | grep -v "^hkim-health: nccl-job:" | head -30
  for ((j = 0; j < n; ++j)); do
    [[ -s $OUT/$name-$j.termination ]] && echo "termination message of gate-$j: $(head -3 "$OUT/$name-$j.termination")"
  done
  python3 - "$OUT/$name-0.out" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    if line.startswith("HKIM_HEALTH_SUMMARY "):
        s = json.loads(line[20:])
        print("summary suspects:", json.dumps(s.get("suspects")))
        loc = s.get("localization") or {}
        print("rounds:", loc.get("rounds"), "seconds:", round(loc.get("seconds", 0), 1))
EOF
}
suspects() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.startswith("HKIM_HEALTH_SUMMARY "): print(" ".join(s["node"] for s in json.loads(l[20:]).get("suspects") or []))' "$1"; }
verdict() {  # verdict NAME WANT
  local got ok=1
  for f in "$OUT/$1"-*.out; do got=$(suspects "$f"); [[ $got == "$2" ]] || ok=0; done
  if ((ok)); then echo "PASS $1: suspects '$2' in every pod's summary"
  else echo "FAIL $1: wanted '$2', got '$(suspects "$OUT/$1-0.out")'"; failures=$((failures + 1)); fi
}

run fault 50 fail "0:hostA 1:hostA 0:hostB"; verdict fault gpu-n02
run healthy 50 always "0:hostA 1:hostA"; verdict healthy ""
run lowbar 1 always "0:hostA 1:hostA 0:hostB"; verdict lowbar ""
echo "failures: $failures"
exit $((failures > 0))
