"""The files glTF-Transform's tests (tests/web/test_gltf_transform_*.py) give it: the project's
sample in its fallback form (.gltf and .glb) and in the draft's required form, and, made here by hand
from the fallback form, the schema-valid required form, a copy with dense LINEAR fallbacks that
resample can thin, and a copy whose channels target their nodes through KHR_animation_pointer; and
the hostile corpus' valid base file (a CUBICSLERP sampler sharing its key times with every other
sampler, an animated mesh node).
"""

import json
from pathlib import Path

import numpy as np

from helpers.child_job import ROOT, tool

from gltf_sqlerp import core

corpus = tool("tools/hostile_corpus.py")

SAMPLES = ROOT / "samples"
EXTENSION = "EXT_animation_sqlerp"
POINTER = "KHR_animation_pointer"
INPUTS = ("fallback.gltf", "fallback.glb", "draft.gltf", "required.gltf", "dense.gltf", "pointer.gltf",
          "hostile_base.gltf")
REQUIRED = ("draft.gltf", "required.gltf")  # the inputs that list the extension as required

# The inputs made once per test session, per session folder: every test module shares them.
MADE: dict[Path, dict[str, Path]] = {}


def made_inputs(tmp_path_factory) -> dict[str, Path]:
    """Input name -> path of every file in INPUTS, the hand-made ones written on the first call only."""
    key = tmp_path_factory.getbasetemp()
    if key not in MADE:
        folder = tmp_path_factory.mktemp("inputs")
        MADE[key] = {"fallback.gltf": SAMPLES / "sqlerp_arm.gltf", "fallback.glb": SAMPLES / "sqlerp_arm.glb",
                     "draft.gltf": SAMPLES / "sqlerp_arm_required.gltf",
                     "required.gltf": required_form(SAMPLES / "sqlerp_arm.gltf", folder),
                     "dense.gltf": dense_form(SAMPLES / "sqlerp_arm.gltf", folder),
                     "pointer.gltf": pointer_form(SAMPLES / "sqlerp_arm.gltf", folder),
                     "hostile_base.gltf": Path(corpus.write_base(folder / "hostile"))}
    return MADE[key]


def required_form(source: Path, folder: Path) -> Path:
    """The schema-valid required form of a fallback-form .gltf, by hand: each extension channel's
    core sampler becomes one STEP key at t_1 holding v_1, and the file requires the extension."""
    document, blob, played = _open(source)
    for a, animation in enumerate(document["animations"]):
        for channel in (c for c in played.animations[a].channels if c.uses_extension):
            cubic = channel.sampler
            animation["samplers"][_spec(animation, channel)["sampler"]] = {
                "input": _append(document, blob, [cubic.times[0]], "SCALAR"),
                "output": _append(document, blob, cubic.keys[0], "VEC4"), "interpolation": "STEP"}
    document["extensionsRequired"] = [EXTENSION]
    return _save(document, blob, folder / "required.gltf")


def dense_form(source: Path, folder: Path) -> Path:
    """A fallback-form .gltf that resample has work to do on, by hand: each extension channel's
    fallback becomes LINEAR keys of its CUBICSLERP curve at 240 per second, and the translation
    channel moves along a straight line keyed at the CUBICSLERP key times, sharing their accessor."""
    document, blob, played = _open(source)
    for a, animation in enumerate(document["animations"]):
        for channel in played.animations[a].channels:
            spec = _spec(animation, channel)
            if channel.uses_extension:
                at = np.linspace(0.0, channel.sampler.times[-1], int(channel.sampler.times[-1] * 240) + 1)
                animation["samplers"][spec["sampler"]] = {
                    "input": _append(document, blob, at, "SCALAR"),
                    "output": _append(document, blob, channel.evaluate(at), "VEC4"), "interpolation": "LINEAR"}
            elif channel.path == "translation":
                shared = next(s["input"] for s in animation["samplers"] if s["interpolation"] == "CUBICSLERP")
                line = np.outer(played.accessor(shared)[:, 0], [0.0, 0.5, 0.0])
                animation["samplers"][spec["sampler"]] = {
                    "input": shared, "output": _append(document, blob, line, "VEC3"), "interpolation": "LINEAR"}
    return _save(document, blob, folder / "dense.gltf")


def pointer_form(source: Path, folder: Path) -> Path:
    """The fallback form with each extension channel's target written as a KHR_animation_pointer to
    "/nodes/{i}/rotation", which the spec allows and the core plays as the node channel."""
    document, blob, _ = _open(source)
    for animation in document["animations"]:
        for channel in (c for c in animation["channels"] if EXTENSION in c.get("extensions", {})):
            node = channel["target"]["node"]
            channel["target"] = {"path": "pointer", "extensions": {POINTER: {"pointer": f"/nodes/{node}/rotation"}}}
    document["extensionsUsed"].append(POINTER)
    return _save(document, blob, folder / "pointer.gltf")


def _open(source: Path) -> tuple[dict, bytearray, core.Document]:
    """A one-buffer .gltf's JSON, its buffer's bytes, and the core's reading of it."""
    document = json.loads(source.read_text())
    return document, bytearray((source.parent / document["buffers"][0]["uri"]).read_bytes()), core.load(str(source))


def _spec(animation: dict, channel: core.Channel) -> dict:
    """The JSON of a channel the core read from ``animation``."""
    return animation["channels"][int(channel.pointer.rsplit("/", 1)[1])]


def _save(document: dict, blob: bytearray, path: Path) -> Path:
    """``document`` and its one buffer written as ``path`` and a .bin beside it; ``path``."""
    document["buffers"][0].update(uri=path.with_suffix(".bin").name, byteLength=len(blob))
    path.with_suffix(".bin").write_bytes(bytes(blob))
    path.write_text(json.dumps(document))
    return path


COMPONENTS = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}


def _append(document: dict, blob: bytearray, values, kind: str) -> int:
    """A float32 accessor of ``values`` appended to buffer 0; its index."""
    data = np.asarray(values, dtype=np.float32)
    blob.extend(b"\0" * (-len(blob) % 4))
    document["bufferViews"].append({"buffer": 0, "byteOffset": len(blob), "byteLength": data.nbytes})
    blob.extend(data.tobytes())
    accessor = {"bufferView": len(document["bufferViews"]) - 1, "componentType": 5126,
                "count": data.size // COMPONENTS[kind], "type": kind}
    if kind == "SCALAR":
        accessor.update(min=[float(data.min())], max=[float(data.max())])
    document["accessors"].append(accessor)
    return len(document["accessors"]) - 1
