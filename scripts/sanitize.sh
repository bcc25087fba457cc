#!/usr/bin/env bash
# Runs a command against a build of the extensions instrumented with AddressSanitizer and
# UndefinedBehaviorSanitizer (the default) or with ThreadSanitizer (--thread), in a copy of the
# working tree with its own virtualenv.
#
#   scripts/sanitize.sh [--thread] [--self-test] [--dir DIR] [--no-install] [COMMAND ...]
#
# DIR (default ${TMPDIR:-/tmp}/zerogym-sanitize, with --thread ${TMPDIR:-/tmp}/zerogym-tsan) receives
# the tracked and untracked-but-not-ignored files of this working tree; DIR/.venv is created on the
# first run (torch==2.13.0, the CPU build, first) and reused after; zerogym is installed there with
# ZEROGYM_SANITIZE=1 (--thread: =thread) pip install -e ".[agents,test]" (--no-install skips that step
# when no .pyx changed).  COMMAND runs in DIR with the venv's bin first on PATH, where `python` runs
# with the sanitizer runtime(s); the default is the test suite (tests/, not the notebooks).  Any
# sanitizer report aborts the process, so the command fails.  Exit status: the command's.  The working
# tree itself is never built or changed.
#
# --thread builds with clang against LLVM's libomp, and runs Python with a TSan runtime preloaded and
# LLVM's Archer OpenMP tool (OMP_TOOL_LIBRARIES), through which TSan learns OpenMP's barriers.  It
# needs clang, libomp with libarcher.so and a TSan runtime that starts (Debian: apt-get install clang
# libomp-dev libtsan2; run as root with apt-get, the script installs what is missing).  Before the
# command it runs a self-test in the venv's Python: an OpenMP loop whose threads write an array that is
# read after the loop must pass (and must be reported without Archer), a plain write-write race
# between two threads must be reported; --self-test runs only that (and implies --thread).  Under
# pytest, pass --capture=sys: a report written into pytest's fd capture is lost when the process aborts.
set -euo pipefail

src="$(cd "$(dirname "$0")/.." && pwd)"
dir=""
install=1
mode=address
self_test_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --no-install) install=0; shift ;;
    --thread) mode=thread; shift ;;
    --self-test) mode=thread; self_test_only=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "sanitize.sh: unknown option $1 (see scripts/sanitize.sh --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || set -- python -m pytest -q -p no:cacheprovider tests
if [ -z "$dir" ]; then
  if [ "$mode" = thread ]; then dir="${TMPDIR:-/tmp}/zerogym-tsan"; else dir="${TMPDIR:-/tmp}/zerogym-sanitize"; fi
fi
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
[ -e .venv/bin/python ] || python3 -m venv .venv
if [ ! -e .venv/bin/python-plain ]; then
  if [ ! -L .venv/bin/python ]; then
    echo "sanitize.sh: $dir/.venv/bin/python is not the venv's interpreter link; remove $dir/.venv" >&2
    exit 2
  fi
  ln -s "$(readlink -f .venv/bin/python)" .venv/bin/python-plain
fi
base="$(readlink -f .venv/bin/python-plain)"

find_tsan_tools() {
  # sets archer (LLVM's OpenMP tool for TSan) and libtsan (a TSan runtime that starts), and `missing`
  archer="" libtsan="" missing=""
  if ! command -v clang >/dev/null 2>&1; then
    missing="clang"
    return 0
  fi
  local llvm_lib tmp rt
  llvm_lib="$(dirname "$(readlink -f "$(command -v clang)")")/../lib"
  [ -e "$llvm_lib/libarcher.so" ] && archer="$(readlink -f "$llvm_lib/libarcher.so")"
  [ -n "$archer" ] || missing="$missing libarcher.so"
  tmp="$(mktemp -d)"
  printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n' > "$tmp/omp.c"
  clang -fopenmp "$tmp/omp.c" -o "$tmp/omp" >/dev/null 2>&1 || missing="$missing libomp"
  rm -rf "$tmp"
  # clang's own shared runtime first; Debian's clang 14 one crashes at startup in every process (its
  # libstdc++ calls the __cxa_atexit interceptor before TSan has set it up), so gcc's libtsan (the same
  # compiler-rt code, with no C++ dependency) is the fallback: the self-test shows that it sees races
  for rt in "$(clang -print-runtime-dir 2>/dev/null)/libclang_rt.tsan-$(uname -m).so" \
            "$(clang -print-runtime-dir 2>/dev/null)/libclang_rt.tsan.so" \
            "$(gcc -print-file-name=libtsan.so 2>/dev/null || true)"; do
    if [ -f "$rt" ] && { LD_PRELOAD="$rt" "$base" -c pass; } >/dev/null 2>&1; then
      libtsan="$(readlink -f "$rt")"
      break
    fi
  done
  [ -n "$libtsan" ] || missing="$missing a-TSan-runtime-that-starts"
}

if [ "$mode" = thread ]; then
  find_tsan_tools
  if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    # as scripts/install.sh does for gnugo: root on Debian/Ubuntu installs what the mode needs
    echo "sanitize.sh: installing clang libomp-dev libtsan2 (missing:$missing)" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libomp-dev libtsan2 >&2
    find_tsan_tools
  fi
  if [ -n "$missing" ]; then
    echo "sanitize.sh --thread needs clang, LLVM's libomp with its Archer tool (libarcher.so) and a TSan" \
      "runtime; missing: $missing. On Debian/Ubuntu: apt-get install clang libomp-dev libtsan2" >&2
    exit 2
  fi
  preload="$libtsan"
  build_flag=thread
  what="the ThreadSanitizer runtime"
else
  libasan="$(gcc -print-file-name=libasan.so)"
  libubsan="$(gcc -print-file-name=libubsan.so)"
  for lib in "$libasan" "$libubsan"; do
    if [ ! -e "$lib" ]; then
      echo "sanitize.sh: $lib not found (gcc's sanitizer runtimes: Debian packages libasan8, libubsan1)" >&2
      exit 2
    fi
  done
  preload="$libasan $libubsan"
  build_flag=1
  what="the ASan and UBSan runtimes"
fi
# The interpreter is not instrumented, so the runtimes are preloaded (ASan must be the first library),
# but only into Python: .venv/bin/python (and python3, python3.X) becomes a wrapper that sets
# LD_PRELOAD and runs the interpreter under the wrapper's name (so sys.executable, and every Python
# subprocess and console script, goes through the wrapper again), and _zerogym_sanitize, imported at
# startup by a .pth file, takes the runtimes out of LD_PRELOAD again, so that the other programs Python
# starts (pgrep, gcc, gnugo) run without them: pgrep, for one, hangs under a preloaded ASan, and bash
# crashes under a preloaded TSan.
# PYTHONMALLOC=malloc: every Python and PyMem allocation goes through malloc, so ASan sees the bounds
# of each (pymalloc would hide small blocks, such as the state blobs, inside its arenas), and TSan sees
# each block's lifetime (a block pymalloc hands out again would keep its last owner's accesses).
# allocator_may_return_null=1 (both modes): an impossible allocation returns NULL as malloc does (the
# code under test then raises MemoryError, which tests check) instead of aborting the process.
# ASan: detect_leaks=0: CPython keeps objects alive until exit by design, which LeakSanitizer reports.
# TSan: halt_on_error=1 and abort_on_error=1: the first report ends the process with SIGABRT, as the
# other sanitizers do (the fuzzer's supervisor turns that into a finding); ignore_noninstrumented_modules=1:
# the interceptors (memcpy, malloc, mutexes, ...) check no memory accesses when called from code that
# was not instrumented (CPython, numpy, torch, libomp), which TSan cannot judge, but still record the
# synchronisation they do (the GIL is a pthread mutex); OMP_TOOL_LIBRARIES: libomp loads Archer, which
# tells TSan about its barriers, forks, joins and tasks (libomp also finds Archer on its own where it
# sits beside it; naming it makes that certain).
# ZEROGYM_SANITIZE_PLAIN=1 runs the wrapper without the runtimes (pip does).
if [ "$mode" = thread ]; then
  settings="  export TSAN_OPTIONS=\"\${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:ignore_noninstrumented_modules=1:allocator_may_return_null=1}\"
  export OMP_TOOL_LIBRARIES=\"$archer\""
else
  settings="  export ASAN_OPTIONS=\"\${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1:halt_on_error=1:abort_on_error=1:print_stacktrace=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}\"
  export UBSAN_OPTIONS=\"\${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:report_error_type=1}\""
fi
for name in python python3 "$(basename "$base")"; do
  rm -f ".venv/bin/$name"
  cat > ".venv/bin/$name" <<EOF
#!/bin/bash
# written by scripts/sanitize.sh: this venv's Python with $what preloaded
if [ -z "\${ZEROGYM_SANITIZE_PLAIN:-}" ]; then
  export LD_PRELOAD="$preload\${LD_PRELOAD:+ \$LD_PRELOAD}"
  export ZEROGYM_SANITIZE_PRELOAD="$preload"
  export PYTHONMALLOC=malloc
$settings
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

# ---- the TSan self-test: a TSan run that cannot see races, or that reports OpenMP's own barriers,
# is worth nothing, so both are checked in the venv's Python before anything else runs ---------------
tsan_self_test() {
  local t="$dir/.tsan-self-test" out rc
  mkdir -p "$t"
  cat > "$t/probe.c" <<'EOF'
#include <omp.h>
static int a[4096];
/* threads write an array in one parallel loop, other threads update it in the next, the caller reads
   it after each: ordered by OpenMP's barriers, which TSan sees only through Archer */
long ordered(void) {
  long sum = 0;
  for (int rep = 0; rep < 20; rep++) {
    #pragma omp parallel for num_threads(4) schedule(static)
    for (int i = 0; i < 4096; i++) a[i] = i + rep;
    #pragma omp parallel for num_threads(4) schedule(static)
    for (int i = 0; i < 4096; i++) a[4095 - i] += 1;
    for (int i = 0; i < 4096; i++) sum += a[i];
  }
  return sum;
}
/* two threads write the same int with nothing between them: a real race */
long racy(void) {
  int x = 0;
  #pragma omp parallel num_threads(2)
  { x = omp_get_thread_num() + 1; }
  return x;
}
EOF
  clang -fsanitize=thread -g -O1 -fopenmp -fPIC -shared "$t/probe.c" -o "$t/probe.so"
  probe() {  # probe FUNCTION [VAR=VALUE ...]: runs it in the venv's Python; sets out and rc
    local fn="$1"; shift
    rc=0
    out="$(env "$@" .venv/bin/python -c "import ctypes, sys; sys.exit(ctypes.CDLL('$t/probe.so').$fn() <= 0)" 2>&1)" \
      || rc=$?
  }
  probe ordered ARCHER_OPTIONS=verbose=1
  if [ "$rc" != 0 ] || ! grep -q "Archer detected" <<<"$out"; then
    echo "$out" >&2
    echo "sanitize.sh: self-test failed: an OpenMP loop ordered by its barriers was reported, or Archer did" \
      "not load (exit status $rc)" >&2
    exit 1
  fi
  probe ordered OMP_TOOL=disabled
  if [ "$rc" = 0 ] || ! grep -q "ThreadSanitizer: data race" <<<"$out"; then
    echo "$out" >&2
    echo "sanitize.sh: self-test failed: without Archer the same loop should be reported (it was not, so" \
      "the first check proves nothing)" >&2
    exit 1
  fi
  probe racy
  if [ "$rc" = 0 ] || ! grep -q "ThreadSanitizer: data race" <<<"$out"; then
    echo "$out" >&2
    echo "sanitize.sh: self-test failed: a write-write race between two threads was not reported" >&2
    exit 1
  fi
  echo "sanitize.sh: TSan self-test passed ($libtsan, $archer): barriers seen through Archer, a race reported" >&2
}
if [ "$mode" = thread ]; then
  tsan_self_test
  [ "$self_test_only" = 0 ] || exit 0
fi

export ZEROGYM_SANITIZE_PLAIN=1
if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q --upgrade pip
  # the CPU build of torch first (a plain "torch>=2.1" would pull several GB of CUDA wheels)
  .venv/bin/python -m pip install -q torch==2.13.0
  install=1
fi
if [ "$install" = 1 ]; then
  ZEROGYM_SANITIZE=$build_flag .venv/bin/python -m pip install -q -e ".[agents,test]"
fi
unset ZEROGYM_SANITIZE_PLAIN

# ---- run --------------------------------------------------------------------------------------------
export PATH="$dir/.venv/bin:$PATH"
echo "sanitize.sh: running in $dir: $*" >&2
exec "$@"
