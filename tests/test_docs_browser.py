"""The docs site in a real browser: the strict build (tests/site_build.py) served on localhost and driven by
headless Chromium through Selenium (Debian's chromium and chromium-driver, which scripts/install.sh
installs): the home page, a game page, an API page and the search box.

A screenshot of each step goes to $ZEROGYM_TEST_ARTIFACTS/docs-site/ (default: test-artifacts/ in the
repository, git-ignored). The test skips where no Chromium is installed (or, in a venv without the docs extra,
selenium).
"""

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

from site_build import ROOT, hook, page_url, strict_build

CHROMIUM = ("chromium", "chromium-browser", "google-chrome")
DRIVER = "chromedriver"
WAIT = 30  # seconds for a page or the search index to load


def find(names):
    for name in names:
        found = shutil.which(name) or shutil.which(name, path="/usr/lib/chromium")
        if found:
            return found
    return None


def artifacts() -> Path:
    folder = Path(os.environ.get("ZEROGYM_TEST_ARTIFACTS") or ROOT / "test-artifacts") / "docs-site"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="module")
def site_url():
    build = strict_build()
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.output[-4000:]}"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(build.site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    chromium, driver_path = find(CHROMIUM), find((DRIVER,))
    if chromium is None or driver_path is None:
        pytest.skip(
            f"no Chromium installed (found chromium: {chromium}, chromedriver: {driver_path}): "
            "apt-get install chromium chromium-driver, as scripts/install.sh does"
        )
    pytest.importorskip(
        "selenium", reason="the docs extra is not installed: pip install -e '.[docs]' (scripts/install.sh does)"
    )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


def visit(browser, url, shot):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(url)
    WebDriverWait(browser, WAIT).until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "article h1")))
    browser.save_screenshot(str(artifacts() / f"{shot}.png"))
    return browser.find_element(By.CSS_SELECTOR, "article")


def test_home_game_api_and_search_pages_in_chromium(browser, site_url):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    # the home page is the README, with the nav of the site
    home = visit(browser, site_url, "home")
    assert home.find_element(By.TAG_NAME, "h1").text.startswith("zerogym")
    assert "PettingZoo AEC environments at any board size" in home.text
    nav = browser.find_element(By.CSS_SELECTOR, "nav.md-nav--primary").get_attribute("textContent")
    assert "First hour" in nav and "API reference" in nav

    # a game page, with its picture loaded
    go = visit(browser, site_url + "docs/games/go/", "game-go")
    assert go.find_element(By.TAG_NAME, "h1").text.startswith("Go")
    assert "Tromp-Taylor" in go.text
    picture = go.find_element(By.CSS_SELECTOR, "img[src$='go.png']")
    assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", picture) > 100

    # an API page: BatchedMCTS's signature and docstring
    api_path = page_url(hook().api_uri("Search (BatchedMCTS)"))
    api = visit(browser, site_url + api_path, "api-batchedmcts")
    entry = api.find_element(By.ID, "zerogym_agents.mcts.search.BatchedMCTS")
    assert "BatchedMCTS" in entry.text
    signature = browser.find_element(
        By.CSS_SELECTOR, "[id='zerogym_agents.mcts.search.BatchedMCTS'] + div.doc-signature"
    )
    assert "simulations" in signature.text and "num_games" in signature.text
    assert "PUCT" in api.text and "virtual loss" in api.text

    # the search box finds BatchedMCTS and links to its API page
    visit(browser, site_url, "search-start")
    box = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    box.click()
    box.send_keys("BatchedMCTS")
    box.send_keys(Keys.ENTER)

    def result_links(driver):
        links = driver.find_elements(By.CSS_SELECTOR, ".md-search-result__list a")
        return [a.get_attribute("href") for a in links if a.get_attribute("href")] or False

    links = WebDriverWait(browser, WAIT).until(result_links)
    browser.save_screenshot(str(artifacts() / "search-batchedmcts.png"))
    assert any(api_path in link for link in links), links
