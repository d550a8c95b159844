"""Another export of the same character, shared by tests (not a test module): a Khronos character's
glTF JSON edited so that its armature node is turned about X and scaled (as a Mixamo character
comes out of Blender: +90° at 0.01, or -90° at 0.0012), with everything below compensated so that
the joints and the mesh stay where they were in the world. The bones are then in other units (a
joint's offset is divided by the scale), as in a real export at another scale.

Optionally also: the file's Z_UP node folded away (a Y-up source), prefixed names, and rest
rotations turned for some joints (an A-pose rig beside the file's T-pose), with the inverse bind
matrices following so that the mesh keeps its place.
"""

import base64
import json
import math
import shutil
from pathlib import Path

import numpy as np

_WIDTH = {"SCALAR": 1, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def about(axis, degrees):
    """(x, y, z, w) of a turn by ``degrees`` about ``axis``."""
    axis = np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)
    half = math.radians(degrees) / 2.0
    return np.array([*(axis * math.sin(half)), math.cos(half)])


def rotation_matrix(q):
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def quaternion(m):
    """(x, y, z, w) of a rotation matrix (the largest of the four candidates: stable)."""
    t = np.trace(m)
    candidates = [t, m[0, 0], m[1, 1], m[2, 2]]
    i = int(np.argmax(candidates))
    if i == 0:
        w = math.sqrt(1 + t) / 2
        return np.array([(m[2, 1] - m[1, 2]) / (4 * w), (m[0, 2] - m[2, 0]) / (4 * w),
                         (m[1, 0] - m[0, 1]) / (4 * w), w])
    j, k = (i % 3) + 1, ((i + 1) % 3) + 1
    i, j, k = i - 1, j - 1, k - 1
    v = np.zeros(3)
    v[i] = math.sqrt(1 + m[i, i] - m[j, j] - m[k, k]) / 2
    v[j] = (m[j, i] + m[i, j]) / (4 * v[i])
    v[k] = (m[k, i] + m[i, k]) / (4 * v[i])
    w = (m[k, j] - m[j, k]) / (4 * v[i])
    return np.array([*v, w])


def _multiply(a, b):
    """Hamilton product of (..., 4) (x, y, z, w) quaternions."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def _local(node):
    if "matrix" in node:
        return np.array(node["matrix"], dtype=np.float64).reshape(4, 4).T
    matrix = np.eye(4)
    matrix[:3, :3] = rotation_matrix(np.array(node.get("rotation", [0, 0, 0, 1.0]))) * node.get("scale", [1, 1, 1])
    matrix[:3, 3] = node.get("translation", [0, 0, 0])
    return matrix


def _set_local(node, matrix):
    for key in ("translation", "rotation", "scale"):
        node.pop(key, None)
    node["matrix"] = [float(v) for v in matrix.T.reshape(-1)]


def _worlds(data):
    parents = {c: i for i, n in enumerate(data["nodes"]) for c in n.get("children", [])}
    worlds = {}

    def world(i):
        if i not in worlds:
            local = _local(data["nodes"][i])
            worlds[i] = world(parents[i]) @ local if i in parents else local
        return worlds[i]
    for i in range(len(data["nodes"])):
        world(i)
    return worlds, parents


class _Buffers:
    """Reads the file's float accessors; new ones go into one extra embedded buffer."""

    def __init__(self, data, folder):
        self.data, self.folder, self.blob = data, folder, bytearray()
        self.index = len(data["buffers"])

    def read(self, accessor):
        acc = self.data["accessors"][accessor]
        view = self.data["bufferViews"][acc["bufferView"]]
        raw = (self.folder / self.data["buffers"][view["buffer"]]["uri"]).read_bytes()
        width = _WIDTH[acc["type"]]
        stride = view.get("byteStride", 4 * width)
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        rows = [np.frombuffer(raw, np.float32, width, start + r * stride) for r in range(acc["count"])]
        return np.array(rows, dtype=np.float64)

    def add(self, values, kind):
        values = np.asarray(values, dtype=np.float32).reshape(len(values), -1)
        views = self.data["bufferViews"]
        views.append({"buffer": self.index, "byteOffset": len(self.blob), "byteLength": values.nbytes})
        self.blob += values.tobytes()
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(values), "type": kind}
        self.data["accessors"].append(accessor)
        return len(self.data["accessors"]) - 1

    def close(self):
        uri = "data:application/octet-stream;base64," + base64.b64encode(bytes(self.blob)).decode()
        self.data["buffers"].append({"byteLength": len(self.blob), "uri": uri})


def variant(source: Path, folder: Path, name: str, turn_x_deg: float, scale: float, z_up: bool = True,
            prefix: str = "", rest_turns: dict | None = None, edit=None) -> Path:
    """``source`` with its node "Armature" turned ``turn_x_deg`` about X and scaled ``scale``
    (under its Z_UP node, or with Z_UP folded into its children when not ``z_up``), the joints
    and mesh kept in place. ``rest_turns``: {joint name: (axis, degrees)} turns that joint's rest
    (its children follow). ``edit(data)``: any other change, made last but for the names.
    ``prefix`` goes in front of every node name. Written to ``folder``."""
    for sibling in source.parent.iterdir():
        if sibling.suffix != ".gltf" and not (folder / sibling.name).exists():
            shutil.copy(sibling, folder)
    data = json.loads(source.read_text(encoding="utf-8"))
    nodes = data["nodes"]
    old_worlds, parents = _worlds(data)
    joints = {j for skin in data["skins"] for j in skin["joints"]}
    armature = next(i for i, n in enumerate(nodes) if n.get("name") == "Armature")
    if not z_up and armature in parents:
        _fold(data, parents[armature])
    new_local = np.eye(4)
    new_local[:3, :3] = rotation_matrix(about([1, 0, 0], turn_x_deg)) * scale
    worlds, _ = _worlds(data)
    above = worlds[parents[armature]] if armature in parents else np.eye(4)
    compensation = np.linalg.inv(above @ new_local) @ old_worlds[armature]
    sigma = np.cbrt(np.linalg.det(compensation[:3, :3]))
    turn = compensation[:3, :3] / sigma
    nodes[armature].pop("matrix", None)
    nodes[armature].update(rotation=list(about([1, 0, 0], turn_x_deg)), scale=[scale] * 3, translation=[0, 0, 0])
    buffers = _Buffers(data, source.parent)
    for child in nodes[armature].get("children", []):
        if child in joints:
            _rescale(data, child, joints, turn, sigma, buffers)
        else:
            _set_local(nodes[child], compensation @ _local(nodes[child]))
    for joint, (axis, degrees) in (rest_turns or {}).items():
        node = next(n for n in nodes if n.get("name") == joint)
        node["rotation"] = list(_multiply(np.array(node.get("rotation", [0, 0, 0, 1.0])), about(axis, degrees)))
    _rebind(data, old_worlds, buffers)
    if edit is not None:
        edit(data)
    for node in nodes:
        if "name" in node:
            node["name"] = prefix + node["name"]
    buffers.close()
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _fold(data, top):
    """A Y-up source: the Z_UP node ``top`` becomes the identity, its transform moved into its
    children."""
    nodes = data["nodes"]
    above = _local(nodes[top])
    for child in nodes[top].get("children", []):
        _set_local(nodes[child], above @ _local(nodes[child]))
    _set_local(nodes[top], np.eye(4))


def _rescale(data, root, joints, turn, sigma, buffers):
    """The joint ``root`` (under the armature) turned by ``turn`` and every joint below it in units
    ``sigma`` times smaller: offsets and animated translations times ``sigma``."""
    nodes = data["nodes"]
    below, stack = [], [root]
    while stack:
        node = stack.pop()
        assert node in joints, "only joints below the armature's root joint"
        below.append(node)
        stack.extend(nodes[node].get("children", []))
    local = _local(nodes[root])
    nodes[root].pop("matrix", None)
    scale = np.linalg.norm(local[:3, :3], axis=0)
    nodes[root].update(rotation=list(quaternion(turn @ local[:3, :3] / scale)), translation=list(turn @ local[:3, 3]),
                       scale=list(scale))
    for node in below:
        if "translation" in nodes[node]:
            nodes[node]["translation"] = list(np.array(nodes[node]["translation"]) * sigma)
    for animation in data.get("animations", []):
        for channel in animation["channels"]:
            node, path = channel["target"].get("node"), channel["target"]["path"]
            if node not in below or path not in ("translation", "rotation"):
                continue
            sampler = animation["samplers"][channel["sampler"]]
            values = buffers.read(sampler["output"])
            if path == "translation":
                values = values * sigma @ (turn.T if node == root else np.eye(3))
            elif node == root:
                values = _multiply(np.broadcast_to(quaternion(turn), values.shape), values)
            sampler = dict(sampler, output=buffers.add(values, "VEC3" if path == "translation" else "VEC4"))
            channel["sampler"] = len(animation["samplers"])
            animation["samplers"].append(sampler)


def _rebind(data, old_worlds, buffers):
    """Inverse bind matrices that keep the mesh where it was: new⁻¹ @ old @ IBM per joint."""
    worlds, _ = _worlds(data)
    for skin in data["skins"]:
        matrices = buffers.read(skin["inverseBindMatrices"]).reshape(-1, 4, 4).transpose(0, 2, 1)
        rebound = [np.linalg.inv(worlds[j]) @ old_worlds[j] @ m for j, m in zip(skin["joints"], matrices)]
        skin["inverseBindMatrices"] = buffers.add(np.array(rebound).transpose(0, 2, 1).reshape(-1, 16), "MAT4")
