#!/usr/bin/env bash
# The fabric-health programs on the GPU machine, in one go (bench/RESULTS.md, "Fabric health"):
# builds hkim-wrapper and hkim-nccl-check there, installs them the way the init container does
# (with hkim-health, carried prebuilt and static in .device/bin because that machine has no
# Boost), then runs what a gate pod and a health pod run. The machine has GPUs but no RDMA NIC,
# so: per-rail with no device (must fail: nothing to measure), per-rail over two named devices
# that do not exist (NCCL falls back to sockets: both rails down, named with numbers), the same
# in tcp mode (sockets allowed: the rails are measured and compared), the gate in job scope as
# two "pods" (one GPU each, over 127.0.0.1) with a threshold above the fabric (must fail with
# the numbers) and with one below it (must pass), per-rail in job scope (distinct rendezvous
# port per round), and node mode without an API (checks run, nothing marked, exit 2).
# Logs go to $OUT; prints PASS/FAIL per step.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/hkim-health-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
deps=$PWD/.device
failures=0
expect() {  # expect NAME WANT_RC GOT_RC
  if [[ $2 == nonzero && $3 -ne 0 ]] || [[ $2 == "$3" ]]; then echo "PASS $1 (exit $3)"
  else echo "FAIL $1 (exit $3, wanted $2)"; failures=$((failures + 1)); fi
}
step() { echo; echo "=== $* ($(date -u +%T))"; }

step machine
nvidia-smi -L; ls /sys/class/infiniband 2>&1 | head -3; ldd --version | head -1
build=build-health
if [[ -x $deps/bin/hkim-wrapper && -x $deps/bin/hkim-nccl-check && -x $deps/bin/hkim-health ]]; then
  # The portable programs CI builds (glibc + libgcc_s only; CUDA and NCCL loaded at run time),
  # carried in .device/bin: what the image ships, not a build for this machine.
  mkdir -p $build/wrapper && cp "$deps"/bin/hkim-* $build/wrapper/
else
  cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHKIM_BUILD_GENERATOR=OFF \
    -DHKIM_BUILD_TESTS=OFF -DCMAKE_INCLUDE_PATH="$deps/include" \
    > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 2; }
  cmake --build $build -j "$(nproc)" --target hkim-wrapper hkim-nccl-check > "$OUT/build.log" 2>&1 \
    || { tail -40 "$OUT/build.log"; exit 2; }
  cp "$deps/bin/hkim-health" $build/wrapper/
fi
# The gate's pods: one GPU each, as many as the machine has (at most 2).
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); pods=$((gpus >= 2 ? 2 : 1))
echo "GPUs: $gpus; gate pods: $pods"
bin=/tmp/hkim-bin; rm -rf $bin; mkdir -p $bin
$build/wrapper/hkim-wrapper --install-to $bin; expect "install-to copies wrapper, check, health" 0 $?
ls $bin

small=(HKIM_NCCL_CHECK_MAX_BYTES=64M HKIM_NCCL_CHECK_AT_BYTES=64M)
step "per-rail, local, no RDMA device at all: nothing to measure"
env "${small[@]}" HKIM_NODE_NAME=gpu-box $bin/hkim-nccl-check --scope local --per-rail > "$OUT/perrail-none.json" 2> "$OUT/perrail-none.log"
rc=$?; tail -3 "$OUT/perrail-none.log"; expect "per-rail without devices fails" 1 $rc

step "per-rail, local, two named devices that do not exist: NCCL falls back to sockets, both rails down"
env "${small[@]}" HKIM_NODE_NAME=gpu-box NCCL_IB_HCA==mlx5_fake0,mlx5_fake1 HKIM_NCCL_CHECK_EXPECT_RAILS=2 \
  HKIM_NCCL_CHECK_TRANSPORT=NET/IB $bin/hkim-nccl-check --scope local --per-rail --json - \
  > "$OUT/perrail-down.json" 2> "$OUT/perrail-down.log"
rc=$?; grep -E '^#|^  ' "$OUT/perrail-down.log" | tail -8; expect "socket fallback = rails down" 1 $rc

step "per-rail, local, tcp mode (sockets allowed), rails compared with min fraction 0.5"
env "${small[@]}" HKIM_MODE=tcp HKIM_NODE_NAME=gpu-box NCCL_IB_HCA==mlx5_fake0,mlx5_fake1 \
  HKIM_NCCL_CHECK_MIN_RAIL_FRACTION=0.5 $bin/hkim-nccl-check --scope local --per-rail --json - \
  > "$OUT/perrail-tcp.json" 2> "$OUT/perrail-tcp.log"
rc=$?; grep -E '^#|^  ' "$OUT/perrail-tcp.log" | tail -6; expect "tcp per-rail measures and compares" 0 $rc

gate() {  # gate NAME MIN_GBPS PER_RAIL -> runs two "pods" as the gate Job's pods run
  local name=$1 min=$2 per_rail=$3 pids=() rc=0
  for ((i = 0; i < pods; ++i)); do
    env "${small[@]}" CUDA_VISIBLE_DEVICES=$i HKIM_MODE=tcp HKIM_NCCL_CHECK=off \
      HKIM_NODE_NAME=gpu-box-$i HKIM_POD_NAME=train-fabric-gate-$i HKIM_REPLICAS=$pods \
      MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=29750 HKIM_NCCL_CHECK_SCOPE=job \
      HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=$min HKIM_NCCL_CHECK_TRANSPORT=any HKIM_HEALTH_POLICY=fail \
      HKIM_HEALTH_PER_RAIL=$per_rail NCCL_IB_HCA==mlx5_fake0,mlx5_fake1 HKIM_HEALTH_TIMEOUT_S=240 \
      $bin/hkim-wrapper -- $bin/hkim-health gate > "$OUT/$name-$i.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  return $rc
}
step "gate, job scope, $pods pod(s), threshold above the fabric (100000 GB/s): must fail with numbers"
gate gate-broken 100000 false; rc=$?
grep -E 'busbw|FAIL|result|hkim-health:' "$OUT/gate-broken-0.log" | tail -8
expect "broken profile fails the gate" 1 $rc
# With one GPU the gate has one rank: nothing crosses a link, so any threshold must fail
# ("cannot be proven") rather than pass unmeasured.
want_ok=0; ((pods == 1)) && want_ok=1
step "gate, job scope, $pods pod(s), threshold 0.5 GB/s: passes (fails unproven with one rank)"
gate gate-ok 0.5 false; rc=$?; grep -E 'result|FAIL|hkim-health: gate' "$OUT/gate-ok-0.log" | tail -3
expect "gate below the fabric" $want_ok $rc
step "gate, job scope, per rail (tcp mode; a distinct port per round)"
gate gate-perrail 0.5 true; rc=$?; grep -E '^#|^  |hkim-health: gate' "$OUT/gate-perrail-0.log" | tail -8
expect "job-scope per-rail rounds" $want_ok $rc

step "node mode without a Kubernetes API: checks run, nothing marked"
env "${small[@]}" HKIM_MODE=tcp HKIM_NODE_NAME=gpu-box HKIM_HEALTH_PER_RAIL=true \
  NCCL_IB_HCA==mlx5_fake0,mlx5_fake1 HKIM_NCCL_CHECK_MIN_RAIL_FRACTION=0.5 \
  $bin/hkim-wrapper -- $bin/hkim-health node > "$OUT/node-noapi.log" 2>&1
rc=$?; grep -E 'hkim-health:' "$OUT/node-noapi.log" | tail -6; expect "node mode without API exits 2" 2 $rc
cat "$OUT"/gate-*.log "$OUT/node-noapi.log" | grep HKIM_HEALTH_SUMMARY > "$OUT/summaries.txt"
tar czf "$OUT/logs.tgz" -C "$OUT" $(cd "$OUT" && ls *.log *.json) 2>/dev/null
echo; echo "failures: $failures"
exit $((failures > 0))
