"""A "robot-like" rig, shared by tests (not a test module): a Khronos character (CesiumMan) edited
the way three.js's RobotExpressive is built (a real clip we cannot ship here): its armature node
turned and scaled (tests/helpers/armature_variants.py), rigid meshes parented to joints (a mesh node under
a joint node, no skin), and deep finger chains under both hands ending in leaf "end" joints, keyed
every frame at 24 fps (LINEAR) for longer than the body's clip (90 frames against 48).

By default the first finger of each hand holds still with no keys at all: Blender plays its
joints as constant F-curves, which the export writes as one-key STEP samplers (the miss reported
on the real robot: a finger's end bone 0.014 degrees off in the world, tolerance 0.01). The other
keyword arguments of ``write`` are the variations the export was tried on (see its docstring).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np

from . import armature_variants as variants
from .child_job import ASSETS

FPS = 24.0
HANDS = ("Skeleton_arm_joint_L__2_", "Skeleton_arm_joint_R__3_")
HEAD = "Skeleton_neck_joint_2"
_WIDTH = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}


class _Data:
    """Reads any float accessor of the document (files or data URIs); new ones go into one extra
    embedded buffer."""

    def __init__(self, data: dict, folder: Path) -> None:
        self.data, self.folder, self.blob = data, folder, bytearray()
        self.index = len(data["buffers"])
        self.raw: dict[int, bytes] = {}

    def _buffer(self, index: int) -> bytes:
        if index not in self.raw:
            uri = self.data["buffers"][index]["uri"]
            self.raw[index] = (base64.b64decode(uri.split(",", 1)[1]) if uri.startswith("data:")
                               else (self.folder / uri).read_bytes())
        return self.raw[index]

    def read(self, accessor: int) -> np.ndarray:
        acc = self.data["accessors"][accessor]
        view = self.data["bufferViews"][acc["bufferView"]]
        raw = self._buffer(view["buffer"])
        width = _WIDTH[acc["type"]]
        stride = view.get("byteStride", 4 * width)
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        rows = [np.frombuffer(raw, np.float32, width, start + r * stride) for r in range(acc["count"])]
        return np.array(rows, dtype=np.float64)

    def add(self, values, kind: str, bounds: bool = False) -> int:
        values = np.asarray(values, dtype=np.float32).reshape(len(values), -1)
        views = self.data["bufferViews"]
        views.append({"buffer": self.index, "byteOffset": len(self.blob), "byteLength": values.nbytes})
        self.blob += values.tobytes()
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(values), "type": kind}
        if bounds:
            accessor.update(min=[float(v) for v in values.min(axis=0)], max=[float(v) for v in values.max(axis=0)])
        self.data["accessors"].append(accessor)
        return len(self.data["accessors"]) - 1

    def close(self) -> None:
        uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.blob)).decode()
        self.data["buffers"].append({"byteLength": len(self.blob), "uri": uri})


def _box(size: float) -> np.ndarray:
    """Twelve triangles of a cube of side ``size`` (not indexed), in its node's space."""
    c = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64) * size / 2
    faces = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3]
    return c[faces]


def _curl(frames: np.ndarray, amplitude: float, phase: float, speed: float, wobble: float) -> np.ndarray:
    """(F, 4) quaternions: a curl about local X with a sideways wobble about Z (degrees)."""
    t = frames / FPS
    curl = amplitude * (0.5 - 0.5 * np.cos(speed * t + phase))
    side = wobble * np.sin(1.7 * speed * t + 2 * phase)
    return np.array([variants._multiply(variants.about([1, 0, 0], a), variants.about([0, 0, 1], b))
                     for a, b in zip(curl, side)])


class _Rig:
    """The document being edited: new joints (bound at their rest), channels and rigid parts."""

    def __init__(self, data: dict, store: _Data, frames: int) -> None:
        self.data, self.store, self.nodes = data, store, data["nodes"]
        self.worlds, _ = variants._worlds(data)
        self.skin = data["skins"][0]
        self.binds = list(store.read(self.skin["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1))
        self.animation = data["animations"][0]
        self.key_frames = np.arange(frames, dtype=np.float64)
        self.times = store.add(self.key_frames / FPS, "SCALAR", bounds=True)
        self.mesh = len(data["meshes"])
        data["meshes"].append({"name": "Part", "primitives": [{"attributes": {
            "POSITION": store.add(_box(1.0), "VEC3", bounds=True)}}]})

    def index(self, name: str) -> int:
        return next(i for i, n in enumerate(self.nodes) if n.get("name") == name)

    def _child(self, parent: int, node: dict) -> int:
        self.nodes.append(node)
        self.nodes[parent].setdefault("children", []).append(len(self.nodes) - 1)
        return len(self.nodes) - 1

    def part(self, parent: int, label: str, world_size: float) -> None:
        """A rigid part under ``parent``: a cube ``world_size`` across in the world, offset and turned."""
        local_scale = world_size / np.cbrt(abs(np.linalg.det(self.worlds[parent][:3, :3])))
        self._child(parent, {"name": label, "mesh": self.mesh, "scale": [local_scale] * 3,
                             "translation": [0.0, 0.5 * local_scale, 0.0],
                             "rotation": list(variants.about([1, 1, 0], 20))})

    def joint(self, parent: int, label: str, offset_world: np.ndarray, rest: np.ndarray) -> int:
        """A joint under the joint ``parent``, ``offset_world`` from it in the world."""
        local_offset = np.linalg.solve(self.worlds[parent][:3, :3], offset_world)
        index = self._child(parent, {"name": label, "translation": [float(v) for v in local_offset],
                                     "rotation": [float(v) for v in rest]})
        local = variants._local(self.nodes[index])
        self.worlds[index] = self.worlds[parent] @ local
        # Bound at its rest: its inverse bind follows its parent's.
        self.binds.append(np.linalg.inv(local) @ self.binds[self.skin["joints"].index(parent)])
        self.skin["joints"].append(index)
        return index

    def rotation(self, node: int, values: np.ndarray, interpolation: str = "LINEAR") -> None:
        """A rotation channel keyed at every frame."""
        samplers = self.animation["samplers"]
        samplers.append({"input": self.times, "interpolation": interpolation,
                         "output": self.store.add(values, "VEC4")})
        self.animation["channels"].append({"sampler": len(samplers) - 1, "target": {"node": node, "path": "rotation"}})

    def squash(self, node: int, factors: list[float]) -> None:
        """Rest scale ``factors`` (non-uniform allowed), held by the clip's scale keys too."""
        self.nodes[node]["scale"] = [float(v) for v in factors]
        for channel in self.animation["channels"]:
            if channel["target"] == {"node": node, "path": "scale"}:
                sampler = dict(self.animation["samplers"][channel["sampler"]])
                count = self.data["accessors"][sampler["input"]]["count"]
                sampler["output"] = self.store.add(np.tile(np.asarray(factors, dtype=np.float64), (count, 1)), "VEC3")
                self.animation["samplers"].append(sampler)
                channel["sampler"] = len(self.animation["samplers"]) - 1

    def close(self, path: Path) -> Path:
        self.skin["inverseBindMatrices"] = self.store.add(
            np.array(self.binds).transpose(0, 2, 1).reshape(-1, 16), "MAT4")
        self.store.close()
        path.write_text(json.dumps(self.data), encoding="utf-8")
        return path


def write(folder: Path, name: str = "robot_like.gltf", *, turn_x_deg: float = 90.0, scale: float = 0.01,
          fingers: int = 3, depth: int = 4, frames: int = 90, still: int = 1, still_keys: str = "absent",
          ends: str = "constant", rigid: bool = True, squash: dict | None = None, speed: float = 12.0,
          amplitude: float = 120.0) -> Path:
    """The rig's .gltf in ``folder``: per hand, ``fingers`` chains of ``depth`` joints and an end
    joint, keyed at each of ``frames`` frames (a curl of ``amplitude`` degrees at ``speed`` radians
    a second, and a wobble). The first ``still`` fingers of each hand hold their rest, with
    ``still_keys``: "absent" (no channel), "constant" (LINEAR keys of one value) or "step" (STEP
    keys); the end joints of the others: ``ends``, one of those or "animated". ``rigid``: cubes
    on the head, the hands and the fingers' first and end joints. ``squash``: {joint name: scale}."""
    folder.mkdir(parents=True, exist_ok=True)
    base = variants.variant(variants_source(), folder, "robot_base.gltf", turn_x_deg, scale)
    data = json.loads(base.read_text(encoding="utf-8"))
    rig = _Rig(data, _Data(data, folder), frames)
    for side, hand_name in enumerate(HANDS):
        hand = rig.index(hand_name)
        if rigid:
            rig.part(hand, f"HandMesh{side}", 0.06)
        for f in range(fingers):
            parent, keys = hand, still_keys if f < still else "animated"
            for d in range(depth + 1):
                label = f"Finger{side}{f}_{d + 1}" if d < depth else f"Finger{side}{f}_end"
                spread = (f - (fingers - 1) / 2) * 0.015 if d == 0 else 0.0
                offset = np.array([spread, 0.0, -0.025 if d == 0 else -0.018])
                rest = variants.about([1, 0.3 * (f - 1), 0.2], 12.0 + 7 * d)
                joint = rig.joint(parent, label, offset, rest)
                kind = ends if d == depth and keys == "animated" else keys
                if kind == "animated":
                    motion = _curl(rig.key_frames, amplitude / (1 + 0.3 * d), 0.7 * f + 0.4 * d + side,
                                   speed * (1 + 0.15 * d), 12.0)
                    rig.rotation(joint, variants._multiply(np.broadcast_to(rest, motion.shape), motion))
                elif kind in ("constant", "step"):
                    rig.rotation(joint, np.broadcast_to(rest, (frames, 4)), "STEP" if kind == "step" else "LINEAR")
                if rigid and d in (0, depth):
                    rig.part(joint, f"Part{side}{f}_{d + 1}", 0.012)
                parent = joint
    if rigid:
        rig.part(rig.index(HEAD), "HeadMesh", 0.15)
    for label, factors in (squash or {}).items():
        rig.squash(rig.index(label), factors)
    return rig.close(folder / name)


def variants_source() -> Path:
    """CesiumMan's .gltf in the shared assets (read there, never copied into the repository)."""
    return ASSETS / "khronos" / "CesiumMan" / "glTF" / "CesiumMan.gltf"
