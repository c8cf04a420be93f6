#!/usr/bin/env bash
# The wrapper image's own programs on the GPU machine, in one device call (bench/RESULTS.md,
# "The wrapper image on the GPU machine"). Run from the repository root:
#   bash bench/image/device_run.sh ROOTFS [GPU_TESTS]
# ROOTFS: the image unpacked here (`umoci unpack --image build/image:VERSION DIR`, DIR/rootfs),
# carried, since the GPU machine has no umoci. GPU_TESTS: optionally nccl_check_gpu_tests.
#   1. the init container's step inside the image's root (its glibc, user 65534, read-only root,
#      an empty folder at /opt/hkim/bin), as the StatefulSet runs it;
#   2. the installed hkim-nccl-check finds PyTorch's own NCCL (--which-nccl), and refuses a
#      missing one with exit 4;
#   3. the local and two-process job checks, and hkim-wrapper running the check before a job;
#   4. HKIM_BENCH_ROUNDS (default 3) rounds of the job check against torch.distributed.all_reduce
#      (bench/nccl/torch_allreduce.py), summarised by bench/nccl/compare.py into $OUT/bench.md.
set -uo pipefail
rootfs=$(realpath "${1:?usage: device_run.sh ROOTFS [GPU_TESTS]}")
gpu_tests=${2:-}
OUT=${OUT:-/tmp/hkim-image-out}
logs=$OUT/logs
mkdir -p "$logs"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
rounds=${HKIM_BENCH_ROUNDS:-3}
step() { echo; echo "=== $* ($(date -u +%T))"; }

step machine
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
ldd --version | head -1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
python3 -c 'import nvidia.nccl as m; print("torch NCCL wheel:", list(m.__path__)[0])' || true
echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"

step "init container: /hkim/bin/hkim-wrapper --install-to /opt/hkim/bin inside the image"
pod=/tmp/hkim-pod
bin=$pod/opt/hkim/bin
mkdir -p "$bin" && chmod 0777 "$bin"
mkdir -p "$rootfs/proc" "$rootfs/opt/hkim/bin"
unshare --mount --propagation private bash -euc '
  rootfs=$1 installed=$2
  mount --bind "$rootfs" "$rootfs"
  mount -o remount,bind,ro "$rootfs"
  mount -t proc proc "$rootfs/proc"
  mount --bind "$installed" "$rootfs/opt/hkim/bin"
  touch "$rootfs/hkim/probe" 2>/dev/null && { echo "root file system is writable"; exit 1; }
  exec chroot --userspec=65534:65534 "$rootfs" /hkim/bin/hkim-wrapper --install-to /opt/hkim/bin
' _ "$rootfs" "$bin"
echo "init step: exit $?"
ls -la "$bin"
(cd "$rootfs/hkim/bin" && sha256sum ./*) > "$logs/image.sha256"
(cd "$bin" && sha256sum -c "$logs/image.sha256") && echo "installed programs are the image's, byte for byte"
ldd "$bin/hkim-nccl-check" "$bin/hkim-wrapper"

step "NCCL the installed check loads"
"$bin/hkim-nccl-check" --which-nccl
HKIM_NCCL_LIBRARY=/nonexistent/libnccl.so.2 "$bin/hkim-nccl-check" --which-nccl
echo "missing NCCL: exit $? (expected 4)"

if [[ -n $gpu_tests ]]; then
  step "GPU tests of the runner (CudaApi/NcclApi, host fill and verify)"
  "$gpu_tests" 2>&1 | tail -15
fi

step "local scope, 2 GPUs, 1 MiB..1 GiB, P2P required, busbw >= 250 GB/s at 1 GiB"
"$bin/hkim-nccl-check" --scope local --transport P2P --min-busbw-gbps 250 --json "$logs/local.json"
echo "local check: exit $?"

step "job scope, 2 processes x 1 GPU over 127.0.0.1, 1 MiB..1 GiB, P2P required"
mkdir -p "$logs/job"
HKIM_JOB_OUT_DIR=$logs/job HKIM_NCCL_CHECK_MAX_BYTES=1G HKIM_NCCL_CHECK_TRANSPORT=P2P \
  HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=250 bash tests/nccl_check/job_two_ranks.sh "$bin/hkim-nccl-check"
echo "job check: exit $?"

step "hkim-wrapper runs the check before the job (HKIM_NCCL_CHECK=fail)"
HKIM_MODE=tcp HKIM_NCCL_CHECK=fail HKIM_NCCL_CHECK_MAX_BYTES=256M HKIM_NCCL_CHECK_TRANSPORT=P2P \
  HKIM_NCCL_CHECK_MIN_BUSBW_GBPS=100 "$bin/hkim-wrapper" -- echo "job started"
echo "wrapper: exit $?"

step "benchmark: $rounds rounds of hkim job and torch.distributed"
mkdir -p "$logs/bench"
for round in $(seq 1 "$rounds"); do
  mkdir -p "$logs/bench/job$round"
  HKIM_JOB_OUT_DIR=$logs/bench/job$round HKIM_NCCL_CHECK_MAX_BYTES=1G \
    bash tests/nccl_check/job_two_ranks.sh "$bin/hkim-nccl-check" --warmup 5 2> "$logs/bench/job$round.err"
  echo "round $round hkim job: exit $?"
  "$bin/hkim-nccl-check" --scope local --warmup 5 --json "$logs/bench/local$round.json" 2> "$logs/bench/local$round.err"
  echo "round $round hkim local: exit $?"
  torchrun --standalone --nproc_per_node=2 bench/nccl/torch_allreduce.py \
    --out "$logs/bench/torch$round.json" > "$logs/bench/torch$round.log" 2>&1
  echo "round $round torch: exit $?"
done

step results
{
  echo "date: $(date -u +%F)"
  echo "gpus: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sort | uniq -c | xargs)"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("hkim-nccl-check loaded NCCL", r["nccl_version"], "from", r["nccl_library"], "; CUDA driver", r["cuda_driver"])' "$logs/bench/job1/check-0.json"
  python3 bench/nccl/compare.py --hkim-job "$logs"/bench/job*/check-0.json \
    --hkim-local "$logs"/bench/local*.json --torch "$logs"/bench/torch*.json
} 2>&1 | tee "$OUT/bench.md"
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$logs"
