"""The built documentation site, opened in a headless browser (Debian's chromium).

The site is built by ``sphinx-build -W -b html docs docs/_build/html`` (README); CI
(.ci/run) builds it, installs chromium, and runs this module with ``DASKPAD_SITE`` set to
the built site. There a missing site or browser is a failure; without ``DASKPAD_SITE``
the module is skipped (ci/test.sh's passes do not build the site).

Each page is served over HTTP from 127.0.0.1 and loaded in an iframe of a check page of
the same origin, whose script waits until the page has loaded (and its search results
have been rendered), forces lazy images to load, and writes what the page shows into its
own DOM, which ``chromium --headless --dump-dom`` prints: the page's text, and for every
image whether it loaded (``complete`` with a natural width above 0).
"""

from __future__ import annotations

import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

SITE = os.environ.get("DASKPAD_SITE")
pytestmark = pytest.mark.skipif(
    not SITE,
    reason="no built site: build it with sphinx-build -W -b html docs docs/_build/html, "
    "then run with DASKPAD_SITE=docs/_build/html (CI does)",
)

CHECK_PAGE = """<!doctype html><html><body><pre id="out">pending</pre><script>
const page = new URLSearchParams(location.search).get("page");
const frame = document.createElement("iframe");
frame.width = 1280; frame.height = 2000;
function report() {
  const d = frame.contentDocument;
  const images = [...d.images].map(i => ({src: i.getAttribute("src"),
    loaded: i.complete && i.naturalWidth > 0}));
  const results = [...d.querySelectorAll("#search-results li a")].map(a => a.href);
  document.getElementById("out").textContent = JSON.stringify(
    {title: d.title, text: d.body.innerText, images: images, results: results});
}
frame.onload = () => {
  for (const i of frame.contentDocument.images) i.loading = "eager";
  setTimeout(report, 5000);  // virtual time: images, and search results, settle first
};
frame.src = page;
document.body.appendChild(frame);
</script></body></html>"""


def _browser() -> str:
    for name in (os.environ.get("DASKPAD_CHROMIUM"), "chromium", "chromium-browser"):
        if name and (path := shutil.which(name)):
            return path
    pytest.fail("DASKPAD_SITE is set but no chromium was found (apt-get install chromium)")


@pytest.fixture(scope="module")
def site() -> Path:
    path = Path(str(SITE)).resolve()
    if not (path / "index.html").is_file():
        pytest.fail(f"DASKPAD_SITE={SITE}: no built site there (no index.html)")
    return path


class _Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/__check__.html"):
            body = CHECK_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            super().do_GET()

    def log_message(self, *args: object) -> None:  # quiet
        pass


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    handler = functools.partial(_Handler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def shown(server: str, page: str, tmp_path: Path) -> dict:
    """What ``page`` (a path in the site, with a query if any) shows in chromium."""
    url = f"{server}/__check__.html?page=" + page.replace("?", "%3F").replace("=", "%3D")
    argv = [
        _browser(),
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--virtual-time-budget=20000",
        "--dump-dom",
        url,
    ]
    if os.geteuid() == 0:
        argv.insert(1, "--no-sandbox")  # chromium's sandbox refuses to run as root
    run = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="out">(.*?)</pre>', run.stdout, flags=re.S)
    assert m, f"chromium printed no check page (status {run.returncode}):\n{run.stderr[-2000:]}"
    text = html.unescape(m.group(1))
    assert text != "pending", f"{page} did not finish loading in chromium"
    return json.loads(text)


def _images_loaded(got: dict, page: str, at_least: int) -> None:
    broken = [i["src"] for i in got["images"] if not i["loaded"]]
    assert not broken, f"{page}: images that did not load: {broken}"
    assert len(got["images"]) >= at_least, f"{page}: {len(got['images'])} images"


def test_index_shows_its_text_and_picture(server, tmp_path):
    got = shown(server, "/index.html", tmp_path)
    assert "numpy.pad for arrays that do not fit in memory" in got["text"]
    assert "Getting started" in got["text"] and "API reference" in got["text"]
    _images_loaded(got, "index.html", 1)
    assert any("gallery" in i["src"] for i in got["images"])


def test_api_page_of_pad(server, tmp_path):
    got = shown(server, "/generated/daskpad.pad.html", tmp_path)
    assert "daskpad.pad" in got["title"]
    for words in ("pad_width", "Parameters", "Returns", "reflect_type"):
        assert words in got["text"], words
    _images_loaded(got, "daskpad.pad.html", 0)


def test_notebook_shows_its_outputs(server, tmp_path):
    got = shown(server, "/notebooks/01-modes-gallery.html", tmp_path)
    assert "numpy.pad" in got["text"]
    # the figures the notebook's cells drew when the site was built
    _images_loaded(got, "01-modes-gallery.html", 1)
    assert any("_images/" in i["src"] for i in got["images"])


def test_gallery_shows_every_mode(server, tmp_path):
    got = shown(server, "/gallery.html", tmp_path)
    _images_loaded(got, "gallery.html", 10)


def test_search_finds_pad2(server, tmp_path):
    got = shown(server, "/search.html?q=pad2", tmp_path)
    assert any("pad2" in link for link in got["results"]), got["results"][:10]


def test_command_reference_has_every_option(site):
    """Every option of every subcommand of ``daskpad.cli.build_parser()`` is on the page."""
    import argparse

    from daskpad.cli import build_parser

    page = html.unescape((site / "cli-reference.html").read_text())
    parser = build_parser()
    parsers = [parser] + [
        sub
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for sub in action.choices.values()
    ]
    options = {
        o
        for p in parsers
        for a in p._actions
        if not isinstance(a, argparse._HelpAction)  # (-h, --help: not listed, as usual)
        for o in a.option_strings
    }
    assert options
    missing = sorted(o for o in options if o not in page)
    assert not missing, missing
