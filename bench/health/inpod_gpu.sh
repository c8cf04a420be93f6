#!/usr/bin/env bash
# Issue 48's GPU proof (bench/RESULTS.md, "In-pod fabric check"): `hkim-health pod` as the
# workload's StatefulSet runs it (`hkim-wrapper -- hkim-health pod -- <command>`), with "pods" as
# processes of one 4-GPU host, one GPU each, on 127.0.0.1. NCCL treats ranks with different
# NCCL_HOSTID values as separate hosts (socket transport between them), which makes exactly one
# pod's fabric slow while the others talk over NVLink:
#   healthy:  4 pods, GPUs 0-3, one host id: the job check passes, every pod writes its ready
#             file, `hkim-health ready` exits 0, and each execs the command (which writes a file
#             naming its pod, from the pod's own environment).
#   slow:     the same with pod 3 on its own host id: the job check misses the threshold, the
#             localization names gpu-n03 in every summary and termination message, no pod execs,
#             no ready file, every pod exits 1.
#   lone:     HKIM_REPLICAS=4 but only one pod started (ordinal 2 joining a rank 0 that never
#             listens; ordinal 0 serving peers that never come), 2 GPUs each: both run the local
#             and per-rail checks alone after HKIM_HEALTH_ASSEMBLE_TIMEOUT_S and exec the command.
#   taken:    the slow set, with the localization ports of pod 2's other two groups (and their
#             retry ports) held by another process: those groups are inconclusive (pod 2 could not
#             take part), pod 2 is not named, gpu-n03 is.
#   retried:  the healthy set with HKIM_HEALTH_LOCALIZE=always and round 0's first group's port
#             held (its retry port free): the group is retried on the other port and passes.
# Logs, summaries and ready/exec files go to OUT (a logs.tgz of them at the end); prints PASS/FAIL
# per scenario. Programs: BIN (default ./bin: hkim-wrapper, hkim-health, hkim-nccl-check built on the
# development machine; CUDA and NCCL are opened at run time). NCCL: PyTorch's wheel's.
set -uo pipefail
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/hkim-inpod-out}
BIN=$(realpath "${BIN:-bin}")
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [[ -z ${HKIM_NCCL_LIBRARY:-} ]]; then
  HKIM_NCCL_LIBRARY=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
  export HKIM_NCCL_LIBRARY
fi
AT=${AT:-256M}
MIN=${MIN:-50}
failures=0
date -u +"date: %F %T UTC"; nvidia-smi -L; echo "NCCL: $HKIM_NCCL_LIBRARY"
"$BIN/hkim-nccl-check" --which-nccl
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
now() { date +%s.%N; }
took() { python3 -c "print(round($2 - $1, 1))"; }

# pod NAME ORDINAL REPLICAS GPUS HOSTID PORT [VAR=VALUE...] -> one pod, in the background
pod() {
  local name=$1 i=$2 n=$3 gpus=$4 host=$5 port=$6; shift 6
  rm -f "$OUT/$name-exec-$i" "$OUT/$name-ready-$i" "$OUT/$name-term-$i"
  env CUDA_VISIBLE_DEVICES=$gpus NCCL_HOSTID=$host NCCL_SOCKET_IFNAME=lo HKIM_MODE=tcp \
    HKIM_NCCL_CHECK=off HKIM_NODE_NAME=gpu-n0$i HKIM_POD_NAME=train-$i HKIM_REPLICAS=$n \
    MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=$port HKIM_NCCL_CHECK_SCOPE=job \
    HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=$MIN HKIM_NCCL_CHECK_AT_BYTES=$AT HKIM_NCCL_CHECK_MAX_BYTES=$AT \
    HKIM_NCCL_CHECK_TRANSPORT=any HKIM_HEALTH_POLICY=fail HKIM_HEALTH_TIMEOUT_S=240 \
    HKIM_HEALTH_PAIR_TIMEOUT_S=30 HKIM_HEALTH_ASSEMBLE_TIMEOUT_S=60 HKIM_POD_REVISION=rev-a \
    HKIM_HEALTH_READY_FILE="$OUT/$name-ready-$i" HKIM_HEALTH_TERMINATION_LOG="$OUT/$name-term-$i" \
    EXEC_FILE="$OUT/$name-exec-$i" "$@" \
    "$BIN/hkim-wrapper" -- "$BIN/hkim-health" pod -- \
    sh -c 'echo "$HKIM_POD_NAME on $HKIM_NODE_NAME started $(date -u +%T)" > "$EXEC_FILE"' \
    > "$OUT/$name-$i.out" 2> "$OUT/$name-$i.log" &
}
# report NAME ORDINALS... -> what each pod did
report() {
  local name=$1; shift
  for i in "$@"; do
    python3 - "$OUT/$name-$i.out" "$name" "$i" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    if line.startswith("HKIM_HEALTH_SUMMARY "):
        s = json.loads(line[20:])
        checks = ", ".join(f'{c["name"]} {c["status"]}' + (f' ({c["detail"]})' if c["detail"] else "") for c in s["checks"])
        print(f'  {sys.argv[2]} pod {sys.argv[3]}: passed={s["passed"]} mode={s["mode"]}: {checks}')
        loc = s.get("localization")
        if loc and loc.get("ran"):
            for g in loc["groups"]:
                print(f'    round {g["round"]} {"-".join(g["nodes"])}: {g["status"]} {g["busbw_gbps"]:.1f} GB/s {g["transport"]} {g["seconds"]:.1f} s {g["detail"] if g["status"] != "pass" else ""}')
            for n in loc.get("notes", []): print("    note:", n)
        print("    suspects:", " ".join(x["node"] for x in s.get("suspects") or []) or "none")
PY
    local rc; rc=$(cat "$OUT/$name-$i.rc" 2>/dev/null)
    echo "    exit $rc; ready file: $([[ -e $OUT/$name-ready-$i ]] && cat "$OUT/$name-ready-$i" || echo none); exec: $([[ -e $OUT/$name-exec-$i ]] && cat "$OUT/$name-exec-$i" || echo none)"
    [[ -s $OUT/$name-term-$i ]] && echo "    termination message: $(head -2 "$OUT/$name-term-$i" | tr '\n' ' ')"
  done
}
wait_all() {  # wait_all NAME ORDINALS... (pids in the array pids)
  local name=$1; shift; local k=0
  for i in "$@"; do wait "${pids[$k]}"; echo $? > "$OUT/$name-$i.rc"; k=$((k + 1)); done
}
suspects_of() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if l.startswith("HKIM_HEALTH_SUMMARY "): print(" ".join(s["node"] for s in json.loads(l[20:]).get("suspects") or []))' "$1"; }
# hold PORT... -> listeners that take the ports (never accept), pid in $holder
hold() {
  python3 -c 'import socket, sys, time
ss = []
for p in sys.argv[1:]:
    s = socket.socket(); s.bind(("0.0.0.0", int(p))); s.listen(8); ss.append(s)
print("holding", *sys.argv[1:], flush=True); time.sleep(600)' "$@" &
  holder=$!
  sleep 1
}

echo; echo "=== healthy: 4 pods, one host id, min $MIN GB/s at $AT"
base=$((31000 + RANDOM % 1000 * 20)); start=$(now); pids=()
for i in 0 1 2 3; do pod healthy $i 4 $i hostA $base; pids+=($!); done
wait_all healthy 0 1 2 3; echo "  wall $(took "$start" "$(now)") s"; report healthy 0 1 2 3
ok=1
for i in 0 1 2 3; do
  [[ $(cat "$OUT/healthy-$i.rc") == 0 && -e $OUT/healthy-exec-$i ]] || ok=0
  HKIM_HEALTH_READY_FILE="$OUT/healthy-ready-$i" "$BIN/hkim-health" ready || ok=0
done
((ok)) && pass "healthy: every pod passed, is ready and ran the command" || fail "healthy"

echo; echo "=== slow: pod 3 on its own host id (NET/Socket to the others)"
base=$((base + 40)); start=$(now); pids=()
for i in 0 1 2; do pod slow $i 4 $i hostA $base; pids+=($!); done
pod slow 3 4 3 hostB $base; pids+=($!)
wait_all slow 0 1 2 3; echo "  wall $(took "$start" "$(now)") s"; report slow 0 1 2 3
ok=1
for i in 0 1 2 3; do
  [[ $(cat "$OUT/slow-$i.rc") == 1 && ! -e $OUT/slow-exec-$i && ! -e $OUT/slow-ready-$i ]] || ok=0
  [[ $(suspects_of "$OUT/slow-$i.out") == gpu-n03 ]] || ok=0
done
probe=$(HKIM_HEALTH_READY_FILE="$OUT/slow-ready-0" "$BIN/hkim-health" ready); echo "  ready probe: $probe (exit $?)"
((ok)) && pass "slow: gpu-n03 named by every pod, none ran the command" || fail "slow"

echo; echo "=== lone: HKIM_REPLICAS=4, one pod started (ordinal 2 joining, ordinal 0 serving), assemble timeout 20 s, min ${LONE_MIN:-1} GB/s"
base=$((base + 40)); start=$(now); pids=()
# No RDMA NIC here: the per-rail rounds run over sockets (~3 GB/s), so the lone pods' threshold is
# 1 GB/s (at 50 GB/s the per-rail check fails and the pods, rightly, do not start the command).
rails=(HKIM_HEALTH_ASSEMBLE_TIMEOUT_S=20 HKIM_HEALTH_PER_RAIL=true NCCL_IB_HCA==mlx5_fake0,mlx5_fake1
       HKIM_NCCL_CHECK_MIN_RAIL_FRACTION=0.2 HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=${LONE_MIN:-1})
pod lone 2 4 0,1 hostA $base "${rails[@]}"; pids+=($!)
pod lone 0 4 2,3 hostA $((base + 20)) "${rails[@]}"; pids+=($!)
wait_all lone 2 0; echo "  wall $(took "$start" "$(now)") s"; report lone 2 0
grep -h "assemble" "$OUT/lone-2.log" "$OUT/lone-0.log" | sed 's/^/  /'
ok=1
for i in 2 0; do
  [[ $(cat "$OUT/lone-$i.rc") == 0 && -e $OUT/lone-exec-$i ]] || ok=0
  grep -q 'ran alone: the pod set did not assemble within 20 s' "$OUT/lone-$i.out" || ok=0
done
((ok)) && pass "lone: both finished alone after the local checks and ran the command" || fail "lone"

echo; echo "=== taken: the slow set, pod 2's round-1 and round-2 ports and their retry ports held"
base=$((base + 60))
# 4 pods, no rails: group g of round r on base+2+(2r+g), its retry on base+2+(2(3+r)+g);
# round 1 is 0-3 (g0), 1-2 (g1); round 2 is 0-2 (g0), 1-3 (g1).
hold $((base + 5)) $((base + 11)) $((base + 6)) $((base + 12))
start=$(now); pids=()
for i in 0 1 2; do pod taken $i 4 $i hostA $base; pids+=($!); done
pod taken 3 4 3 hostB $base; pids+=($!)
wait_all taken 0 1 2 3; echo "  wall $(took "$start" "$(now)") s"; kill "$holder"; report taken 0 1 2 3
ok=1
for i in 0 1 2 3; do
  [[ $(suspects_of "$OUT/taken-$i.out") == gpu-n03 && $(cat "$OUT/taken-$i.rc") == 1 ]] || ok=0
done
grep -q '"status":"inconclusive"' "$OUT/taken-0.out" || ok=0
((ok)) && pass "taken: pod 2's groups inconclusive, only gpu-n03 named" || fail "taken"

echo; echo "=== retried: healthy set, LOCALIZE=always, round 0 group 0-1's port held (its retry port free)"
base=$((base + 60))
hold $((base + 2))
start=$(now); pids=()
for i in 0 1 2 3; do pod retried $i 4 $i hostA $base HKIM_HEALTH_LOCALIZE=always; pids+=($!); done
wait_all retried 0 1 2 3; echo "  wall $(took "$start" "$(now)") s"; kill "$holder"; report retried 0
grep -h "retry" "$OUT/retried-0.log" | sed 's/^/  /'
ok=1
for i in 0 1 2 3; do [[ $(cat "$OUT/retried-$i.rc") == 0 && -e $OUT/retried-exec-$i ]] || ok=0; done
grep -q 'round 0 retry gpu-n00-gpu-n01: pass' "$OUT/retried-0.log" || ok=0
((ok)) && pass "retried: the group passed on its retry port, every pod ran the command" || fail "retried"

tar czf "$OUT/logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log *.out) 2>/dev/null
echo; echo "failures: $failures"
exit $((failures > 0))
