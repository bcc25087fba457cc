#!/usr/bin/env bash
# Creates .venv-interop: zerogym (editable) with the agents, test and interop extras, the last being the
# RL libraries of examples/ and tests/interop (Tianshou, TorchRL with tensordict, RLlib). A venv of its
# own, because RLlib pins an older gymnasium than the main .venv has. The CPU build of torch 2.13.0 goes
# in first, and a constraint keeps every later step from replacing it (another torch spec would pull
# several GB of CUDA wheels).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-interop
torch_pin="torch==2.13.0"

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$torch_pin"
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
echo "$torch_pin" > "$constraints"
"$venv/bin/python" -m pip install -q -c "$constraints" -e ".[agents,test,interop]"
"$venv/bin/python" - "$torch_pin" <<'PY'
import sys, torch
want = sys.argv[1].split("==")[1]
if torch.__version__.split("+")[0] != want:
    sys.exit(f"install_interop.sh: torch {torch.__version__} was installed, {want} was pinned")
PY
