#!/usr/bin/env bash
# The pod programs' portability floor (cmake/HkimPortable.cmake, README "Supported training
# images"): every versioned glibc symbol a program needs is GLIBC_2.34 or older, and it needs
# no shared library beyond glibc's own and libgcc_s. Fails naming each offending symbol/library.
#   glibc_floor_test.sh PROGRAM...
set -euo pipefail
floor=2.34
allowed_needed=(libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 ld-linux-x86-64.so.2
                libgcc_s.so.1)
status=0
for program in "$@"; do
  # Versions this program requires from glibc: readelf -V lists them under .gnu.version_r.
  versions=$(readelf -V --wide "$program" | grep -oE 'Name: GLIBC_[0-9.]+' | sed 's/Name: GLIBC_//' | sort -uV)
  [[ -n $versions ]] || { echo "FAIL $program: no GLIBC version needs found (not a dynamic glibc program?)"; status=1; }
  for v in $versions; do
    if [[ $(printf '%s\n%s\n' "$v" "$floor" | sort -V | tail -1) != "$floor" ]]; then
      symbols=$(objdump -T "$program" | grep -F "(GLIBC_$v)" | awk '{print $NF}' | xargs)
      echo "FAIL $program: needs GLIBC_$v (> $floor) for: $symbols"
      status=1
    fi
  done
  while read -r needed; do
    if [[ " ${allowed_needed[*]} " != *" $needed "* ]]; then
      echo "FAIL $program: NEEDED $needed is neither glibc's nor libgcc_s"
      status=1
    fi
  done < <(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  echo "$program: GLIBC needs $(echo $versions | tr ' ' ,); NEEDED $(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | xargs)"
done
exit $status
