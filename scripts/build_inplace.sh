#!/usr/bin/env bash
# Rebuild the extensions in place, swapping each .so in by rename so running processes keep the old one.
set -euo pipefail
cd "$(dirname "$0")/.."
python setup.py build_ext -q -b build/lib_inplace -t build/tmp_inplace "$@"
find build/lib_inplace -name '*.so' | while read -r so; do
  dest="${so#build/lib_inplace/}"
  cp "$so" "$dest.tmp" && mv -f "$dest.tmp" "$dest"
done
