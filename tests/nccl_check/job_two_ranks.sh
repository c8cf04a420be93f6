#!/usr/bin/env bash
# Job scope over loopback: pods "check-0" and "check-1" of a 2-replica job, one GPU each, meet at
# 127.0.0.1 and all-reduce across both GPUs. Exits 77 (skipped) with fewer than two GPUs, else 0
# when both processes pass. Extra arguments go to both processes; with HKIM_JOB_OUT_DIR set each
# writes check-<ordinal>.json and nccl-<ordinal>.log there.
set -uo pipefail
check=${1:?usage: job_two_ranks.sh PATH/TO/hkim-nccl-check [flags for both ranks]}
shift
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if (( gpus < 2 )); then
  echo "skipped: needs 2 GPUs, found ${gpus}" >&2
  exit 77
fi
port=${HKIM_RENDEZVOUS_PORT:-$(( 29650 + RANDOM % 1000 ))}
export NCCL_NVLS_ENABLE=0 HKIM_NCCL_CHECK_SCOPE=job HKIM_REPLICAS=2 MASTER_ADDR=127.0.0.1 \
  HKIM_RENDEZVOUS_PORT=$port HKIM_NCCL_CHECK_MAX_BYTES=${HKIM_NCCL_CHECK_MAX_BYTES:-64M}
pod_flags() {
  if [[ -n ${HKIM_JOB_OUT_DIR:-} ]]; then
    echo "--json ${HKIM_JOB_OUT_DIR}/check-$1.json --nccl-log ${HKIM_JOB_OUT_DIR}/nccl-$1.log"
  fi
}
# shellcheck disable=SC2046  # pod_flags is split into words on purpose
CUDA_VISIBLE_DEVICES=1 HKIM_POD_NAME=check-1 "$check" --rendezvous-timeout-s 60 $(pod_flags 1) "$@" &
peer=$!
# shellcheck disable=SC2046
CUDA_VISIBLE_DEVICES=0 HKIM_POD_NAME=check-0 "$check" --rendezvous-timeout-s 60 $(pod_flags 0) "$@"
rank0=$?
wait "$peer"
rank1=$?
echo "rank 0 exit ${rank0}, rank 1 exit ${rank1}" >&2
(( rank0 == 0 && rank1 == 0 ))
