"""Prints hkim-nccl-check's and torch.distributed's all-reduce busbw side by side (markdown).

usage: compare.py --hkim-job A.json [B.json ...] --hkim-local ... --torch T1.json [T2.json ...]
Each hkim file is a --json record of hkim-nccl-check, each torch file an output of
torch_allreduce.py; repeated runs are summarised by their median per size.
"""
import argparse
import json
import statistics


def load(paths, key="results"):
    per_size = {}
    meta = []
    for path in paths:
        with open(path) as f:
            record = json.load(f)
        meta.append(record)
        for row in record[key]:
            per_size.setdefault(row["bytes"], []).append(row["busbw_gbps"])
    return {size: statistics.median(values) for size, values in per_size.items()}, meta


def human(size):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hkim-job", nargs="+", required=True)
    parser.add_argument("--hkim-local", nargs="*", default=[])
    parser.add_argument("--torch", nargs="+", required=True)
    args = parser.parse_args()

    job, job_meta = load(args.hkim_job)
    local, _ = load(args.hkim_local) if args.hkim_local else ({}, [])
    torch_bw, torch_meta = load(args.torch)
    print(f"hkim-nccl-check NCCL {job_meta[0]['nccl_version']}, "
          f"torch {torch_meta[0]['torch_version']} NCCL {torch_meta[0]['nccl_version']}, "
          f"{torch_meta[0]['world']} ranks; median of {len(args.hkim_job)} hkim job runs, "
          f"{len(args.hkim_local)} hkim local runs, {len(args.torch)} torch runs\n")
    header = "| size | hkim job busbw (GB/s) | hkim local busbw (GB/s) | torch busbw (GB/s) | job / torch | local / torch |"
    print(header)
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in sorted(torch_bw):
        t = torch_bw[size]
        j = job.get(size)
        l = local.get(size)
        fmt = lambda v: f"{v:.1f}" if v is not None else "-"
        ratio = lambda v: f"{v / t:.3f}" if v is not None and t > 0 else "-"
        print(f"| {human(size)} | {fmt(j)} | {fmt(l)} | {fmt(t)} | {ratio(j)} | {ratio(l)} |")


if __name__ == "__main__":
    main()
