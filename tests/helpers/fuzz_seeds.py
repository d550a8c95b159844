"""The fuzzer's seeds and its inputs (tests/helpers/fuzz_strategies.py draws them).

A seed is a real file split into its parts: the JSON tree, the GLB BIN chunk (for .glb) and the
external buffer files (for .gltf): our samples, the validator's and a few Khronos models from
../shared/assets. A ``Case`` is a seed as mutated: ``Case.write(folder)`` writes the file (and its
external buffers) into a folder and returns its path, for ``core.load``; ``repr(case)`` names the
seed and the mutations, so a failure reads as a recipe.
"""

import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("GLTF_SQLERP_SHARED", ROOT.parent / "shared"))
ASSETS = SHARED / "assets"

SEED_PATHS = (
    [ROOT / "samples" / name for name in
     ("sqlerp_arm.gltf", "sqlerp_arm.glb", "sqlerp_arm_required.gltf")]
    + sorted((ASSETS / "validator").glob("*/*.gltf"))
    + [ASSETS / "khronos" / p for p in (
        "AnimatedTriangle/glTF/AnimatedTriangle.gltf",
        "BoxAnimated/glTF-Binary/BoxAnimated.glb",
        "InterpolationTest/glTF-Binary/InterpolationTest.glb",
        "RiggedSimple/glTF-Binary/RiggedSimple.glb",
        "SimpleSkin/glTF/SimpleSkin.gltf",
        "SimpleMorph/glTF/SimpleMorph.gltf",
        "AnimatedMorphCube/glTF-Quantized/AnimatedMorphCube.gltf",
    )]
)


@dataclass
class Seed:
    name: str
    kind: str            # "gltf" or "glb"
    json: dict
    bin: bytes | None = None    # the GLB BIN chunk
    files: dict = field(default_factory=dict)  # external buffer URI -> bytes


def _load_seed(path):
    data = path.read_bytes()
    if data[:4] == b"glTF":
        json_length, = struct.unpack_from("<I", data, 12)
        document = json.loads(data[20:20 + json_length])
        rest = data[20 + json_length:]
        binary = rest[8:8 + struct.unpack_from("<I", rest, 0)[0]] if len(rest) >= 8 else None
        return Seed(path.name, "glb", document, binary)
    document = json.loads(data)
    files = {}
    for buffer in document.get("buffers", []):
        uri = buffer.get("uri", "") if isinstance(buffer, dict) else ""
        if uri and not uri.startswith("data:") and (path.parent / uri).is_file():
            files[uri] = (path.parent / uri).read_bytes()
    return Seed(path.name, "gltf", document, None, files)


def load_seeds():
    missing = [p for p in SEED_PATHS if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"fuzz seeds missing (is ../shared/assets there?): {missing[:3]}")
    return [_load_seed(p) for p in SEED_PATHS]


SEEDS = load_seeds()


@dataclass
class Case:
    """A mutated seed: ``json`` (a tree, or raw text bytes after a text mutation), ``bin``,
    ``files``, and GLB framing overrides; ``steps`` says what was done, for readable failures."""
    seed: str
    kind: str
    json: object
    bin: bytes | None = None
    files: dict = field(default_factory=dict)
    glb: dict = field(default_factory=dict)   # version, length, json_type, bin_type, bin_length ...
    steps: list = field(default_factory=list)

    def __repr__(self):
        return f"Case(seed={self.seed!r}, steps={self.steps!r})"

    def json_bytes(self):
        if isinstance(self.json, bytes):
            return self.json
        return json.dumps(self.json, allow_nan=True).encode()

    def to_bytes(self):
        """The main file's bytes."""
        text = self.json_bytes()
        if self.kind != "glb":
            return text
        text += b" " * (-len(text) % 4)
        g = self.glb
        body = struct.pack("<II", g.get("json_length", len(text)), g.get("json_type", 0x4E4F534A)) + text
        if self.bin is not None:
            padded = self.bin + b"\0" * (-len(self.bin) % 4)
            body += struct.pack("<II", g.get("bin_length", len(padded)),
                                g.get("bin_type", 0x004E4942)) + padded
        body += g.get("trailer", b"")
        header = struct.pack("<4sII", g.get("magic", b"glTF"), g.get("version", 2),
                             g.get("length", 12 + len(body)))
        data = header + body
        if "cut" in g:
            data = data[:g["cut"] % (len(data) + 1)]
        return data

    def write(self, folder):
        folder = Path(folder)
        for uri, blob in self.files.items():
            target = folder / uri
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
        path = folder / ("fuzz.glb" if self.kind == "glb" else "fuzz.gltf")
        path.write_bytes(self.to_bytes())
        return path
