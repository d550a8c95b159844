"""Clips onto a rig already in the scene (``onto='ACTIVE'``): which of the scene's objects and bones
each node of the file stands for, whether the file's animated hierarchy fits the rig, and how a pose
of the bone the importer built becomes the same pose of the rig's bone.

The bundled importer still builds the file's objects (rig_placement removes them afterwards): its
view (bundled_gltf.imported) gives every node's name, parent and rest, and our import hook fits the
keys for them as for any import. ``bind`` runs once the importer has made the nodes; each channel
is then written through ``target`` onto the rig instead: each joint's position and direction as
the file plays them, in the rig's armature space, its roll the rig's own (pose_mapping.rest_change).
"""

from __future__ import annotations  # the importer's view: for the type checker only

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import bpy
import numpy as np

from . import armature_frames
from .armature_frames import MisfitError
from .pose_mapping import rest_change, roll_difference

if TYPE_CHECKING:  # the bundled importer's view imports the operators
    from ...bundled_gltf import imported

_RIGID = 1e-5  # how far from a rotation an object's parent change may be (scale, shear)
_SAME_REST = 1e-5  # rest matrices closer than this are the same rest (float32 bones: about 1e-7)


@dataclass(frozen=True)
class RigTarget:
    """Where one imported node plays on the rig: an object, or a bone of an armature object."""
    obj: bpy.types.Object
    bone: str | None
    change: np.ndarray = field(default_factory=lambda: np.eye(4))  # rig basis = change @ basis @ roll
    roll: np.ndarray = field(default_factory=lambda: np.eye(4))    # (pose_mapping.rest_change)
    ratio: float = 1.0  # animated translations times this: the rig's skeleton over the file's

    def keeps_rotations(self) -> bool:
        """Whether a rotation maps to itself (the same rest, up to the bones' float32 matrices)."""
        return bool(np.allclose(self.change[:3, :3], np.eye(3), atol=_SAME_REST)
                    and np.allclose(self.roll[:3, :3], np.eye(3), atol=_SAME_REST))


@dataclass
class RigMatch:
    """The rig (``root``: the active object, its children and the scene's objects by name) and,
    once bound, the rig target of every imported node that has one."""
    root: bpy.types.Object
    objects: Mapping[str, bpy.types.Object]      # the scene's objects by name, before the import
    prefixes: list[tuple[str, str]] = field(default_factory=list)  # (file prefix, rig prefix)
    targets: dict[int, RigTarget] = field(default_factory=dict)    # id(handle) -> target
    unmatched_animated: list[str] = field(default_factory=list)    # readable: animated, not on the rig

    @staticmethod
    def of(root: bpy.types.Object, scene: bpy.types.Scene, prefix_map: str) -> RigMatch:
        """The rig of ``root`` in ``scene``. Raises ValueError for a prefix map it cannot read."""
        return RigMatch(root, {o.name: o for o in scene.objects}, parse_prefixes(prefix_map))

    def fresh(self) -> RigMatch:
        """The same rig, nothing bound: one per imported file."""
        return RigMatch(self.root, self.objects, self.prefixes)

    def rig_name(self, name: str) -> list[str]:
        """Names ``name`` may have on the rig: itself, then with each file prefix replaced."""
        names = [name]
        for source, target in self.prefixes:
            if source and name.startswith(source):
                names.append(target + name[len(source):])
            elif not source:
                names.append(target + name)
        return names

    def bind(self, scene: imported.ImportedScene, animated: Iterable[Any], turned: Iterable[Any] = ()) -> None:
        """Match every node the importer made; check the hierarchy of ``animated`` (the handles
        of animated nodes) and their ancestors. ``turned``: the handles whose rotation is
        animated (an armature object turned by the clip keeps the file's armature space).
        Raises MisfitError."""
        armatures = self._armatures(scene)
        for handle in scene.node_handles():
            if scene.is_bone(handle):
                self._match_bone(scene, handle, armatures)
            else:
                self._match_object(scene, handle, armatures)
        for handle in _with_ancestors(scene, animated):
            target = self.targets.get(id(handle))
            if target is not None:
                self._check_parent(scene, handle, target)
        self.unmatched_animated = sorted({_label(scene, h) for h in animated if id(h) not in self.targets})
        self._set_changes(scene, {id(h) for h in turned})

    def target(self, handle: Any) -> RigTarget | None:
        return self.targets.get(id(handle))

    # --- matching ---------------------------------------------------------------------------------

    def _armatures(self, scene):
        """{id(armature handle): rig armature object}: by name, else the active armature for a
        file with one armature."""
        handles = [h for h in scene.node_handles() if scene.is_armature(h)]
        found = {}
        for handle in handles:
            obj = self._object_named(scene.object_names(handle))
            if obj is None and len(handles) == 1 and self.root.type == 'ARMATURE':
                obj = self.root
            if obj is not None and obj.type == 'ARMATURE':
                found[id(handle)] = obj
        return found

    def _object_named(self, names):
        for name in names:
            for candidate in self.rig_name(name):
                obj = self.objects.get(candidate)
                if obj is not None:
                    return obj
        return None

    def _match_bone(self, scene, handle, armatures):
        armature = armatures.get(id(scene.armature_of(handle)))
        name = scene.bone_name(handle)
        bones = armature.data.bones if armature is not None else {}
        found = next((n for n in self.rig_name(name) if n in bones), None)
        if armature is None or found is None:
            return
        self.targets[id(handle)] = RigTarget(armature, found)

    def _match_object(self, scene, handle, armatures):
        obj = armatures.get(id(handle)) or self._object_named(scene.object_names(handle))
        if obj is None:
            return
        self.targets[id(handle)] = RigTarget(obj, None)

    # --- hierarchy --------------------------------------------------------------------------------

    def _check_parent(self, scene, handle, target):
        """A matched node's parent must be the rig's parent of its match: a bone's parent bone (none
        for a root bone), an object's parent object and bone. Only an object may sit under file
        nodes the rig has not (the empties some exporters add above a model): it plays where the
        rig puts it."""
        parent = scene.parent_handle(handle)
        mapped = self.targets.get(id(parent)) if parent is not None else None
        if target.bone is not None:
            expected, actual = _bone_parents(scene, parent, mapped, target)
        elif parent is not None and mapped is None:
            return
        else:
            rig = target.obj
            expected = _said(_place(mapped.obj.name, mapped.bone) if mapped is not None else None)
            actual = _said(_place(rig.parent.name, rig.parent_bone if rig.parent_type == 'BONE' else None)
                           if rig.parent is not None else None)
        if expected != actual:
            raise MisfitError(f"{_label(scene, handle)} is under {expected} in the file but under "
                              f"{actual} on the rig '{self.root.name}'")

    # --- rest -------------------------------------------------------------------------------------

    def _set_changes(self, scene, turned):
        """Each target's change of basis: from both armatures' rests, objects and sizes for bones
        (pose_mapping, armature_frames), from both objects' parent inverses for objects. Parents
        first: a bone's change needs its parent's roll."""
        rolls: dict[int, np.ndarray] = {}
        frames = self._armature_frames(scene, turned)
        for handle in _parents_first(scene, scene.node_handles()):
            target = self.targets.get(id(handle))
            if target is None:
                continue
            if target.bone is None:
                changed = RigTarget(target.obj, None, _object_change(scene.blender_object(handle), target.obj))
            else:
                bone, rig_bone = _bones(scene, handle, target)
                frame, ratio = frames[id(scene.armature_of(handle))]
                # Both rests in the rig's armature space: the twist between them is the rig's roll
                roll = rolls[id(handle)] = roll_difference(frame @ _matrix(bone.matrix_local),
                                                           _matrix(rig_bone.matrix_local))
                parent = scene.parent_handle(handle)
                parent_roll = rolls.get(id(parent), np.eye(4)) if bone.parent is not None else np.eye(4)
                change = rest_change(_matrix(bone.matrix_local), _parent_rest(bone), _matrix(rig_bone.matrix_local),
                                     _parent_rest(rig_bone), parent_roll, frame, ratio)
                changed = RigTarget(target.obj, target.bone, change, roll, ratio)
            self.targets[id(handle)] = changed

    def _armature_frames(self, scene, turned):
        """{id(the file's armature handle): (G, k)} (armature_frames) for every armature with a
        matched bone. An armature object the clip turns plays the file's rotation itself: its
        bones stay in its armature space (G the identity)."""
        offsets: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        rigs = {}
        for handle in scene.node_handles():
            target = self.targets.get(id(handle))
            if target is None or target.bone is None:
                continue
            armature = scene.armature_of(handle)
            rigs[id(armature)] = (armature, target.obj)
            bone, rig_bone = _bones(scene, handle, target)
            parent = self.targets.get(id(scene.parent_handle(handle)))
            if (bone.parent is not None and rig_bone.parent is not None and parent is not None
                    and parent.bone == rig_bone.parent.name):
                offsets.setdefault(id(armature), []).append(
                    (np.subtract(bone.head_local, bone.parent.head_local),
                     np.subtract(rig_bone.head_local, rig_bone.parent.head_local)))
        frames = {}
        for key, (armature, rig) in rigs.items():
            frame = np.eye(4) if key in turned else armature_frames.turn(
                scene.blender_object(armature), rig, scene.object_names(armature)[0])
            frames[key] = (frame, armature_frames.size_ratio(offsets.get(key, [])))
        return frames


def parse_prefixes(text: str) -> list[tuple[str, str]]:
    """'mixamorig:=, Armature_=rig_' -> [('mixamorig:', ''), ('Armature_', 'rig_')]. Raises
    ValueError naming an entry without '='."""
    pairs = []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        if "=" not in entry:
            raise ValueError(f"prefix map entry '{entry}' has no '=' (write file_prefix=rig_prefix)")
        source, target = entry.split("=", 1)
        pairs.append((source.strip(), target.strip()))
    return pairs


def _bone_parents(scene, parent, mapped, target):
    """(the file's, the rig's) parent bone of a matched bone, as the refusal names them."""
    rig_parent = target.obj.data.bones[target.bone].parent
    actual = _said(rig_parent.name if rig_parent is not None else None)
    if parent is None or not scene.is_bone(parent):
        return "nothing", actual  # a root bone in the file
    if mapped is None:
        return f"'{scene.bone_name(parent)}', which the rig has not,", actual
    return _said(mapped.bone), actual


def _label(scene, handle):
    if scene.is_bone(handle):
        return f"bone '{scene.bone_name(handle)}'"
    return f"object '{scene.object_names(handle)[0]}'"


def _said(name):
    return f"'{name}'" if name is not None else "nothing"


def _place(obj_name, bone):
    return f"{obj_name}/{bone}" if bone else obj_name


def _with_ancestors(scene, handles):
    seen: dict[int, Any] = {}
    for handle in handles:
        while handle is not None and id(handle) not in seen:
            seen[id(handle)] = handle
            handle = scene.parent_handle(handle)
    return list(seen.values())


def _parents_first(scene, handles):
    depth = {}

    def level(handle):
        if id(handle) not in depth:
            parent = scene.parent_handle(handle)
            depth[id(handle)] = 0 if parent is None else level(parent) + 1
        return depth[id(handle)]
    return sorted(handles, key=level)


def _bones(scene, handle, target):
    """The imported bone and the rig's (bpy.types.Bone)."""
    return (scene.blender_object(handle).data.bones[scene.bone_name(handle)],
            target.obj.data.bones[target.bone])


def _parent_rest(bone):
    return _matrix(bone.parent.matrix_local) if bone.parent is not None else None


def _object_change(imported_object, rig_object):
    """rig basis = change @ imported basis for the same world under parents posed alike: both
    parent frames are the parent inverse (and a parent bone's tail)."""
    change = np.linalg.inv(_parent_frame(rig_object)) @ _parent_frame(imported_object)
    rotation = change[:3, :3]
    if not np.allclose(rotation @ rotation.T, np.eye(3), atol=_RIGID):
        raise MisfitError(f"object '{rig_object.name}' has a parent inverse that scales differently "
                          "from the file's: its clips cannot play the same")
    return change


def _parent_frame(obj):
    frame = _matrix(obj.matrix_parent_inverse)
    if obj.parent is not None and obj.parent_type == 'BONE' and obj.parent_bone in obj.parent.data.bones:
        tail = np.eye(4)
        tail[1, 3] = obj.parent.data.bones[obj.parent_bone].length
        frame = tail @ frame
    return frame


def _matrix(matrix):
    return np.array([tuple(row) for row in matrix], dtype=np.float64)
