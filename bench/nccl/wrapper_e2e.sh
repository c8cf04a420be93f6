#!/usr/bin/env bash
# End to end on a GPU machine, as a pod runs it: the init container's `hkim-wrapper --install-to`,
# then `hkim-wrapper -- JOB` with the health-check variables the generator renders
# (docs/ARCHITECTURE.md). HKIM_MODE=tcp because the GPU machine has no RDMA NICs (the profile's
# tcp mode). Checks that the job starts after a passing check, is stopped by a failing one under
# `fail`, and still starts under `warn`; then two "pods" (one GPU each) run the job-scope check
# through their wrappers over 127.0.0.1. Prints PASS/FAIL per step; exit 0 only when all pass.
# Needs .nccl-deps/include (nlohmann-json headers) where none is installed.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
deps=$PWD/${HKIM_DEPS:-.nccl-deps}
failures=0
expect() {  # expect NAME WANT_RC GOT_RC [must-contain-file pattern]
  local name=$1 want=$2 got=$3
  if [[ $want == nonzero && $got -ne 0 ]] || [[ $want == "$got" ]]; then
    echo "PASS $name (exit $got)"
  else
    echo "FAIL $name (exit $got, wanted $want)"; failures=$((failures + 1))
  fi
}

inc="" lib=""
for prefix in /usr/local/cuda /usr; do
  [[ -f $prefix/include/nccl.h ]] || continue
  for l in "$prefix"/lib64/libnccl.so "$prefix"/lib/libnccl.so "$prefix"/lib/x86_64-linux-gnu/libnccl.so; do
    if [[ -e $l ]]; then inc=$prefix/include lib=$l; break 2; fi
  done
done
build=build-e2e
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHKIM_BUILD_GENERATOR=OFF \
  -DHKIM_BUILD_TESTS=OFF -DHKIM_BUILD_NCCL_CHECK=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
  -DHKIM_NCCL_INCLUDE_DIR="$inc" -DHKIM_NCCL_LIBRARY="$lib" -DCMAKE_INCLUDE_PATH="$deps/include" \
  > /tmp/e2e-configure.log 2>&1 || { tail -30 /tmp/e2e-configure.log; exit 2; }
cmake --build $build -j "$(nproc)" --target hkim-wrapper hkim-nccl-check > /tmp/e2e-build.log 2>&1 \
  || { tail -40 /tmp/e2e-build.log; exit 2; }

# The init container: copy into the shared volume; the pod then runs only what is there.
bin=/tmp/hkim-bin
rm -rf $bin && mkdir -p $bin
$build/wrapper/hkim-wrapper --install-to $bin; expect "install-to copies wrapper + check" 0 $?
ls -l $bin

marker=/tmp/e2e-job-started
job=(sh -c 'echo "JOB STARTED as pid $$ with NCCL_IB_DISABLE=$NCCL_IB_DISABLE"; touch '$marker)
common=(HKIM_MODE=tcp HKIM_NCCL_CHECK_SCOPE=local HKIM_NCCL_CHECK_MAX_BYTES=256M
        HKIM_NCCL_CHECK_AT_BYTES=256M HKIM_NCCL_CHECK_TRANSPORT=P2P)

echo; echo "=== fail policy, threshold met (100 GB/s at 256 MiB over NVLink): the job starts"
rm -f $marker; start=$(date +%s.%N)
env "${common[@]}" HKIM_NCCL_CHECK=fail HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=100 $bin/hkim-wrapper -- "${job[@]}"
rc=$?; echo "wall $(python3 -c "print(f'{$(date +%s.%N) - $start:.2f}')") s (wrapper + check + job)"
[[ -f $marker ]] || rc=99; expect "passing check then job" 0 $rc

echo; echo "=== fail policy, impossible threshold (100000 GB/s): the pod stops, the job never starts"
rm -f $marker
env "${common[@]}" HKIM_NCCL_CHECK=fail HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=100000 $bin/hkim-wrapper -- "${job[@]}"
rc=$?; [[ -f $marker ]] && rc=0; expect "failing check stops the pod" nonzero $rc

echo; echo "=== warn policy, same impossible threshold: reported, the job starts"
rm -f $marker
env "${common[@]}" HKIM_NCCL_CHECK=warn HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=100000 $bin/hkim-wrapper -- "${job[@]}"
rc=$?; [[ -f $marker ]] || rc=99; expect "warn goes on to the job" 0 $rc

echo; echo "=== fail policy, NET/IB required on an NVLink-only machine: the pod stops"
rm -f $marker
env "${common[@]}" HKIM_NCCL_CHECK=fail HKIM_NCCL_CHECK_TRANSPORT=NET/IB HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=1 \
  $bin/hkim-wrapper -- "${job[@]}"
rc=$?; [[ -f $marker ]] && rc=0; expect "wrong transport stops the pod" nonzero $rc

echo; echo "=== two pods, one GPU each, job-scope check through their wrappers over 127.0.0.1"
if (( $(nvidia-smi -L | grep -c '^GPU ') >= 2 )); then
  pod=(HKIM_MODE=tcp HKIM_NCCL_CHECK=fail HKIM_NCCL_CHECK_SCOPE=job HKIM_REPLICAS=2
       MASTER_ADDR=127.0.0.1 HKIM_RENDEZVOUS_PORT=29731 HKIM_NCCL_CHECK_MAX_BYTES=256M
       HKIM_NCCL_CHECK_AT_BYTES=256M HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=100 HKIM_NCCL_CHECK_TRANSPORT=P2P)
  env "${pod[@]}" CUDA_VISIBLE_DEVICES=1 HKIM_POD_NAME=trainer-1 \
    $bin/hkim-wrapper -- sh -c 'echo "pod 1 JOB STARTED"' 2> /tmp/pod1.err &
  peer=$!
  env "${pod[@]}" CUDA_VISIBLE_DEVICES=0 HKIM_POD_NAME=trainer-0 \
    $bin/hkim-wrapper -- sh -c 'echo "pod 0 JOB STARTED"'
  rc0=$?; wait $peer; rc1=$?
  echo "--- pod 1 stderr:"; cat /tmp/pod1.err
  expect "pod 0 (rank 0) check + job" 0 $rc0
  expect "pod 1 (rank 1) check + job" 0 $rc1
else
  echo "skipped: needs 2 GPUs"
fi

echo; echo "$failures failed"
(( failures == 0 ))
