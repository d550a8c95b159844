"""A view of one running import of the bundled glTF importer: what operators.importing.session reads.

The importer's ``gltf`` object holds the parsed file (``gltf.data``), its vnodes (one per glTF node
and per bone, with the rest corrections its animation code applies), the actions it stashed, and
its accessor cache. This view answers in glTF indices, Blender IDs and numpy arrays, so that
nothing outside this package reads those.
"""

from __future__ import annotations  # bpy's types: for the type checker only (no bpy needed here)

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .bone_children import tip_offset
from .fed_samplers import DenseFeeds, FedAnimation
from .versions import applies
from ..core import EXTENSION_NAME

if TYPE_CHECKING:
    import bpy

_SUFFIX = re.compile(r"\.\d{3,}$")  # Blender's ".001" on a name that was taken


@dataclass(frozen=True)
class NodeRest:
    """How the bundled importer turns a node's glTF values into Blender ones (blender-notes.md):
    axis conversion, then ``rotation_after ⊗ q ⊗ rotation_before`` and ``rotation_after · t``, then
    for a bone its edit bone's rest. Quaternions are (w, x, y, z), matrices numpy."""
    bone_name: str | None            # the pose bone's name; None for an object
    axes_rotation: np.ndarray        # (4, 4) glTF quaternion to Blender quaternion
    axes_location: np.ndarray        # (3, 3) glTF location to Blender location
    rotation_before: np.ndarray      # (4,)
    rotation_after: np.ndarray       # (4,)
    after_matrix: np.ndarray         # (3, 3) rotation_after as a rotation matrix
    edit_rotation: np.ndarray | None     # (4,) a bone's edit rotation, else None
    edit_matrix: np.ndarray | None       # (3, 3) the same as a matrix
    edit_translation: np.ndarray | None  # (3,) a bone's edit head
    scale_matrix: np.ndarray         # (3, 3) glTF scale to Blender scale, corrections included
    tip_offset: np.ndarray           # (3,) added to an object's location under a bone (bone_children)


class ImportedScene:
    """The bundled importer's ``gltf`` seen from one hook call; ``of(gltf)`` keeps one per import.
    Its objects (``gltf``, vnodes, accessors) have no types: Any below."""

    def __init__(self, gltf: Any):
        self._gltf = gltf
        self._mesh_nodes: dict[int, Any] | None = None
        self._axes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._rests: dict[int, NodeRest] = {}  # id(vnode) -> NodeRest: a node's channels share it
        self._fed: FedAnimation | None = None  # the animation being built, its samplers fed

    @staticmethod
    def of(gltf: Any) -> ImportedScene:
        view = getattr(gltf, "_gltf_sqlerp_view", None)
        if view is None:
            view = gltf._gltf_sqlerp_view = ImportedScene(gltf)
        return view

    @property
    def filename(self) -> str:
        return self._gltf.filename

    def log_error(self, message: str, popup: bool = False) -> None:
        """An error in the importer's log; with ``popup``, also in its operator's report (an
        ERROR report: a script's call raises RuntimeError)."""
        self._gltf.log.error(message, popup=popup)

    def build_for_removal(self) -> None:
        """Tell the importer that what it builds will be removed (clips onto a rig): keep the
        scene's selection, build no collection per glTF scene (its last step would exclude them
        by name) and no unused material. Settings an importer version lacks are left alone."""
        settings = self._gltf.import_settings
        for name in ("import_select_created_objects", "import_scene_as_collection", "import_unused_materials"):
            if name in settings:
                settings[name] = False

    def forget_built_objects(self, active: bpy.types.Object | None) -> None:
        """After its objects were removed: the importer's last steps select every object node it
        built and make its first one active. Every node becomes its root kind, which they skip,
        pointing at ``active``, which it then makes active again."""
        for vnode in self._gltf.vnodes.values():
            vnode.type = type(vnode).DummyRoot
            vnode.blender_object = active

    def feed_animation(self, anim_idx: int, dense: DenseFeeds) -> None:
        """Before the importer builds animation ``anim_idx``: one key of data for every sampler
        only node channels play (our hook rewrites them) and ``dense`` samples for the pointer
        samplers we make exact (fed_samplers says how and why); ``animation_done`` undoes it."""
        self.animation_done()
        self._fed = FedAnimation(self._gltf, anim_idx, dense)
        self._fed.apply(by_hook=applies("decode_accessor_hook"))

    def placeholder_for(self, accessor: Any) -> np.ndarray | None:
        """The data fed for an accessor object the importer decodes (5.2+), or None."""
        return self._fed.answers.get(id(accessor)) if self._fed is not None else None

    def animation_done(self) -> None:
        if self._fed is not None:
            self._fed.restore()
            self._fed = None

    def channel_index(self, anim_idx: int, channel: Any) -> int | None:
        """The index of the importer's ``channel`` object in animation ``anim_idx``."""
        channels = self._gltf.data.animations[anim_idx].channels
        return next((c for c, item in enumerate(channels) if item is channel), None)

    def stashed(self) -> list[tuple[bpy.types.ID, bpy.types.Action, Any]]:
        """(ID, action, slot) the importer stashed for the animation it just made; slot (a
        bpy.types.ActionSlot, absent from the 4.2 stubs) is None before slotted actions (4.2)."""
        slotted = applies("slotted_actions")
        return [(entry[0], entry[1], entry[2] if slotted and len(entry) > 2 else None)
                for entry in self._gltf.needs_stash]

    def channel_node(self, node: int, path: str) -> Any | None:
        """The importer's handle of what a channel animates (its vnode; for weights, the mesh's),
        or None when it built nothing for the node."""
        if path != "weights":
            return self._gltf.vnodes.get(node)
        if self._mesh_nodes is None:
            self._mesh_nodes = {v.mesh_node_idx: v for v in self._gltf.vnodes.values()
                                if getattr(v, "mesh_node_idx", None) is not None}
        return self._mesh_nodes.get(node)

    def target_id(self, handle: Any, path: str) -> bpy.types.ID | None:
        """The ID whose action holds the channel's F-curves: shape keys, the armature, the object."""
        if path == "weights":
            return handle.blender_object.data.shape_keys
        if _is_bone(handle):
            return self._gltf.vnodes[handle.bone_arma].blender_object
        return handle.blender_object

    def node_handles(self) -> list[Any]:
        """The importer's handle of every node it made an object or a bone of (its vnodes, the
        root it adds left out)."""
        return [v for v in self._gltf.vnodes.values() if v.type != type(v).DummyRoot]

    def bone_nodes(self) -> list[tuple[int, Any]]:
        """(glTF node index, handle) of every node the importer made a bone of."""
        return [(index, v) for index, v in self._gltf.vnodes.items()
                if isinstance(index, int) and _is_bone(v)]

    def is_bone(self, handle: Any) -> bool:
        return _is_bone(handle)

    def is_armature(self, handle: Any) -> bool:
        return not _is_bone(handle) and bool(getattr(handle, "is_arma", False))

    def parent_handle(self, handle: Any) -> Any | None:
        """The handle of the node's parent; None under the importer's root."""
        parent = self._gltf.vnodes.get(handle.parent) if handle.parent is not None else None
        return None if parent is None or parent.type == type(parent).DummyRoot else parent

    def armature_of(self, handle: Any) -> Any:
        """A bone's armature handle."""
        return self._gltf.vnodes[handle.bone_arma]

    def blender_object(self, handle: Any) -> bpy.types.Object:
        """The object made of the node; a bone's armature object."""
        return self.armature_of(handle).blender_object if _is_bone(handle) else handle.blender_object

    def bone_name(self, handle: Any) -> str:
        return handle.blender_bone_name

    def object_names(self, handle: Any) -> list[str]:
        """Names the node's object may have in a scene imported from the same file: the node's
        own name, else the name it got here and that name without Blender's ".001" (a name the
        importer derived, from a mesh say, that was already taken)."""
        made = handle.blender_object.name
        names = [handle.name] if handle.name else []
        return names + [made, _SUFFIX.sub("", made)]

    def shape_key_names(self, node: int) -> list[str | None]:
        """Per morph target of the node's mesh, the shape key's name (None: none was made)."""
        data = self._gltf.data
        return list(data.meshes[data.nodes[node].mesh].shapekey_names)

    def node_rest(self, handle: Any) -> NodeRest:
        rest = self._rests.get(id(handle))
        if rest is None:
            rest = self._rests[id(handle)] = self._node_rest(handle)
        return rest

    def _node_rest(self, handle: Any) -> NodeRest:
        rotation, location, scale = self.axes()
        bone = _is_bone(handle)
        edit: Any = handle.editbone_rot if bone else None  # a mathutils.Quaternion for a bone
        columns = handle.base_scales_to_final_scales([_vector(c) for c in scale.T])
        return NodeRest(
            bone_name=handle.blender_bone_name if bone else None,
            axes_rotation=rotation, axes_location=location,
            rotation_before=np.array(tuple(handle.rotation_before)),
            rotation_after=np.array(tuple(handle.rotation_after)),
            after_matrix=_array(handle.rotation_after.to_matrix()),
            edit_rotation=np.array(tuple(edit)) if bone else None,
            edit_matrix=_array(edit.to_matrix()) if bone else None,
            edit_translation=np.array(tuple(handle.editbone_trans)) if bone else None,
            scale_matrix=np.array([tuple(c) for c in columns]).T,
            tip_offset=np.zeros(3) if bone else tip_offset(self._gltf, handle))

    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The importer's axis conversions (glTF to Blender) as matrices, probed once per import
        with its own functions, so that options such as +Y up and the unit scale are honoured."""
        if self._axes is None:
            gltf = self._gltf
            rotation, location, scale = (np.array([tuple(convert(list(e))) for e in np.eye(n)]).T
                                         for convert, n in ((gltf.quaternion_gltf_to_blender, 4),
                                                            (gltf.loc_gltf_to_blender, 3),
                                                            (gltf.scale_gltf_to_blender, 3)))
            self._axes = rotation, location, scale
        return self._axes


def managed_extensions() -> list[str]:
    """The extensions this Blender's bundled importer accepts in extensionsRequired (its own list,
    read from a parser made for no file: its constructor only sets attributes), this add-on's
    included (declared through its user extension while an exact import runs)."""
    import logging

    from io_scene_gltf2.io.imp.gltf2_io_gltf import glTFImporter  # the same module from 4.2 to 5.3
    parser = glTFImporter("", {"import_user_extensions": [], "loglevel": logging.CRITICAL})
    return [*parser.extensions_managed, EXTENSION_NAME]


def _is_bone(vnode) -> bool:
    # VNode.Bone, read from the vnode's own class: its module moved between Blender versions.
    return vnode.type == type(vnode).Bone


def _vector(values):
    from mathutils import Vector  # Blender's own: the importer's scale method takes Vectors
    return Vector(values)


def _array(matrix):
    """A mathutils Matrix as numpy, row by row: np.array(matrix) reads it element by element, and an
    import makes one per channel (measured: docs/manual/benchmarks.md, "Kernel choices")."""
    return np.array([tuple(row) for row in matrix])
