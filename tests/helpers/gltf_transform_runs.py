"""Running glTF-Transform under Node.js for its tests (tests/web/test_gltf_transform_*.py), and
comparing what it writes with the input the way those tests judge it.

glTF-Transform (@gltf-transform/core, extensions, functions and cli, pinned in
tests/validator/package.json and installed into .node/ by dev.py): tests/gltf_transform/transform.mjs
reads each file with NodeIO, our extension (viewers/gltf-transform/EXT_animation_sqlerp.js)
registered, runs one function with its defaults and writes the result; the CLI runs with
viewers/gltf-transform/gltf-transform.config.mjs. The judge is outside the code under test: the
add-on's core loads each written file (with its EXT_animation_sqlerp checks) and evaluates every
CUBICSLERP curve against the input's.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from helpers.child_job import ROOT, TESTS, tool
from helpers.gltf_validator import modules_folder

from gltf_sqlerp import core

three_player = tool("tools/three_player.py")

SCRIPT = TESTS / "gltf_transform" / "transform.mjs"
HOOKS = TESTS / "gltf_transform" / "resolve_modules.mjs"
CONFIG = ROOT / "viewers" / "gltf-transform" / "gltf-transform.config.mjs"
PACKAGE_JSON = TESTS / "validator" / "package.json"
VARIABLE = "GLTF_SQLERP_VALIDATOR"
TOLERANCE = 1e-6  # |written curve - input curve| per quaternion component, as for the three.js player
TIMEOUT = 600  # seconds for one run of Node.js


def node() -> tuple[str, Path]:
    """Node.js and the folder of the pinned npm packages; the test fails when either is missing."""
    found, modules = shutil.which("node"), modules_folder()
    pinned = json.loads(PACKAGE_JSON.read_text())["dependencies"]["@gltf-transform/core"]
    manifest = modules / "@gltf-transform" / "core" / "package.json"
    installed = json.loads(manifest.read_text()).get("version") if manifest.exists() else None
    if found is None or installed != pinned:
        pytest.fail(f"Node.js and @gltf-transform/core {pinned} are needed in {modules} (found {installed}): "
                    "`python dev.py test` installs them")
    return found, modules


def run_node(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Node.js with the module hooks that find the pinned packages, run on ``arguments`` in ``cwd``."""
    node_path, modules = node()
    return subprocess.run([node_path, "--import", HOOKS.as_uri(), *arguments], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                          env={**os.environ, VARIABLE: str(modules)})


def transform(jobs: list[dict], folder: Path) -> list[dict]:
    """transform.mjs over ``jobs`` (input, output, operation, extension) in one Node.js process."""
    job_path = folder / "jobs.json"
    job_path.write_text(json.dumps(jobs))
    done = run_node([str(SCRIPT), str(job_path)], folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def cli(command: str, source: Path, target: Path, *options: str) -> subprocess.CompletedProcess:
    """`gltf-transform <command> source target [options] --config gltf-transform.config.mjs`."""
    script = modules_folder() / "@gltf-transform" / "cli" / "bin" / "cli.js"
    arguments = [str(script), command, str(source), str(target), *options, "--config", str(CONFIG)]
    return run_node(arguments, target.parent)


def output(folder: Path, name: str, operation: str) -> Path:
    """Each written file in a folder of its own: a .gltf's .bin keeps its name from the input's buffer."""
    path = folder / f"{name.replace('.', '_')}_{operation.replace(' ', '_')}" / f"out{Path(name).suffix}"
    path.parent.mkdir()
    return path


def cubic_curves(document) -> dict[tuple[str, str], core.Channel]:
    """(animation name, node name) -> channel, for every channel that plays a CUBICSLERP sampler."""
    nodes = document.json.get("nodes", [])
    return {(animation.name, nodes[channel.node].get("name", str(channel.node))): channel
            for animation in document.animations for channel in animation.channels if channel.uses_extension}


def check_times(channel: core.Channel) -> np.ndarray:
    """Every key time, every interval's middle, 240 per second, and times before and after the keys."""
    keys = channel.sampler.times
    even = np.linspace(keys[0] - 0.25, keys[-1] + 0.25, int((keys[-1] - keys[0] + 0.5) * 240) + 2)
    return np.unique(np.concatenate([keys, (keys[:-1] + keys[1:]) / 2, even]))


def curve_deviations(source: Path, target: Path) -> dict[tuple[str, str], float]:
    """Largest |target - source| (sign-blind) per CUBICSLERP curve of the source, at check_times;
    inf for a curve the target no longer plays through the extension."""
    before, after = cubic_curves(core.load(str(source))), cubic_curves(core.load(str(target)))
    result = {}
    for key, channel in before.items():
        at = check_times(channel)
        result[key] = (float(three_player.deviation(after[key].evaluate(at), channel.evaluate(at)).max())
                       if key in after else float("inf"))
    return result


def node_rotation(document, key: tuple[str, str]) -> core.Channel:
    """The rotation channel of node ``key[1]`` in animation ``key[0]``."""
    nodes = [node.get("name") for node in document.json["nodes"]]
    [channel] = [c for a in document.animations if a.name == key[0] for c in a.channels
                 if c.path == "rotation" and nodes[c.node] == key[1]]
    return channel
