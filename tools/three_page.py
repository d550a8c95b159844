"""viewers/three/example.html (or viewers/babylon/'s) in headless Chromium: the sample arm played by our players.

    python dev.py run tools/three_page.py docs/three_arm.png [--time 0.6]   # the README's screenshot

``capture(time, png)`` serves the repository on a free localhost port (with the pinned three.js and
Babylon.js of .node/node_modules at /node_modules/, as the pages' import maps expect), opens the
page (``page``: PAGE, three.js', or BABYLON_PAGE) posed at
``time`` in Chromium driven by playwright-core (tests/three/screenshot.mjs), saves a screenshot
and returns what the page reports: ``{"sqlerp": {"time", "revision", "quaternions"}, "errors"}``,
every node's quaternion as three.js posed it and the page's errors. Chromium is CHROMIUM or
``chromium`` on PATH (``python dev.py test`` installs Debian's where it can).
"""

import argparse
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import devpath

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "tests" / "three" / "screenshot.mjs"
PAGE = "/viewers/three/example.html"
BABYLON_PAGE = "/viewers/babylon/example.html"
MODULE_PAGE = "/tests/three/module.html"
SAMPLE = "/samples/sqlerp_arm.glb"
README_TIME = 0.6  # seconds into the sample's clip: the arm bent at both joints
TIMEOUT = 180  # seconds for Chromium to start, load the page and render it in software
# The pinned npm folder (three.js, playwright-core) is where tools/three_player.py finds it.
modules_folder = devpath.load_module("gltf_sqlerp_three_player", ROOT / "tools" / "three_player.py").modules_folder


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The repository's files, and /node_modules/ from the pinned npm folder; no request log."""

    def translate_path(self, path: str) -> str:
        if path.startswith("/node_modules/"):
            relative = path.split("?", 1)[0].split("#", 1)[0][len("/node_modules/"):]
            return str(modules_folder() / relative)
        return super().translate_path(path)

    def log_message(self, format, *args):
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A browser closing while module requests are in flight (the page reported, the screenshot
        # taken) breaks their connections: not an error of the page. Others print as usual.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def served() -> Iterator[str]:
    """The repository served on 127.0.0.1 at a free port: yields its base URL."""
    server = _Server(("127.0.0.1", 0), functools.partial(_Handler, directory=str(ROOT)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chromium() -> str:
    found = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not found:
        raise RuntimeError("no Chromium: set CHROMIUM or put chromium on PATH (`python dev.py test` installs it)")
    return found


def capture(time: float, png: Path, file: str = SAMPLE, size: tuple[int, int] = (960, 540), page: str = PAGE) -> dict:
    """Open the page posed at ``time`` s, save its screenshot to ``png``; the page's report."""
    return open_page(f"{page}?file={file}&t={time!r}", png, size)


def run_module(module: str, png: Path) -> dict:
    """Run the ES module at ``module`` (a path under the repository) in the browser, as a page with
    three.js and Babylon.js in its import map would (tests/three/module.html); ``sqlerp`` is ``{"ok": bool,
    "error"?}``."""
    return open_page(f"{MODULE_PAGE}?module={module}", png, (320, 180))


def open_page(path: str, png: Path, size: tuple[int, int]) -> dict:
    """Open ``path`` (with its query) on the served repository, wait for window.sqlerp, screenshot."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("Node.js (`node`) is not on PATH")
    env = {**os.environ, "CHROMIUM": chromium(), "GLTF_SQLERP_VALIDATOR": str(modules_folder())}
    with served() as base:
        done = subprocess.run([node, str(SCREENSHOT), base + path, str(png), *map(str, size)], capture_output=True,
                              text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"screenshot.mjs failed (exit code {done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("png", type=Path, help="where the screenshot goes")
    parser.add_argument("--time", type=float, default=README_TIME, help=f"seconds (default {README_TIME})")
    args = parser.parse_args()
    report = capture(args.time, args.png.resolve())
    print(f"{args.png}: three.js r{report['sqlerp']['revision']} at {args.time} s; page errors: {report['errors']}")
    return 1 if report["errors"] or report["sqlerp"] is None else 0


if __name__ == "__main__":
    sys.exit(main())
