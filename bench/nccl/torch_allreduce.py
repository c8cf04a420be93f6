"""torch.distributed.all_reduce bus bandwidth, one process per GPU (run under torchrun).

Same schedule as hkim-nccl-check: float32 sum, sizes MIN..MAX doubling, `warmup` untimed calls,
then IterationsFor(size) = clamp(4 GiB / size, 10, 100) timed calls between CUDA events; the time
of a size is the slowest rank's. busbw = bytes / time * 2(n-1)/n / 1e9 (nccl-tests' formula).
Rank 0 writes a JSON list of {bytes, iterations, time_us, algbw_gbps, busbw_gbps}.
"""
import argparse
import json
import os

import torch
import torch.distributed as dist


def iterations_for(size):
    return max(10, min(100, (4 << 30) // size))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--min-bytes", type=int, default=1 << 20)
    parser.add_argument("--max-bytes", type=int, default=1 << 30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    world = dist.get_world_size()
    buffer = torch.zeros(args.max_bytes // 4, dtype=torch.float32, device="cuda")
    results = []
    size = args.min_bytes
    while size <= args.max_bytes:
        x = buffer[: size // 4]
        iters = iterations_for(size)
        for _ in range(args.warmup):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            dist.all_reduce(x)
        stop.record()
        torch.cuda.synchronize()
        seconds = torch.tensor([start.elapsed_time(stop) / 1e3], device="cuda")
        dist.all_reduce(seconds, op=dist.ReduceOp.MAX)
        per_call = seconds.item() / iters
        algbw = size / per_call / 1e9
        results.append({"bytes": size, "iterations": iters, "time_us": per_call * 1e6,
                        "algbw_gbps": algbw, "busbw_gbps": algbw * 2 * (world - 1) / world})
        size *= 2
    if dist.get_rank() == 0:
        with open(args.out, "w") as f:
            json.dump({"world": world, "nccl_version": ".".join(map(str, torch.cuda.nccl.version())),
                       "torch_version": torch.__version__, "results": results}, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
