#!/usr/bin/env python3
# Prints the NCCL_* environment variable names that NVIDIA/nccl reads in the given release tags
# (generator/lint/rules/nccl_env_names.txt). Usage: nccl-env-names.py NCCL_GIT_CHECKOUT TAG...
import sys
import re, subprocess
repo = sys.argv[1]
def names_at(tag):
    files = subprocess.run(['git','-C',repo,'grep','-lE','NCCL_PARAM|DEFINE_NCCL_PARAM|GetEnv|getenv',tag,'--','src'],capture_output=True,text=True).stdout.split()
    out=set()
    for f in files:
        path=f.split(':',1)[1]
        text=subprocess.run(['git','-C',repo,'show',f"{tag}:{path}"],capture_output=True,text=True,errors='replace').stdout
        for m in re.finditer(r'\bNCCL_PARAM\(\s*\w+\s*,\s*"([A-Z0-9_]+)"',text): out.add('NCCL_'+m.group(1))
        for m in re.finditer(r'\bDEFINE_NCCL_PARAM\(\s*\w+\s*,\s*[^,]+,\s*(NCCL_[A-Z0-9_]+)',text): out.add(m.group(1))
        for m in re.finditer(r'\b(?:ncclGetEnv|getenv|std::getenv)\(\s*"(NCCL_[A-Z0-9_]+)"',text): out.add(m.group(1))
        for m in re.finditer(r'\bncclGetLevel\(\s*[^,]+,\s*(?:"(NCCL_[A-Z0-9_]+)"|NULL)\s*,\s*"(NCCL_[A-Z0-9_]+)"',text):
            out.update(n for n in m.groups() if n)
    return out
tags = sys.argv[2:]
allnames={}
for t in tags:
    for n in names_at(t): allnames.setdefault(n,[]).append(t)
for n in sorted(allnames): print(n)
