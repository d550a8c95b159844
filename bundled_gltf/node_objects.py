"""Which Blender object or bone plays each glTF node after an import, and how its axes differ.

Part of the fidelity measure (operators/preview/world_fidelity.py). The bundled importer names objects and bones after
the nodes (``node.name``, else the mesh's name for mesh nodes, else ``Node_<i>``), turns every skin
joint and every node between the joints and their deepest common ancestor into a bone of one
armature, and gives bones constant extra rotations (its bone-direction heuristic) on top of the
Y-up to Z-up axis conversion. Its edit bones rest in the *bind pose* it guesses from the inverse
bind matrices, which differs from the nodes' rest TRS in CesiumMan, RiggedFigure and RiggedSimple,
so bone corrections are calibrated against that bind pose, rebuilt here from the file with the
importer's rule (io_scene_gltf2 ``vnode.pick_bind_pose``, default ``guess_original_bind_pose``).

Conventions: matrices are numpy (..., 3, 3) or (..., 4, 4) with M[row, col]; a glTF matrix M is
expressed in Blender axes as AXES @ M @ AXES.T, with AXES mapping glTF (x, y, z) to (x, -z, y).
"""

import re
from dataclasses import dataclass, field

import bpy
import numpy as np

AXES = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
ROOT = -1  # the importer's dummy root above the scene's top-level nodes


# The importer turns camera and light objects a quarter turn about X (vnode.py
# correct_cameras_and_lights, with its default +Y up): Blender's cameras and lights look down their
# local -Z with +Y up in Blender's Z-up world, so the glTF node's -Z (its view) must become their -Z.
CAMERA_LIGHT_CORRECTION = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
LIGHTS = "KHR_lights_punctual"


def object_correction(document, node: int) -> np.ndarray:
    """(3, 3) C with Blender world = glTF world (Blender axes) @ C for the object made of a node
    that is not a bone: the camera and light turn, else the identity."""
    item = document.json["nodes"][node]
    extensions = item.get("extensions")
    light = isinstance(extensions, dict) and LIGHTS in extensions
    return CAMERA_LIGHT_CORRECTION if "camera" in item or light else np.eye(3)


def rotation_part(matrices):
    """Closest rotation to each (..., 3, 3) (polar decomposition by SVD): scale and shear removed,
    the same way on the glTF and the Blender side, so that a constant rotation on the right
    (a bone correction) carries through unchanged."""
    u, _, vt = np.linalg.svd(np.asarray(matrices, dtype=np.float64)[..., :3, :3])
    flip = np.sign(np.linalg.det(u @ vt))   # a mirrored matrix: keep a proper rotation
    u[..., :, -1] *= flip[..., None]
    return u @ vt


def to_blender_axes(rotations):
    return AXES @ rotations @ AXES.T


def quaternions(rotations):
    """(..., 3, 3) rotation matrices to unit quaternions (x, y, z, w) (Shepperd's method, every
    branch computed and the stable one picked per matrix)."""
    m = np.asarray(rotations, dtype=np.float64)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    diagonal = np.stack([m00 + m11 + m22, m00, m11, m22], axis=-1)
    pick = np.argmax(diagonal, axis=-1)
    d01, s01 = m[..., 1, 0] - m[..., 0, 1], m[..., 1, 0] + m[..., 0, 1]
    d02, s02 = m[..., 0, 2] - m[..., 2, 0], m[..., 0, 2] + m[..., 2, 0]
    d12, s12 = m[..., 2, 1] - m[..., 1, 2], m[..., 2, 1] + m[..., 1, 2]
    r = [np.sqrt(np.maximum(1.0 + s0 * m00 + s1 * m11 + s2 * m22, 1e-300))
         for s0, s1, s2 in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1))]
    candidates = np.stack([  # each (x, y, z, w) times 2r
        np.stack([d12, d02, d01, r[0] ** 2], axis=-1) / (2 * r[0])[..., None],
        np.stack([r[1] ** 2, s01, s02, d12], axis=-1) / (2 * r[1])[..., None],
        np.stack([s01, r[2] ** 2, s12, d02], axis=-1) / (2 * r[2])[..., None],
        np.stack([s02, s12, r[3] ** 2, d01], axis=-1) / (2 * r[3])[..., None]], axis=-2)
    return np.take_along_axis(candidates, pick[..., None, None], axis=-2)[..., 0, :]


@dataclass
class NodeMap:
    """glTF nodes of the imported scene and what plays them in Blender."""
    objects: dict = field(default_factory=dict)      # node -> object name
    bones: dict = field(default_factory=dict)        # node -> (armature object name, bone name)
    meshes: dict = field(default_factory=dict)       # mesh node -> object name
    missing: list = field(default_factory=list)      # readable: nodes with nothing found in Blender
    order: list = field(default_factory=list)        # scene nodes, parents first


def scene_nodes(document):
    """Nodes of the document's scene (``scene``, else the first), parents first."""
    scenes = document.json.get("scenes", [])
    if not scenes:
        return []
    roots = scenes[document.json.get("scene", 0)].get("nodes", [])
    nodes, order = document.json.get("nodes", []), []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(nodes[node].get("children", [])))
    return order


def _path_from_root(parents, node):
    path = [node]
    while path[-1] != ROOT:
        path.append(int(parents[path[-1]]))
    return path[::-1]


def armatures_and_bones(document):
    """{bone node: armature node (or ROOT)} by the importer's rule (vnode.mark_bones_and_armas)."""
    parents = document.scene.parents
    bone_of = {}
    for skin in document.json.get("skins", []):
        joints = list(skin["joints"])
        ends = joints + ([skin["skeleton"]] if "skeleton" in skin else [])
        paths = [_path_from_root(parents, n) for n in ends]
        common = 0
        while all(len(p) > common and p[common] == paths[0][common] for p in paths):
            common += 1
        armature = paths[0][common - 1]
        if armature in joints:
            armature = int(parents[armature]) if armature != ROOT else ROOT
        armature = bone_of.get(armature, armature)  # inside another skin's armature: join it
        for joint in joints:
            while joint != armature and joint != ROOT:
                bone_of[joint] = armature
                joint = int(parents[joint])
    return bone_of


def node_name(document, node):
    """The name the importer gives the node's object or bone."""
    spec = document.json["nodes"][node]
    if spec.get("name"):
        return spec["name"]
    if "mesh" in spec:
        return _mesh_name(document, spec["mesh"])
    return f"Node_{node}"


def _mesh_name(document, mesh):
    return document.json["meshes"][mesh].get("name") or f"Mesh_{mesh}"


def map_nodes(document, objects):
    """NodeMap for the imported scene; ``objects``: bpy.data.objects.

    Nodes that share a name (RecursiveSkeletons: 84 unnamed nodes of the mesh "skinned mesh") get
    Blender's unique names "name", "name.001", ...: each such node takes the first of those not
    yet taken that fits it (``_fits``: its skin's joints as vertex groups, its parent's object or
    bone as parent), so no two nodes are played by one object."""
    result = NodeMap(order=scene_nodes(document))
    bone_of = armatures_and_bones(document)
    armatures = [o for o in objects if o.type == 'ARMATURE']
    taken: set = set()
    for node in result.order:
        name = node_name(document, node)
        if node in bone_of:
            owners = [a.name for a in armatures if name in a.pose.bones]
            if len(owners) == 1:
                result.bones[node] = (owners[0], name)
            else:
                result.missing.append(f"bone node {node} {name!r}: in {len(owners)} armatures")
            continue
        spec = document.json["nodes"][node]
        found = _object_of(document, node, name, objects, taken, result)
        if "skin" in spec and "mesh" in spec and (found is None or not _fits(document, node, found, result)):
            # A skinned mesh node the importer cannot move under its armature (animated, or with
            # children) stays an empty; its mesh goes to a new object named after the mesh.
            moved = _object_of(document, node, _mesh_name(document, spec["mesh"]), objects, taken, result)
            found = moved if moved is not None and _fits(document, node, moved, result) else found
        if found is None and node in bone_of.values():  # an armature node without a name
            skins = [s for s in document.json.get("skins", []) if bone_of.get(s["joints"][0]) == node]
            found = objects.get((skins[0].get("name") if skins else None) or "Armature")
        if found is None:
            result.missing.append(f"node {node} {name!r}: no object")
            continue
        taken.add(found.name)
        if "skin" not in spec:  # a skinned mesh's own transform plays no part (glTF 2.0 §3.7.3)
            result.objects[node] = found.name
        if "mesh" in spec:
            result.meshes[node] = found.name
    return result


def _object_of(document, node, name, objects, taken, node_map):
    """The object the importer made of ``node``, named ``name`` (see map_nodes), or None."""
    suffixed = re.compile(re.escape(name) + r"\.\d{3,}")
    candidates = [o for o in objects if o.name not in taken
                  and (o.name == name or suffixed.fullmatch(o.name))]
    if len(candidates) > 1:
        candidates = [o for o in candidates if _fits(document, node, o, node_map)] or candidates
    # Blender numbers clashing names in creation order, which follows the scene's (parents first)
    return min(candidates, key=lambda o: (len(o.name), o.name), default=None)


def _fits(document, node, obj, node_map):
    """Whether ``obj`` has what the importer gives ``node``'s object: a skinned mesh a vertex group
    per joint of its skin (its node's place plays no part), another object its parent's object or
    bone as parent."""
    spec = document.json["nodes"][node]
    if "skin" in spec:
        joints = {node_name(document, j) for j in document.json["skins"][spec["skin"]]["joints"]}
        return obj.type == 'MESH' and {g.name for g in obj.vertex_groups} == joints
    parent = int(document.scene.parents[node])
    if parent in node_map.bones:
        return (obj.parent is not None and obj.parent_type == 'BONE'
                and (obj.parent.name, obj.parent_bone) == node_map.bones[parent])
    if parent in node_map.objects:
        return obj.parent is not None and obj.parent.name == node_map.objects[parent]
    return True


def bind_rotations(document, bone_of):
    """{bone node: rotation (3, 3) in glTF axes, relative to its armature}: where the importer rests
    each edit bone (before its bone-direction heuristic), per vnode.pick_bind_pose."""
    parents = document.scene.parents
    rest = document.node_matrices(None, 0.0)
    inverse_binds = {ROOT: np.eye(4)}
    for skin in document.json.get("skins", []):
        if "inverseBindMatrices" not in skin:
            continue
        skeleton = skin.get("skeleton")
        if skeleton is not None:
            if skeleton in skin["joints"]:
                skeleton = int(parents[skeleton])
            inverse_binds.setdefault(skeleton, np.eye(4))
        for joint, matrix in zip(skin["joints"], document.accessor(skin["inverseBindMatrices"])):
            inverse_binds[joint] = matrix
    result = {}
    for node in (n for n in document.scene.order if n in bone_of):
        parent = int(parents[node])
        if node in inverse_binds and parent in inverse_binds:
            local = inverse_binds[parent] @ np.linalg.inv(inverse_binds[node])
        else:  # the node's own rest transform
            local = np.linalg.inv(rest[parent]) @ rest[node] if parent != ROOT else rest[node]
        columns = local[:3, :3] / np.linalg.norm(local[:3, :3], axis=0)  # Matrix.decompose
        above = result.get(parent, np.eye(3)) if parent in bone_of else np.eye(3)
        result[node] = above @ rotation_part(columns)
    return result


def vertices_used(document, node):
    """Per primitive of the node's mesh, the vertex indices the importer keeps (the ones its
    indices reference, in sorted order), or None to keep all."""
    mesh = document.json["meshes"][document.json["nodes"][node]["mesh"]]
    used = []
    for primitive in mesh["primitives"]:
        if "indices" in primitive:
            used.append(np.unique(document.accessor(primitive["indices"]).ravel()))
        else:
            used.append(None)
    return used


def nearest(points, candidates, chunk=1024):
    """Index into ``candidates`` (M, 3) of the closest one to each of ``points`` (N, 3), and the
    distance (brute force in chunks: meshes here have a few thousand vertices)."""
    index = np.empty(len(points), dtype=np.int64)
    distance = np.empty(len(points))
    squared = np.einsum("ij,ij->i", candidates, candidates)
    for start in range(0, len(points), chunk):
        block = points[start:start + chunk]
        d2 = squared[None, :] - 2.0 * block @ candidates.T + np.einsum("ij,ij->i", block, block)[:, None]
        index[start:start + chunk] = np.argmin(d2, axis=1)
    distance[:] = np.linalg.norm(points - candidates[index], axis=1)
    return index, distance


# --- clips ----------------------------------------------------------------------------------------

def track_names(document):
    """NLA track name of each animation: its name, else ``Anim_<i>``, made unique with .001, .002
    (io_scene_gltf2 BlenderGlTF.find_unused_name)."""
    names = []
    for index, animation in enumerate(document.json.get("animations", [])):
        stem, name, count = (animation.get("name") or f"Anim_{index}")[:63], None, 0
        while name is None or name in names:
            name = stem if count == 0 else f"{stem}.{count:03d}"
            count += 1
        names.append(name)
    return names


def animated_ids():
    """Every object and shape-key block with animation data."""
    ids = [o for o in bpy.data.objects if o.animation_data is not None]
    ids += [k for k in bpy.data.shape_keys if k.animation_data is not None]
    return ids


def activate_clip(document, animation_index):
    """Make a clip the active action of every ID that has its NLA track (io_scene_gltf2's
    restore_animation_on_object: the action of the track's first strip, and its slot on 4.4+); IDs
    without that track lose their action. Returns those IDs (by pointer): they hold whatever the
    previous clip left, so their nodes say nothing about this clip."""
    name = track_names(document)[animation_index]
    stale = set()
    for data in animated_ids():
        animation = data.animation_data
        assert animation is not None, "animated_ids() keeps IDs with animation data"
        track = next((t for t in animation.nla_tracks if t.name == name and t.strips), None)
        if track is None:
            animation.action = None
            stale.add(data.as_pointer())
            continue
        strip = track.strips[0]
        animation.action = strip.action
        if hasattr(strip, "action_slot"):
            # Blender 4.4+ (hence hasattr), newer than the 4.2 bpy stubs.
            animation.action_slot = strip.action_slot  # pyright: ignore[reportAttributeAccessIssue]
    return stale


def stale_nodes(document, node_map, stale):
    """Nodes whose Blender ID (object, armature, shape keys) the clip does not drive, and below."""
    parents = document.scene.parents
    out = set()
    for node in node_map.order:  # parents first: a stale parent makes its children stale
        owner = node_map.bones[node][0] if node in node_map.bones else node_map.objects.get(
            node, node_map.meshes.get(node))
        obj = bpy.data.objects.get(owner) if owner else None
        ids = [obj] if obj is not None else []
        if obj is not None and obj.type == 'MESH' and obj.data.shape_keys is not None:
            ids.append(obj.data.shape_keys)
        if parents[node] in out or any(i.as_pointer() in stale for i in ids):
            out.add(node)
    return out
