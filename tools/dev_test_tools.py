"""What the tests need besides Python, for dev.py: the pinned npm packages in .node/ and Chromium.

The npm packages (the Khronos glTF-Validator, pyright, three.js, Babylon.js, playwright-core and
glTF-Transform, pinned by tests/validator/package.json and package-lock.json) are installed with
``npm ci``, again only when those two files change (a hash stamp, as the venvs have); Chromium is
the browser tests' (CHROMIUM, one on PATH, or Debian's package where apt-get can install it).

Standard library only: dev.py runs it with the system's Python, before any venv exists.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tools.dev_venvs import run_checked, say

ROOT = Path(__file__).resolve().parents[1]

# The pinned glTF-Validator: its npm package.json and lock file, the folder npm installs it into, and
# the variable that tells the tests (tests/helpers/gltf_validator.py) where its node_modules folder is.
VALIDATOR_SPEC = [ROOT / "tests" / "validator" / name for name in ("package.json", "package-lock.json")]
NODE_FOLDER = ROOT / ".node"
VALIDATOR_VARIABLE = "GLTF_SQLERP_VALIDATOR"
REQUIRED_NODE = 18
NPM_PACKAGES = ("gltf-validator", "pyright", "three", "playwright-core", "@gltf-transform/core",
                "@gltf-transform/extensions", "@gltf-transform/functions", "@gltf-transform/cli",
                "@babylonjs/core", "@babylonjs/loaders", "babylonjs-gltf2interface", "typescript", "@types/three")
CHROMIUM_VARIABLE = "CHROMIUM"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_HELP = (
    "The browser tests play the sample in headless Chromium (tests/web/test_three_page.py,\n"
    "test_babylon_page.py). Install Chromium or Google Chrome (e.g. `apt install chromium`, `brew\n"
    "install --cask chromium`, `winget install Google.Chrome`) and put it on PATH, or set CHROMIUM to\n"
    "its executable, and run this again.")
NODE_HELP = (
    "The tests check glTF files with the Khronos glTF-Validator, an npm package, so they need Node.js\n"
    f"{REQUIRED_NODE} or newer with npm. Get it from https://nodejs.org/ (Windows/macOS installers), your\n"
    "package manager (e.g. `apt install nodejs npm`, `brew install node`, `winget install\n"
    "OpenJS.NodeJS.LTS`) or nvm (`nvm install --lts`), make sure `node` and `npm` are on PATH, and run\n"
    "this again.")


def ensure_validator() -> Path:
    """Install the pinned npm packages of the tests (NPM_PACKAGES) into .node/ unless they are there
    already; return its node_modules."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        sys.exit(f"dev.py: {'Node.js (`node`)' if not node else '`npm`'} was not found on PATH.\n{NODE_HELP}")
    try:
        version = subprocess.run([node, "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    except OSError as error:
        sys.exit(f"dev.py: cannot run {node} ({error}).\n{NODE_HELP}")
    major = version.stdout.strip().lstrip("v").split(".")[0]
    if version.returncode != 0 or not major.isdigit() or int(major) < REQUIRED_NODE:
        found = version.stdout.strip() or f"exit code {version.returncode}"
        sys.exit(f"dev.py: `node --version` says {found} ({node}); Node.js {REQUIRED_NODE}+ is needed.\n{NODE_HELP}")

    digest = hashlib.sha256()
    for path in VALIDATOR_SPEC:
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
    wanted, stamp = digest.hexdigest(), NODE_FOLDER / "validator.sha256"
    modules = NODE_FOLDER / "node_modules"
    installed = all((modules / name / "package.json").exists() for name in NPM_PACKAGES)
    if installed and stamp.exists() and stamp.read_text().strip() == wanted:
        return modules
    pinned = json.loads(VALIDATOR_SPEC[0].read_text())["dependencies"]["gltf-validator"]
    why = 'first run' if not installed else 'pin changed, or the last install did not finish'
    say(f"installing glTF-Validator {pinned}, pyright, three.js, Babylon.js, playwright-core and "
        f"glTF-Transform (npm) into {NODE_FOLDER.name} ({why}) ...")
    # npm ci installs exactly the lock file (and checks its integrity hashes) into .node/node_modules.
    # As for the venvs, the stamp goes only after a complete install.
    stamp.unlink(missing_ok=True)
    NODE_FOLDER.mkdir(exist_ok=True)
    for path in VALIDATOR_SPEC:
        (NODE_FOLDER / path.name).write_bytes(path.read_bytes())
    run_checked([npm, "ci", "--prefix", NODE_FOLDER, "--no-audit", "--no-fund"],
                f"installing the tests' npm packages (glTF-Validator {pinned}) with npm")
    stamp.write_text(wanted + "\n")
    say(f"{NODE_FOLDER.name} is ready")
    return modules


def _find_chromium() -> str | None:
    named = os.environ.get(CHROMIUM_VARIABLE)
    if named:
        return named if Path(named).is_file() else shutil.which(named)
    return next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)


def ensure_chromium() -> str:
    """The Chromium the browser test drives: CHROMIUM, or one on PATH, or Debian's package, which
    apt-get installs when this runs as root (CI machines); else stop with CHROMIUM_HELP."""
    found = _find_chromium()
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt and hasattr(os, "geteuid") and os.geteuid() == 0:
        say("installing Debian's chromium (apt-get) for the browser test ...")
        install = [apt, "install", "-y", "-q", "--no-install-recommends", "chromium"]
        quiet = {"stdin": subprocess.DEVNULL, "env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}}
        # A machine whose package lists are stale or absent needs one update first.
        if subprocess.run(install, **quiet).returncode != 0:
            subprocess.run([apt, "update", "-q"], **quiet)
            if subprocess.run(install, **quiet).returncode != 0:
                sys.exit(f"dev.py: installing chromium with apt-get failed.\n{CHROMIUM_HELP}")
        found = _find_chromium()
    if not found:
        sys.exit(f"dev.py: no Chromium found (CHROMIUM, or {', '.join(CHROMIUM_NAMES)} on PATH).\n{CHROMIUM_HELP}")
    return found
