#!/usr/bin/env bash
# Everything for the GPU machine in one go (bench/RESULTS.md says how it was called):
#   machine facts -> build hkim-nccl-check there -> all its tests (gpu ones included) -> local and
#   2-rank job checks (timed, with transport requirements, plus negative cases that must fail) ->
#   benchmark against torch.distributed.all_reduce, same GPUs, same run -> $OUT.
# Needs .nccl-deps/ (GoogleTest sources, CLI11 and nlohmann-json headers) carried from here,
# since nothing can be installed there.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/hkim-nccl-out}
logs=$OUT/logs
mkdir -p "$logs"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
deps=$PWD/${HKIM_DEPS:-.nccl-deps}
rounds=${HKIM_BENCH_ROUNDS:-3}
step() { echo; echo "=== $* ($(date -u +%T))"; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.2f}')"; }

step machine
date -u
nvidia-smi
nvidia-smi topo -m
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
echo "cores: $(nproc), kernel: $(uname -r)"
python3 -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count(), "nccl", torch.cuda.nccl.version())'
which nvcc cmake ninja
nvcc --version | tail -2
find / -xdev \( -name 'libnccl.so*' -o -name nccl.h \) 2>/dev/null | grep -v '^/proc' | head -20

step locate NCCL
torch_nccl=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
inc="" lib=""
for prefix in /usr/local/cuda /usr "$torch_nccl"; do
  [[ -n $prefix && -f $prefix/include/nccl.h ]] || continue
  for l in "$prefix"/lib64/libnccl.so "$prefix"/lib/libnccl.so "$prefix"/lib/x86_64-linux-gnu/libnccl.so \
           "$prefix"/lib/libnccl.so.2 "$prefix"/lib64/libnccl.so.2; do
    if [[ -e $l ]]; then inc=$prefix/include lib=$l; break 2; fi
  done
done
echo "build against: $inc $lib; torch's NCCL: ${torch_nccl:-none}"
grep -E '#define NCCL_(MAJOR|MINOR|PATCH) ' "$inc/nccl.h"

step build
build=build-nccl-device
cmake -S bench/nccl/standalone -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" \
  -DHKIM_NCCL_INCLUDE_DIR="$inc" -DHKIM_NCCL_LIBRARY="$lib" \
  -DHKIM_GTEST_SOURCE_DIR="$deps/googletest" -DCMAKE_INCLUDE_PATH="$deps/include" > "$logs/configure.log" 2>&1 \
  || { cat "$logs/configure.log"; echo "configure failed"; }
cmake --build $build -j "$(nproc)" > "$logs/build.log" 2>&1 || { tail -60 "$logs/build.log"; echo "build failed"; }
bin=$PWD/$build/wrapper/hkim-nccl-check
ldd "$bin" | grep -E 'nccl|cudart'

step tests, gpu ones included
ctest --test-dir $build --output-on-failure 2>&1 | tee "$logs/ctest.log" | tail -25

step local scope, 1 MiB..1 GiB, P2P required, busbw '>=' 250 GB/s at 1 GiB
t0=$(now)
"$bin" --scope local --transport P2P --min-busbw-gbps 250 --json "$logs/local.json" \
  --nccl-log "$logs/nccl-local.log"
rc=$?
echo "local check: exit $rc, wall $(elapsed "$t0" "$(now)") s (process start to exit)"

step job scope, 2 processes x 1 GPU over 127.0.0.1, 1 MiB..1 GiB, P2P required
mkdir -p "$logs/job"
t0=$(now)
HKIM_JOB_OUT_DIR=$logs/job HKIM_NCCL_CHECK_MAX_BYTES=1G HKIM_NCCL_CHECK_TRANSPORT=P2P \
  HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=250 bash tests/nccl_check/job_two_ranks.sh "$bin"
rc=$?
echo "job check: exit $rc, wall $(elapsed "$t0" "$(now)") s (both processes, start to exit)"

step negative: local scope but NET/IB required, must FAIL with exit 1
"$bin" --scope local --max-bytes 16M --transport NET/IB
echo "exit $? (expected 1)"

step negative: job scope with P2P and SHM disabled = TCP over loopback, 1 MiB..1 GiB, NET/IB required, must FAIL
mkdir -p "$logs/tcp"
NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo \
  HKIM_JOB_OUT_DIR=$logs/tcp HKIM_NCCL_CHECK_MAX_BYTES=1G HKIM_NCCL_CHECK_TRANSPORT=NET/IB \
  bash tests/nccl_check/job_two_ranks.sh "$bin"
echo "exit $? (expected non-zero)"

step benchmark: $rounds rounds of hkim job, hkim local, torch.distributed
mkdir -p "$logs/bench"
for round in $(seq 1 "$rounds"); do
  mkdir -p "$logs/bench/job$round"
  HKIM_JOB_OUT_DIR=$logs/bench/job$round HKIM_NCCL_CHECK_MAX_BYTES=1G \
    bash tests/nccl_check/job_two_ranks.sh "$bin" --warmup 5 2> "$logs/bench/job$round.err"
  echo "round $round hkim job: exit $?"
  "$bin" --scope local --warmup 5 --json "$logs/bench/local$round.json" 2> "$logs/bench/local$round.err"
  echo "round $round hkim local: exit $?"
  torchrun --standalone --nproc_per_node=2 bench/nccl/torch_allreduce.py \
    --out "$logs/bench/torch$round.json" > "$logs/bench/torch$round.log" 2>&1
  echo "round $round torch: exit $?"
  if [[ -n $torch_nccl && $lib != "$torch_nccl"* ]]; then
    mkdir -p "$logs/bench/tjob$round"
    LD_LIBRARY_PATH=$torch_nccl/lib HKIM_JOB_OUT_DIR=$logs/bench/tjob$round HKIM_NCCL_CHECK_MAX_BYTES=1G \
      bash tests/nccl_check/job_two_ranks.sh "$bin" --warmup 5 2> "$logs/bench/tjob$round.err"
    echo "round $round hkim job with torch's NCCL: exit $?"
  fi
done

step results
{
  echo "date: $(date -u +%F)"
  echo "gpus: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sort | uniq -c | xargs)"
  python3 bench/nccl/compare.py --hkim-job "$logs"/bench/job*/check-0.json \
    --hkim-local "$logs"/bench/local*.json --torch "$logs"/bench/torch*.json
  if ls "$logs"/bench/tjob*/check-0.json > /dev/null 2>&1; then
    echo; echo "hkim-nccl-check loaded with torch's NCCL (LD_LIBRARY_PATH):"
    python3 bench/nccl/compare.py --hkim-job "$logs"/bench/tjob*/check-0.json \
      --torch "$logs"/bench/torch*.json
  fi
} 2>&1 | tee "$OUT/bench.md"
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$logs"
