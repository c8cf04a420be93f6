#!/bin/bash
# The peer for the start-up benchmark: the seeds' bash wrapper logic (seed 003, the
# nccl-ib-autodetect ConfigMap), rewritten here step for step so both programs do the same work
# on the same fixture: raise memlock, collect rdma_dev from every PCIDEVICE_*_INFO variable,
# fall back to SR-IOV VFs under sysfs, default the NCCL variables, print the configuration,
# exec the command. The one change: sysfs is read under ${HKIM_SYSFS_ROOT:-/sys}, so the peer
# sees the same fixture tree as hkim-wrapper --sysfs-root.
sysfs=${HKIM_SYSFS_ROOT:-/sys}

ulimit -l unlimited 2>/dev/null || echo "Warning: Could not set unlimited memlock" >&2
echo "=== NCCL InfiniBand Auto-Detection ===" >&2
limit=$(ulimit -l)
if [ "$limit" != "unlimited" ]; then
  echo "WARNING: Memory lock limit is $limit KB (should be unlimited for RDMA)" >&2
  ulimit -l unlimited 2>/dev/null && echo "  Set to unlimited" >&2 || echo "  Failed to set unlimited" >&2
else
  echo "Memory lock limit: unlimited" >&2
fi

devices=""
for var in $(env | grep "PCIDEVICE_.*_INFO=" | cut -d= -f1); do
  dev=$(eval echo \$$var | grep -o '"rdma_dev":"[^"]*"' | cut -d'"' -f4)
  if [ -n "$dev" ]; then
    devices="${devices:+$devices,}$dev"
  fi
done

if [ -n "$devices" ]; then
  export NCCL_IB_HCA="$devices"
  echo "Auto-detected allocated SR-IOV devices: $NCCL_IB_HCA" >&2
  echo "Found $(echo "$devices" | tr ',' '\n' | wc -l) SR-IOV allocated device(s)" >&2
else
  echo "Warning: No SR-IOV devices found in environment variables; trying VFs" >&2
  vfs=""
  for path in "$sysfs"/class/infiniband/*; do
    dev=$(basename "$path")
    if [ -L "$sysfs/class/infiniband/$dev/device/physfn" ]; then
      vfs="${vfs:+$vfs,}$dev"
    fi
  done
  [ -n "$vfs" ] && export NCCL_IB_HCA="$vfs" && echo "Using SR-IOV VF devices: $NCCL_IB_HCA" >&2
fi

export NCCL_DEBUG=${NCCL_DEBUG:-INFO}
export NCCL_IB_DISABLE=${NCCL_IB_DISABLE:-0}
export NCCL_NET_GDR_LEVEL=${NCCL_NET_GDR_LEVEL:-5}
export NCCL_IB_GID_INDEX=${NCCL_IB_GID_INDEX:-3}
export NCCL_IB_TIMEOUT=${NCCL_IB_TIMEOUT:-22}

{
  echo ""
  echo "=== NCCL Configuration ==="
  env | grep ^NCCL_ | sort | sed 's/^/  /'
  echo "  MEMLOCK_LIMIT=$(ulimit -l)"
  echo "=========================="
} >&2

exec "$@"
