#!/usr/bin/env bash
# Runs a command against a build of the extensions instrumented with AddressSanitizer and
# UndefinedBehaviorSanitizer, in a copy of the working tree with its own virtualenv.
#
#   scripts/sanitize.sh [--dir DIR] [--no-install] [COMMAND ...]
#
# DIR (default ${TMPDIR:-/tmp}/zerogym-sanitize) receives the tracked and untracked-but-not-ignored
# files of this working tree; DIR/.venv is created on the first run (torch==2.13.0, the CPU build,
# first) and reused after; zerogym is installed there with ZEROGYM_SANITIZE=1 pip install -e ".[agents,test]"
# (--no-install skips that step when no .pyx changed).  COMMAND runs in DIR with the venv's bin first
# on PATH, where `python` runs with the sanitizer runtimes; the default is the test suite (tests/,
# not the notebooks).  Any sanitizer report aborts the process, so the command fails.  Exit status:
# the command's.  The working tree itself is never built or changed.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
dir="${TMPDIR:-/tmp}/zerogym-sanitize"
install=1
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --no-install) install=0; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- python -m pytest -q -p no:cacheprovider tests
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
if [ "$dir" = "$src" ]; then
  echo "sanitize.sh: --dir must not be the working tree itself" >&2
  exit 2
fi

# ---- copy the working tree (files that were removed here are removed there too) ------------------
manifest="$dir/.sanitize-files"
new_manifest="$(mktemp)"
(cd "$src" && git ls-files -z --cached --others --exclude-standard \
   | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done) > "$new_manifest"
if [ -f "$manifest" ]; then
  # stale files: in the last copy's list, not in this one
  python3 - "$manifest" "$new_manifest" "$dir" <<'EOF'
import os, sys
old = set(open(sys.argv[1], "rb").read().split(b"\0")) - {b""}
new = set(open(sys.argv[2], "rb").read().split(b"\0")) - {b""}
for f in old - new:
    p = os.path.join(sys.argv[3].encode(), f)
    if os.path.isfile(p):
        os.unlink(p)
EOF
fi
tar -C "$src" --null -T "$new_manifest" -cf - | tar -C "$dir" -xf -
mv "$new_manifest" "$manifest"
cd "$dir"

# ---- the venv, whose python runs under the sanitizer runtimes --------------------------------------
libasan="$(gcc -print-file-name=libasan.so)"
libubsan="$(gcc -print-file-name=libubsan.so)"
for lib in "$libasan" "$libubsan"; do
  if [ ! -e "$lib" ]; then
    echo "sanitize.sh: $lib not found (gcc's sanitizer runtimes: Debian packages libasan8, libubsan1)" >&2
    exit 2
  fi
done
[ -e .venv/bin/python ] || python3 -m venv .venv
# The interpreter is not instrumented, so the runtimes are preloaded (ASan must be the first library),
# but only into Python: .venv/bin/python (and python3, python3.X) becomes a wrapper that sets
# LD_PRELOAD and runs the interpreter under the wrapper's name (so sys.executable, and every Python
# subprocess and console script, goes through the wrapper again), and _zerogym_sanitize, imported at
# startup by a .pth file, takes the runtimes out of LD_PRELOAD again, so that the other programs Python
# starts (pgrep, gcc, gnugo) run without them: pgrep, for one, hangs under a preloaded ASan.
# PYTHONMALLOC=malloc: every Python and PyMem allocation goes through malloc, so ASan sees the bounds
# of each (pymalloc would hide small blocks, such as the state blobs, inside its arenas).
# detect_leaks=0: CPython keeps objects alive until exit by design, which LeakSanitizer reports.
# allocator_may_return_null=1: an impossible allocation returns NULL as malloc does (the code under
# test then raises MemoryError) instead of aborting the process.
# ZEROGYM_SANITIZE_PLAIN=1 runs the wrapper without the runtimes (pip does).
if [ ! -e .venv/bin/python-plain ]; then
  if [ ! -L .venv/bin/python ]; then
    echo "sanitize.sh: $dir/.venv/bin/python is not the venv's interpreter link; remove $dir/.venv" >&2
    exit 2
  fi
  ln -s "$(readlink -f .venv/bin/python)" .venv/bin/python-plain
fi
base="$(readlink -f .venv/bin/python-plain)"
preload="$libasan $libubsan"
for name in python python3 "$(basename "$base")"; do
  rm -f ".venv/bin/$name"
  cat > ".venv/bin/$name" <<EOF
#!/bin/bash
# written by scripts/sanitize.sh: this venv's Python with the ASan and UBSan runtimes preloaded
if [ -z "\${ZEROGYM_SANITIZE_PLAIN:-}" ]; then
  export LD_PRELOAD="$preload\${LD_PRELOAD:+ \$LD_PRELOAD}"
  export ZEROGYM_SANITIZE_PRELOAD="$preload"
  export PYTHONMALLOC=malloc
  export ASAN_OPTIONS="\${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:halt_on_error=1:abort_on_error=1:print_stacktrace=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}"
  export UBSAN_OPTIONS="\${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:report_error_type=1}"
fi
exec -a "\$0" "$base" "\$@"
EOF
  chmod +x ".venv/bin/$name"
done
site="$(.venv/bin/python-plain -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
cat > "$site/_zerogym_sanitize.py" <<'EOF'
"""Written by scripts/sanitize.sh: the sanitizer runtimes stay out of the programs Python starts."""
import os

_ours = os.environ.get("ZEROGYM_SANITIZE_PRELOAD", "").split()
if _ours:
    _rest = [p for p in os.environ.get("LD_PRELOAD", "").split() if p not in _ours]
    if _rest:
        os.environ["LD_PRELOAD"] = " ".join(_rest)
    else:
        os.environ.pop("LD_PRELOAD", None)
EOF
echo "import _zerogym_sanitize" > "$site/_zerogym_sanitize.pth"

export ZEROGYM_SANITIZE_PLAIN=1
if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q --upgrade pip
  # the CPU build of torch first (a plain "torch>=2.1" would pull several GB of CUDA wheels)
  .venv/bin/python -m pip install -q torch==2.13.0
  install=1
fi
if [ "$install" = 1 ]; then
  ZEROGYM_SANITIZE=1 .venv/bin/python -m pip install -q -e ".[agents,test]"
fi
unset ZEROGYM_SANITIZE_PLAIN

# ---- run --------------------------------------------------------------------------------------------
export PATH="$dir/.venv/bin:$PATH"
echo "sanitize.sh: running in $dir: $*" >&2
exec "$@"
