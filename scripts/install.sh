#!/usr/bin/env bash
# Creates .venv and installs zerogym into it (editable, with the agents, test, ray, notebook, browser and docs
# extras), compiling the core.
# A second run with nothing changed (same Python, same build inputs, every extension built) only
# checks that and stops; ZEROGYM_REINSTALL=1 installs anyway.
set -euo pipefail
cd "$(dirname "$0")/.."

# what the installed build depends on: the Python, the package metadata and every Cython source
build_inputs() {
  { python3 --version; cat pyproject.toml setup.py zerogym/_version.py scripts/install.sh;
    find zerogym zerogym_agents \( -name '*.pyx' -o -name '*.pxd' \) | LC_ALL=C sort | xargs cat; } | sha256sum | cut -d' ' -f1
}
up_to_date() {
  [ -z "${ZEROGYM_REINSTALL:-}" ] && [ -x .venv/bin/python ] && [ -f .venv/.zerogym-installed ] \
    && [ "$(cat .venv/.zerogym-installed)" = "$(build_inputs)" ] || return 1
  # built for this venv's Python (other Pythons' builds may sit beside them: noxfile.py)
  local pyx suffix
  suffix="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" || return 1
  for pyx in $(find zerogym zerogym_agents -name '*.pyx'); do
    [ -f "${pyx%.pyx}$suffix" ] || return 1
  done
}
if up_to_date; then
  echo "zerogym is already installed and up to date in .venv (ZEROGYM_REINSTALL=1 to reinstall)"
  exit 0
fi

if ! command -v cc >/dev/null 2>&1 || ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then
  # bare Debian/Ubuntu machine: a C compiler and venv support are needed to build the extensions
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential python3-dev python3-venv
fi
# GNU Go (the Debian package installs it as /usr/games/gnugo): the outside yardstick for the Go agents
if ! command -v gnugo >/dev/null 2>&1 && [ ! -x /usr/games/gnugo ] && command -v apt-get >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnugo) \
    || echo "warning: could not install gnugo; GnuGoAgent and its tests will be skipped" >&2
fi
# Chromium and its driver (Debian's packages): the browser tests drive them (the docs site,
# tests/test_docs_browser.py, and the notebook widget, tests/zerogym_agents/notebook/test_browser.py)
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) \
      || echo "warning: could not install chromium; the browser tests will fail" >&2
  fi
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
rm -f .venv/.zerogym-installed
.venv/bin/python -m pip install -q --upgrade pip
# the CPU build of torch first (a plain "torch>=2.1" would pull several GB of CUDA wheels)
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e ".[agents,test,ray,notebook,browser,docs]"
build_inputs > .venv/.zerogym-installed
