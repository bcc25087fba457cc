#!/usr/bin/env bash
# Creates .venv-interop for the RL libraries of examples/ and tests/interop (the interop extra:
# Tianshou, TorchRL with tensordict, RLlib), with the agents and test extras. A venv of its own,
# because RLlib pins an older gymnasium than the main .venv has.
#
# The CPU build of torch 2.13.0 goes in first, and a constraint keeps every later step from replacing
# it (another torch spec would pull several GB of CUDA wheels). zerogym itself is not compiled a second
# time: scripts/install.sh builds the compiled modules in place (it returns at once when they are up to
# date), this venv gets the extras' requirements from pyproject.toml and a .pth entry for the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-interop
torch_pin="torch==2.13.0"

bash scripts/install.sh
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "$torch_pin"
constraints="$(mktemp)"
requirements="$(mktemp)"
trap 'rm -f "$constraints" "$requirements"' EXIT
echo "$torch_pin" > "$constraints"
"$venv/bin/python" - > "$requirements" <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]
print("\n".join(project["dependencies"] + extras["agents"] + extras["test"] + extras["interop"]))
PY
"$venv/bin/python" -m pip install -q -c "$constraints" -r "$requirements"
"$venv/bin/python" -c 'import site, sys; open(site.getsitepackages()[0] + "/zerogym-checkout.pth", "w").write(sys.argv[1] + "\n")' "$PWD"
"$venv/bin/python" - "$torch_pin" <<'PY'
import sys
import torch
import zerogym_agents.interop
want = sys.argv[1].split("==")[1]
if torch.__version__.split("+")[0] != want:
    sys.exit(f"install_interop.sh: torch {torch.__version__} was installed, {want} was pinned")
PY
