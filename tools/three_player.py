"""Web engines playing glTF files, for the tests and the export benchmarks: ``played = play([path], [times])``.

``player="three"`` (the default): tests/three/play.mjs loads each file with three.js' GLTFLoader
and our plugin (viewers/three/EXT_animation_sqlerp.js), steps an AnimationMixer to every given time
of every given animation and returns every node's quaternion. ``player="babylon"``: tests/babylon/
play.mjs does the same with Babylon.js (NullEngine, its glTF loader and viewers/babylon/
EXT_animation_sqlerp.js), sending each animation group to every time's frame. ``plugin=False``
plays with the engine alone. ``expected`` gives the same from the add-on's core
(each rotation channel's sampler, the CUBICSLERP one where the channel has the extension; the
node's own rotation elsewhere), and ``deviation`` compares the two, sign-blind (q and -q are one
rotation).

three.js and Babylon.js are the npm packages ``three`` and ``@babylonjs/core`` + ``@babylonjs/loaders``,
pinned in tests/validator/package.json beside glTF-Validator and installed by ``python dev.py test``
into .node/ (GLTF_SQLERP_VALIDATOR names its node_modules); a missing Node.js or package raises
ThreeUnavailable, which fails the test instead of skipping it.
"""

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# Per engine: the Node.js script that plays files, and the npm package whose pinned version it needs.
PLAYERS = {"three": (ROOT / "tests" / "three" / "play.mjs", "three"),
           "babylon": (ROOT / "tests" / "babylon" / "play.mjs", "@babylonjs/core")}
HOOKS = ROOT / "tests" / "three" / "resolve_three.mjs"
PACKAGE_JSON = ROOT / "tests" / "validator" / "package.json"
# The node_modules folder dev.py installs the tests' npm packages into, as tests/helpers/gltf_validator.py.
VARIABLE = "GLTF_SQLERP_VALIDATOR"
TIMEOUT = 600  # seconds for one run of Node.js, however many files
SAMPLES_PER_SECOND = 240  # 8 per frame at 30 fps


class ThreeUnavailable(RuntimeError):
    """Node.js or the engine's pinned package is missing, or the player could not run."""


@dataclass
class Played:
    """One file as the engine played it: ``quaternions[animation]`` is (times, nodes, 4)."""
    nodes: int
    missing: list[int]
    clips: list[str]
    quaternions: dict[int, np.ndarray]
    tracks: dict | None = None  # play(..., tracks=times): clips and tracks as data (tests/three/play.mjs)


def pinned(package: str) -> str:
    return json.loads(PACKAGE_JSON.read_text())["dependencies"][package]


def pinned_three() -> str:
    return pinned("three")


def modules_folder() -> Path:
    return Path(os.environ.get(VARIABLE) or ROOT / ".node" / "node_modules")


def _node(package: str) -> tuple[str, Path]:
    node = shutil.which("node")
    if node is None:
        raise ThreeUnavailable(f"Node.js (`node`) is not on PATH; `python dev.py test` needs it and installs {package}")
    modules, wanted = modules_folder(), pinned(package)
    manifest = modules / package / "package.json"
    installed = json.loads(manifest.read_text()).get("version") if manifest.exists() else None
    if installed != wanted:
        raise ThreeUnavailable(f"{modules} holds {package} {installed}, the tests pin {wanted}; "
                               "`python dev.py test` installs it")
    return node, modules


def play(paths: list[Path], times: list[dict[int, np.ndarray]], plugin: bool = True,
         player: str = "three", tracks: np.ndarray | None = None) -> list[Played]:
    """Every node's quaternion as the engine ``player`` plays ``times[i][animation]`` of ``paths[i]``;
    with ``tracks`` (three.js only) also every clip's name, userData and tracks evaluated at those times."""
    script, package = PLAYERS[player]
    node, modules = _node(package)
    with tempfile.TemporaryDirectory(prefix="gltf_sqlerp_three_") as folder:
        files = [{"path": str(path), "times": {str(a): [float(t) for t in ts] for a, ts in by_animation.items()}}
                 for path, by_animation in zip(paths, times)]
        job = {"plugin": plugin, "out": folder, "files": files,
               "tracks": None if tracks is None else [float(t) for t in tracks]}
        job_path = Path(folder) / "job.json"
        job_path.write_text(json.dumps(job))
        command = [node, "--import", HOOKS.as_uri(), str(script), str(job_path)]
        try:
            done = subprocess.run(command, env={**os.environ, VARIABLE: str(modules)}, capture_output=True,
                                  text=True, encoding="utf-8", timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ThreeUnavailable(f"{player} did not finish within {TIMEOUT} s on {paths}") from None
        if done.returncode != 0:
            raise ThreeUnavailable(f"{script.relative_to(ROOT)} failed (exit code {done.returncode}):\n"
                                   f"{done.stderr.strip()}")
        return [_played(result, path, player) for result, path in zip(json.loads(done.stdout), paths)]


def _played(result: dict, path: Path, player: str) -> Played:
    if "error" in result:
        raise AssertionError(f"{player} could not load {path}: {result['error']}")
    count = result["nodes"]
    # float64 in the machine's byte order, written by the Node.js process on this machine
    quaternions = {int(a): np.fromfile(data, dtype=np.float64).reshape(-1, count, 4)
                   for a, data in result["played"].items()}
    return Played(count, result["missing"], result["clips"], quaternions, result.get("tracks"))


def check_times(document, animation: int) -> np.ndarray:
    """Times to play: every key time of the animation, the middle of every key interval, and
    SAMPLES_PER_SECOND evenly over its range (sorted, unique)."""
    channels = document.animations[animation].channels
    if not channels:  # an animation of no channel the core plays: its rest pose, once
        return np.zeros(1)
    keys = np.unique(np.concatenate([channel.sampler.times for channel in channels]))
    middles = (keys[:-1] + keys[1:]) / 2
    even = np.linspace(0.0, keys[-1], max(2, int(keys[-1] * SAMPLES_PER_SECOND) + 1))
    return np.unique(np.concatenate([keys, middles, even]))


def expected(document, animation: int, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(times, nodes, 4) quaternions from the core, and a (nodes,) mask of the nodes it can tell:
    every node but those given by a matrix and not animated."""
    nodes = document.json.get("nodes", [])
    result = np.zeros((len(times), len(nodes), 4))
    known = np.ones(len(nodes), dtype=bool)
    for n, node in enumerate(nodes):
        result[:, n] = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
        known[n] = "matrix" not in node
    for channel in document.animations[animation].channels:
        if channel.path == "rotation":
            result[:, channel.node] = channel.evaluate(times)
            known[channel.node] = True
    return result, known


def deviation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Largest component difference per quaternion, of the nearer of b and -b."""
    return np.minimum(np.abs(a - b).max(axis=-1), np.abs(a + b).max(axis=-1))


@dataclass
class Comparison:
    """One file: the largest deviation from the core over every animation, node and time."""
    worst: float
    samples: int      # quaternions compared
    missing: list[int]  # nodes the engine did not put in the scene


def compare(paths: list[Path], plugin: bool = True, player: str = "three") -> list[Comparison]:
    """The engine ``player`` against the core on every animation of every file, at check_times."""
    from gltf_sqlerp import core  # the package is importable wherever the tests and benches run
    documents = [core.load(str(path)) for path in paths]
    times = [{a: check_times(d, a) for a in range(len(d.animations))} for d in documents]
    result = []
    for document, by_animation, file in zip(documents, times, play(paths, times, plugin=plugin, player=player)):
        worst, samples = 0.0, 0
        for animation, at in by_animation.items():
            wanted, known = expected(document, animation, at)
            gap = deviation(file.quaternions[animation], wanted)[:, known]
            worst, samples = max(worst, float(gap.max(initial=0.0))), samples + gap.size
        result.append(Comparison(worst, samples, file.missing))
    return result


def report_line(path: Path, tolerance: float = 1e-6) -> str:
    """The benchmarks' line for one written file: how three.js with the plugin plays it."""
    try:
        [result] = compare([path])
    except (ThreeUnavailable, AssertionError) as error:
        return f"three.js: not played ({' '.join(str(error).split())[:200]})"
    verdict = "ok" if result.worst <= tolerance and not result.missing else "MISSED"
    missing = f", nodes missing from its scene: {result.missing}" if result.missing else ""
    return (f"three.js r{pinned_three().split('.')[1]} + viewers/three: {result.samples:,} quaternions, "
            f"max |three.js - core| {result.worst:.1e} (<= {tolerance:g}: {verdict}){missing}")
