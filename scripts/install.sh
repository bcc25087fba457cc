#!/usr/bin/env bash
# Creates .venv and installs zerogym into it (editable, with the test extras), compiling the core.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cc >/dev/null 2>&1 || ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
  # bare Debian/Ubuntu machine: a C compiler and venv support are needed to build the extensions
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential python3-dev python3-venv
fi
# GNU Go (the Debian package installs it as /usr/games/gnugo): the outside yardstick for the Go agents
if ! command -v gnugo >/dev/null 2>&1 && [ ! -x /usr/games/gnugo ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnugo) \
    || echo "warning: could not install gnugo; GnuGoAgent and its tests will be skipped" >&2
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# the CPU build of torch first (a plain "torch>=2.1" would pull several GB of CUDA wheels)
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[test]"
