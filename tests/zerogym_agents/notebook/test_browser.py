"""The notebook widget in a real browser: a local JupyterLab runs a small notebook that shows two widgets,
and headless Chromium (Debian's, through its chromedriver, driven by Selenium) clicks a whole game of
Tic-tac-toe against pretrained:tictactoe and a few moves of Go 9x9, a Pass and an illegal click among them.

Each click goes where the picture draws the cell (zerogym.render.cell_geometry of the same position,
replayed here from the moves the widget lists, scaled to the picture's size on the page); after each one the
test reads the widget back from the page (its moves, its board as text, its message, its result) and
checks them against the rules replayed here. Screenshots go to $ZEROGYM_SCREENSHOTS (default
test-artifacts/screenshots, git-ignored).

Skipped where Chromium is not installed and cannot be (no apt-get), or, outside CI, where Chromium or
the browser extra (jupyterlab, selenium) is missing; under CI, which installs them, a missing one fails.
"""

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import zerogym
from zerogym import render
from zerogym.coords import parse_action
from zerogym.play import board_text, score_lines

ROOT = Path(__file__).resolve().parents[3]
SCREENSHOTS = Path(os.environ.get("ZEROGYM_SCREENSHOTS", ROOT / "test-artifacts" / "screenshots"))
TOKEN = "zerogym-browser-test"
CELLS = {"tictactoe": 60, "go": 40}  # the widgets' pixels per cell, as the notebook below asks
NOTEBOOK_CELLS = [
    "from zerogym_agents.notebook import play\n"
    f"ttt = play('tictactoe', 'pretrained:tictactoe', seed=0, cell={CELLS['tictactoe']})\nttt",
    f"go = play('go', 'random', board_size=9, seed=0, cell={CELLS['go']})\ngo",
]
WAIT = 30  # seconds for any one thing to appear on the page


def _missing(what, why):
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing under CI, where scripts/install.sh installs it: {why}")
    pytest.skip(f"{what} is missing: {why}")


@pytest.fixture(scope="module")
def chromium():
    """(chromium, chromedriver) paths."""
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (browser and driver):
        if not shutil.which("apt-get"):
            pytest.skip("Chromium is not installed, and there is no apt-get to install it")
        _missing("Chromium", "apt-get install chromium chromium-driver (bash scripts/install.sh does it)")
    for module in ("selenium", "jupyterlab", "anywidget"):
        if importlib.util.find_spec(module) is None:
            _missing(module, "pip install -e '.[notebook,browser]' (bash scripts/install.sh does it)")
    return browser, driver


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, chromium):
    """The URL of a JupyterLab serving play.ipynb, started with the kernel on this checkout."""
    folder = tmp_path_factory.mktemp("lab")
    cells = [
        {"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": src}
        for i, src in enumerate(NOTEBOOK_CELLS)
    ]
    notebook = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (folder / "play.ipynb").write_text(json.dumps(notebook))
    for plugin, values in [
        ("notebook-extension/tracker", {"windowingMode": "none"}),  # every cell drawn, not only those in view
        ("apputils-extension/notification", {"fetchNews": "false"}),  # no news prompt over the page
    ]:
        path = folder / "settings" / "@jupyterlab" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        JUPYTER_CONFIG_DIR=str(folder / "config"),
        JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(folder / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(folder / "workspaces"),
    )
    port = free_port()
    args = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={folder}",
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    log = open(folder / "lab.log", "w")
    server = subprocess.Popen(args, cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + (folder / "lab.log").read_text()) from None
                time.sleep(0.3)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def page(lab, chromium):
    """A Chromium page on which play.ipynb has run: both widgets shown."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,1400",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromium[1]))
    try:
        driver.get(f"{lab}/lab/tree/play.ipynb?reset&token={TOKEN}")
        until(driver, lambda: driver.execute_script(
            "const app = window.jupyterapp; const w = app && app.shell.currentWidget;"
            "return !!(w && w.context && w.context.isReady && w.sessionContext && w.sessionContext.session"
            " && w.sessionContext.session.kernel)"
        ), "the notebook and its kernel")  # fmt: skip
        driver.execute_script("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        for game in CELLS:
            until(driver, lambda g=game: read(driver, g)["ready"], f"the {game} widget")
        shot(driver, "start")
        yield driver
    finally:
        driver.quit()


def until(driver, condition, what, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:  # noqa: BLE001  the page is still being built
            pass
        time.sleep(0.1)
    shot(driver, "timeout")
    raise AssertionError(f"waited {timeout} s for {what}")


READ = """
const root = document.querySelector(`.zerogym-board[data-game="${arguments[0]}"]`);
if (!root) return {ready: false};
const img = root.querySelector("img.zerogym-picture");
const text = (sel) => root.querySelector(sel).textContent;
return {ready: img.complete && img.naturalWidth > 0 && root.dataset.busy === "false",
        moves: JSON.parse(root.dataset.moves), board: text(".zerogym-text"), message: text(".zerogym-message"),
        result: text(".zerogym-result"), status: text(".zerogym-status"), src: img.src};
"""


def read(driver, game):
    """What the widget of `game` shows, as the page has it."""
    return driver.execute_script(READ, game)


def shot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"notebook-widget-{name}.png"))


def replay(game, kw, moves):
    state = zerogym.make_state(game, **kw)
    for name in moves:
        state.step(parse_action(state.spec, name))
    return state


def act(driver, game, do, step):
    """Do something on the widget (`do(root)`), then wait until it has answered; returns what it shows."""
    before = read(driver, game)
    root = driver.find_element("css selector", f'.zerogym-board[data-game="{game}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", root)
    do(root)
    until(driver, lambda: (now := read(driver, game))["ready"] and now != before, f"{game} to answer {step}")
    shot(driver, f"{game}-{step}")
    return read(driver, game)


def click_cell(driver, game, kw, cell, step):
    """Click the centre of `cell` where the widget's picture draws it."""
    from selenium.webdriver.common.action_chains import ActionChains

    state = replay(game, kw, read(driver, game)["moves"])
    y, x = render.cell_geometry(state, cell=CELLS[game]).centres[cell]

    def click(root):
        img = root.find_element("css selector", "img.zerogym-picture")
        box = driver.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return [r.width, r.height, arguments[0].naturalWidth, arguments[0].naturalHeight]",
            img,
        )
        scale = box[0] / box[2]
        ActionChains(driver).move_to_element_with_offset(
            img, round(x * scale - box[0] / 2), round(y * scale - box[1] / 2)
        ).click().perform()

    return act(driver, game, click, step)


def test_a_whole_tictactoe_game_against_the_pretrained_agent(page):
    shown = read(page, "tictactoe")
    assert shown["moves"] == [] and shown["status"] == "Your move, X: click a cell."
    step = 0
    while True:
        state = replay("tictactoe", {}, shown["moves"])
        if state.is_over():
            break
        mine = int(state.legal_actions()[0])  # the first free cell, from A1 on
        before = len(shown["moves"])
        shown = click_cell(page, "tictactoe", {}, divmod(mine, 3), f"move-{step}")
        step += 1
        assert shown["moves"][before] == zerogym.coords.format_action(state.spec, mine)
        ended = replay("tictactoe", {}, shown["moves"][: before + 1]).is_over()
        assert len(shown["moves"]) == before + (1 if ended else 2)  # the agent answered, unless the game ended
        after = replay("tictactoe", {}, shown["moves"])
        assert shown["board"] == board_text(after)
        assert shown["message"].startswith(f"You play {shown['moves'][before]}.")
    verdict = "A draw." if state.winner < 0 else "You win!" if state.winner == 0 else "pretrained:tictactoe wins."
    assert shown["result"] == "\n".join([*score_lines(state), verdict])
    assert shown["status"].startswith("Game over: ")


def test_go_nine_by_nine_clicks_an_illegal_click_and_a_pass(page):
    kw = dict(board_size=9)
    for step, cell in enumerate([(2, 2), (6, 6), (4, 4)]):  # C3, G7, E5 unless the agent took one first
        state = replay("go", kw, read(page, "go")["moves"])
        if state.is_over():
            break
        free = [(r, c) for r, c in [cell, (cell[0], cell[1] + 1), (cell[0] + 1, cell[1])] if state.board()[r, c] == 0]
        before = len(read(page, "go")["moves"])
        shown = click_cell(page, "go", kw, free[0], f"move-{step}")
        assert shown["moves"][before] == zerogym.coords.format_action(state.spec, free[0][0] * 9 + free[0][1])
        assert shown["board"] == board_text(replay("go", kw, shown["moves"]))
    # a click on a stone: refused, nothing changes
    shown = read(page, "go")
    state = replay("go", kw, shown["moves"])
    if not state.is_over():
        stone = tuple(int(v) for v in np.argwhere(state.board())[0])
        refused = click_cell(page, "go", kw, stone, "illegal")
        assert refused["moves"] == shown["moves"] and refused["board"] == shown["board"]
        assert " is not allowed: " in refused["message"]
        before = len(refused["moves"])
        shown = act(
            page, "go", lambda root: root.find_element("css selector", 'button[data-button="pass"]').click(), "pass"
        )
        assert shown["moves"][before] == "pass"
        state = replay("go", kw, shown["moves"])
        assert shown["board"] == board_text(state)
    if state.is_over():  # two passes in a row
        assert shown["result"].startswith(score_lines(state)[0])
