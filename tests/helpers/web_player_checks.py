"""What every web player must do with EXT_animation_sqlerp files (not a test module): PlayerTests, the
tests tests/web/test_three_player.py and tests/web/test_babylon_player.py run (each subclasses it with its
engine, ``PLAYER``: "three" or "babylon", which tools/three_player.py runs under Node.js), and
PageTests, what tests/web/test_three_page.py and tests/web/test_babylon_page.py run on each engine's example
page in headless Chromium (Debian's, driven by the pinned playwright-core, WebGL in software;
tools/three_page.py serves the repository and the pinned npm packages): the page loads the sample
with its engine and our player, poses the clip at a given time and reports every node's quaternion,
which must be the core's within 1e-6, and where its mesh is on the canvas, which must move between
two times.

The reference is the add-on's core, itself checked against the spec's formulas
(test_interpolation.py), and values worked by hand here. The export benchmark's files are written by
its own code in a child process (three_export_job.py) and must play within 1e-6 at every time.
"""

import base64
import json
import math
from pathlib import Path

import numpy as np
import pytest

from .child_job import JOBS, ROOT, run_job, tool
from .gltf_validator import errors, validate_all

from gltf_sqlerp import core
from gltf_sqlerp.core.sampling import jump_times

web_player = tool("tools/three_player.py")
three_page = tool("tools/three_page.py")
pointer_files = tool("tools/pointer_files.py")
corpus = tool("tools/hostile_corpus.py")

POINTER = "KHR_animation_pointer"
TOLERANCE = 1e-6  # the bound on |player - core| per quaternion component
SAMPLES = ROOT / "samples"
SAMPLE_FORMS = ("sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf")
JOB = JOBS / "three_export_job.py"
# The real clips of bench/bench_real_export.py played here (its --quick set's model, the one with
# every interpolation, and a capture clip); the benchmark itself plays every clip.
CLIPS = ("CesiumMan", "InterpolationTest", "16_27")
KEYED_RIGS = 8  # bench/bench_export.py's keyed rigs: a1, a2, a3, a4-s1..s3, a5, a6
# Hostile corpus cases whose first channel's CUBICSLERP sampler cannot play: the player must play
# the channel's core sampler instead, as the engine alone does.
BROKEN_SAMPLER = {"TYPE_MISMATCH", "SQLERP_UNRESOLVED_SAMPLER", "SQLERP_TOO_FEW_KEYS", "SQLERP_NON_UNIT_QUATERNION",
                  "SQLERP_INVALID_COUNT", "SQLERP_INVALID_FORMAT", "SQLERP_NOT_CUBICSLERP"}
HOSTILE = [case for case in corpus.CASES if case.code.startswith("SQLERP_") or "sqlerp" in case.name]
HAND_FORMS = ("float", "int16", "zero ends", "negated", "pointer", "placeholder")
PAGE_TIMES = (three_page.README_TIME, 1.4)


def play_like_the_core(paths, player, plugin=True):
    """(largest deviation, quaternions compared) per file; every node must be in the engine's scene."""
    compared = web_player.compare(paths, plugin=plugin, player=player)
    for path, result in zip(paths, compared):
        assert result.missing == [], f"{path.name}: nodes {player} did not put in the scene: {result.missing}"
    return [(result.worst, result.samples) for result in compared]


def the_sample_plays_as_the_core(name, player):
    # sqlerp_arm_required.gltf is the draft's required form: channels without a core sampler.
    [(worst, samples)] = play_like_the_core([SAMPLES / name], player)
    assert samples > 2000 and worst <= TOLERANCE, (worst, samples)
    return worst


def alone_it_plays_the_fallback(player):
    # The comparison can fail: the engine alone plays the LINEAR fallback, 0.09 degrees from the curve.
    path = SAMPLES / "sqlerp_arm.gltf"
    [(worst, _)] = play_like_the_core([path], player, plugin=False)
    assert worst > 1e-4
    document = core.load(str(path))
    at = web_player.check_times(document, 0)
    [alone] = web_player.play([path], [{0: at}], plugin=False, player=player)
    for channel in (c for c in document.animations[0].channels if c.path == "rotation"):
        fallback = channel.evaluate(at, use_fallback=True)
        assert web_player.deviation(alone.quaternions[0][:, channel.node], fallback).max() < 1e-6


def hostile_samplers_never_play_nan(folder, player):
    # Every CUBICSLERP defect of the hostile corpus (each a file the core refuses): the engine with
    # our extension loads it and plays unit quaternions; a channel whose CUBICSLERP sampler is broken
    # plays its fallback, exactly what the engine alone plays.
    assert {case.code for case in HOSTILE} >= BROKEN_SAMPLER - {"TYPE_MISMATCH"} and len(HOSTILE) >= 12
    paths = [Path(corpus.write_case(case, folder / case.name)) for case in HOSTILE]
    at = [{0: np.linspace(0.0, 1.25, 11)}] * len(paths)
    ours = web_player.play(paths, at, player=player)
    broken = [(case, path, played) for case, path, played in zip(HOSTILE, paths, ours) if case.code in BROKEN_SAMPLER]
    alone = web_player.play([path for _, path, _ in broken], at[:len(broken)], plugin=False, player=player)
    for case, played in zip(HOSTILE, ours):
        quaternions = played.quaternions[0]
        assert np.isfinite(quaternions).all(), case.name
        assert np.abs(np.linalg.norm(quaternions, axis=-1) - 1.0).max() < 1e-6, case.name
    for (case, _, played), fallback in zip(broken, alone):
        assert web_player.deviation(played.quaternions[0], fallback.quaternions[0]).max() < 1e-6, case.name


def about_z(degrees):
    half = math.radians(degrees) / 2
    return [0.0, 0.0, math.sin(half), math.cos(half)]


def one_channel_file(folder, values, component_type=5126, normalized=False, required=False, pointer=False,
                     placeholder=False):
    """A one-node .gltf with one CUBICSLERP rotation channel, keys at 0 s and 1 s, embedded data;
    ``pointer``: its target is KHR_animation_pointer's "/nodes/0/rotation"; ``required``: the
    draft's form (no channel.sampler), with ``placeholder`` our export's (a one-key STEP sampler)."""
    times = np.array([0.0, 1.0], dtype=np.float32)
    dtype = {5126: np.float32, 5122: np.int16}[component_type]
    data = np.asarray(values, dtype=np.float64)
    output = np.round(data * 32767).astype(dtype) if normalized else data.astype(dtype)
    blob = times.tobytes() + output.tobytes()
    target = {"path": "pointer", "extensions": {POINTER: {"pointer": "/nodes/0/rotation"}}} if pointer \
        else {"node": 0, "path": "rotation"}
    channel = {"target": target, "extensions": {"EXT_animation_sqlerp": {"sampler": 0}}}
    uri = "data:application/octet-stream;base64," + base64.b64encode(blob).decode()
    times_accessor = {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}
    keys = {"bufferView": 1, "componentType": component_type, "count": 6, "type": "VEC4"}
    samplers = [{"input": 0, "output": 1, "interpolation": "CUBICSLERP"}]
    accessors = [times_accessor, {**keys, "normalized": True} if normalized else keys]
    if placeholder:  # the first key's time and value, read from the same buffer views
        accessors += [{**times_accessor, "count": 1, "max": [0.0]}, {**accessors[1], "count": 1, "byteOffset": 16}]
        samplers.append({"input": 2, "output": 3, "interpolation": "STEP"})
        channel["sampler"] = 1
    document = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "turned"}],
        "extensionsUsed": ["EXT_animation_sqlerp"] + ([POINTER] if pointer else []),
        "buffers": [{"byteLength": len(blob), "uri": uri}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 8},
                        {"buffer": 0, "byteOffset": 8, "byteLength": len(blob) - 8}],
        "accessors": accessors, "animations": [{"channels": [channel], "samplers": samplers}]}
    if required:
        document["extensionsRequired"] = ["EXT_animation_sqlerp"]
    path = folder / "turned.gltf"
    path.write_text(json.dumps(document))
    return path


def hand_worked_file(folder, form):
    # v1 = identity, v2 = 90 degrees about Z, b1 = a2 = 45 degrees about Z. "zero ends" stores a1
    # and b2 (never used) as zero; "negated" stores a2 and v2 as -q, the same rotations: the
    # shortest-path rule plays the same. "pointer" hangs the extension off a KHR_animation_pointer
    # channel to "/nodes/0/rotation" (spec "Channels through KHR_animation_pointer": allowed, and
    # played as the node channel).
    first, last = ([0.0] * 4, [0.0] * 4) if form == "zero ends" else (about_z(0), about_z(90))
    sign = -1.0 if form == "negated" else 1.0
    values = [first, about_z(0), about_z(45), list(sign * np.array(about_z(45))),
              list(sign * np.array(about_z(90))), last]
    quantized = form == "int16"
    return one_channel_file(folder, values, 5122 if quantized else 5126, normalized=quantized, required=True,
                            pointer=form == "pointer", placeholder=form == "placeholder")


def hand_worked_values(folder, form, player, to_core=1e-7):
    # At u the keys' slerp is 90u degrees, the tangents' slerp 45 degrees, and the outer slerp goes
    # 2u(1 - u) of the way: u = 1/4: 22.5 + 0.375 * (45 - 22.5) = 30.9375 degrees; u = 1/2: 45;
    # u = 3/4: 59.0625. Before the first key and after the last: the end keys (clamped).
    path = hand_worked_file(folder, form)
    at = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.5])
    [played] = web_player.play([path], [{0: at}], player=player)
    wanted = np.array([about_z(d) for d in (0.0, 30.9375, 45.0, 59.0625, 90.0, 90.0)])
    # The keys are stored rounded: float32 to 6e-8, 16-bit integers to 1/65534, which moves the
    # curve by as much.
    bound = 1e-7 if form != "int16" else 2e-5
    assert web_player.deviation(played.quaternions[0][:, 0], wanted).max() < bound
    assert web_player.deviation(played.quaternions[0][:, 0], core.load(str(path)).animations[0]
                                .channels[0].evaluate(at)).max() < to_core


def export_benchmark_files_play_as_the_core(folder, player):
    written = [Path(p) for p in run_job(JOB, folder, *CLIPS, cwd=JOB.parent, timeout=900)]
    assert len(written) == 3 * KEYED_RIGS + 3 * len(CLIPS)
    # Both forms are among them: fallbacks (channel.sampler beside the extension) and required.
    loaded = [core.load(str(path)) for path in written]
    documents = [document.json for document in loaded]
    required = [path.name for path, d in zip(written, documents)
                if "EXT_animation_sqlerp" in d.get("extensionsRequired", [])]
    assert {"a1_NONE.glb", "a2_NONE.glb", "a3_NONE.glb"} <= set(required)
    for path, document in zip(written, documents):
        channels = [c for a in document.get("animations", []) for c in a["channels"]]
        # The keyed rigs with the extension asked for (AUTO writes CUBICSPLINE samplers alone where
        # those are smaller: the engine plays them with its own CUBICSPLINE interpolation)
        if path.name[:2] in ("a1", "a2", "a3") and not path.name.endswith("_AUTO.glb"):
            assert any("EXT_animation_sqlerp" in c.get("extensions", {}) for c in channels), path.name
        if path.name.endswith("_AUTO.glb"):
            assert all("sampler" in c for c in channels), path.name
    worst = 0.0
    for path, (deviation, samples) in zip(written, play_like_the_core(written, player)):
        assert samples > 1000 and deviation <= TOLERANCE, (path.name, deviation, samples)
        worst = max(worst, deviation)
    # spec "Where the curve is discontinuous": the export's own curves never jump (p . s keeps its sign across every
    # segment), so every player, flipping or not, plays them alike.
    for path, document in zip(written, loaded):
        cubic = [c.sampler for a in document.animations for c in a.channels if c.uses_extension]
        assert [len(jump_times(s.times, s.values)) for s in cubic] == [0] * len(cubic), path.name
    assert [errors(report) for report in validate_all(written)] == [[]] * len(written)
    return worst


def pointer_files_play_as_the_core(folder, player):
    # KHR_animation_pointer to node rotations, translations and scales (shared inputs, outputs and
    # samplers): the player plays them as the node channels they are.
    paths = [pointer_files.write(name, folder) for name in ("reported", "node_trs_pointers", "shared_sampler")]
    for (worst, samples), path in zip(play_like_the_core(paths, player), paths):
        assert samples > 1000 and worst <= TOLERANCE, (path.name, worst, samples)
    return paths


class PlayerTests:
    """Every web player's tests: a test module subclasses this as ``Test<Engine>``, with its PLAYER."""
    PLAYER = ""

    @pytest.mark.parametrize("name", SAMPLE_FORMS)
    def test_the_sample_plays_as_the_core(self, name):
        the_sample_plays_as_the_core(name, self.PLAYER)

    def test_without_the_extension_the_engine_plays_the_fallback(self):
        alone_it_plays_the_fallback(self.PLAYER)

    def test_hostile_cubicslerp_samplers_never_play_nan(self, tmp_path):
        hostile_samplers_never_play_nan(tmp_path, self.PLAYER)

    @pytest.mark.parametrize("form", HAND_FORMS)
    def test_hand_worked_values(self, tmp_path, form):
        hand_worked_values(tmp_path, form, self.PLAYER)

    def test_node_channels_through_pointers_play_as_the_core(self, tmp_path):
        pointer_files_play_as_the_core(tmp_path, self.PLAYER)

    @pytest.mark.blender
    def test_the_export_benchmark_files_play_as_the_core(self, tmp_path):
        export_benchmark_files_play_as_the_core(tmp_path, self.PLAYER)


def page_plays_as_the_core(report, path, time):
    assert report["errors"] == [] and report["sqlerp"] is not None, report["errors"]
    wanted, known = web_player.expected(core.load(str(path)), 0, np.array([time]))
    played = np.array(report["sqlerp"]["quaternions"], dtype=np.float64)[None]
    assert known.all() and played.shape == wanted.shape
    assert web_player.deviation(played, wanted).max() <= 1e-6


class PageTests:
    """Every example page's tests: a test module subclasses this with PAGE, the page's path."""
    PAGE = ""

    @pytest.fixture(scope="class")
    @classmethod
    def reports(cls, tmp_path_factory):
        folder = tmp_path_factory.mktemp("page")
        return {time: three_page.capture(time, folder / f"arm_{time}.png", page=cls.PAGE) for time in PAGE_TIMES}

    @pytest.mark.parametrize("time", PAGE_TIMES)
    def test_the_page_plays_the_sample_as_the_core(self, reports, time):
        page_plays_as_the_core(reports[time], SAMPLES / "sqlerp_arm.glb", time)

    def test_the_page_plays_the_drafts_required_form(self, tmp_path):
        # No core sampler on any channel: the page plays the CUBICSLERP samplers or nothing.
        time = PAGE_TIMES[0]
        report = three_page.capture(time, tmp_path / "required.png", file="/samples/sqlerp_arm_required.gltf",
                                    page=self.PAGE)
        page_plays_as_the_core(report, SAMPLES / "sqlerp_arm_required.gltf", time)

    def test_the_arm_is_drawn_and_moves(self, reports):
        # Software WebGL drew the mesh: thousands of its pixels, in cells that differ between the times.
        first, second = (reports[time]["sqlerp"] for time in PAGE_TIMES)
        assert first["armPixels"] > 2000 and second["armPixels"] > 2000
        assert sum(a != b for a, b in zip(first["armCells"], second["armCells"])) >= 3
