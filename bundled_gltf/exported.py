"""A view of one running export of the bundled glTF exporter: its node tree and the settings we read.

Inside ``gather_gltf_hook`` the exporter's ``export_settings`` hold its tree of exported nodes
(``vtree``: Blender objects and bones with the glTF node each became, or None for what it leaves
out), the frame range and slide of every action it sampled, and its options. This view answers in
uuids, glTF node objects and Blender objects, so that nothing outside this package reads those.
"""

from __future__ import annotations  # bpy's types: for the type checker only (no bpy needed here)

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import bpy

_BONE = 3  # VExportNode.BONE (blender/exp/tree.py, 4.2 to 5.3)


@dataclass(frozen=True)
class ExportedNode:
    uuid: str
    node: Any                  # the exporter's glTF node object (no types); None: not written to the file
    blender_object: bpy.types.Object | None  # an armature for a bone
    bone_name: str | None      # the bone's name for a bone, else None
    is_bone: bool
    armature: str | None       # a bone's armature uuid
    parent: str | None         # the parent's uuid

    @property
    def owner(self) -> str | None:
        """The uuid the exporter keys frame ranges and slides by: a bone's armature, else itself."""
        return self.armature if self.bone_name else self.uuid


class ExportedScene:
    def __init__(self, export_settings: dict[str, Any]):
        """``export_settings``: the exporter's own (the tree in ``vtree``, its options)."""
        self._settings = export_settings
        self.nodes = {uuid: _node(uuid, vnode) for uuid, vnode in export_settings["vtree"].nodes.items()}
        self._by_gltf = {id(n.node): n for n in self.nodes.values() if n.node is not None}

    def by_gltf_node(self, node: Any) -> ExportedNode | None:
        """The tree node that became the exporter's glTF node object ``node``."""
        return self._by_gltf.get(id(node))

    def written(self) -> list[ExportedNode]:
        """The ExportedNodes the file holds, in the exporter's tree order."""
        return [n for n in self.nodes.values() if n.node is not None]

    def written_parent(self, uuid: str) -> str | None:
        """The nearest ancestor of ``uuid`` that the file holds, or None."""
        parent = self.nodes[uuid].parent
        for _ in range(len(self.nodes)):  # bounded: a malformed tree never loops forever
            found = self.nodes.get(parent)
            if found is None or found.node is not None:
                return parent if found is not None else None
            parent = found.parent
        return None

    def slide(self, owner: str | None, animation_name: str) -> float:
        """Frames the exporter moved the action's keys by (0 unless it aligned actions)."""
        return self._settings.get("slide", {}).get(owner, {}).get(animation_name, 0)

    def frame_range(self, owner: str | None, animation_name: str) -> dict[str, float] | None:
        """{"start", "end"} frames the exporter sampled for the owner's action, or None."""
        return self._settings.get("ranges", {}).get(owner, {}).get(animation_name)

    @property
    def y_up(self) -> bool:
        return self._settings.get("gltf_yup", True)

    @property
    def at_current_frame(self) -> bool:
        """The scene is written at the current frame, not at frame 0."""
        return self._settings.get("gltf_current_frame", False)

    @property
    def animation_pointers(self) -> bool:
        return animation_pointers(self._settings)

    @property
    def animation_mode(self) -> str:
        """What the exporter's animations are: "ACTIONS" (the default), "ACTIVE_ACTIONS",
        "NLA_TRACKS", "SCENE" or "BROADCAST"."""
        return str(self._settings.get("gltf_animation_mode", "ACTIONS"))

    @property
    def reset_pose_bones(self) -> bool:
        """The exporter rests every pose bone before it switches actions."""
        return bool(self._settings.get("gltf_export_reset_pose_bones", True))


def meshopt(export_settings: dict[str, Any]) -> bool:
    """Meshopt compression is on (versions: meshopt_export)."""
    return isinstance(export_settings, dict) and bool(export_settings.get("gltf_meshopt_compression"))


def animation_pointers(export_settings: dict[str, Any]) -> bool:
    """KHR_animation_pointer export is on: material properties may be animated."""
    return isinstance(export_settings, dict) and bool(export_settings.get("gltf_export_anim_pointer"))


def _node(uuid, vnode):
    bone = vnode.blender_type == _BONE
    blender_bone = getattr(vnode, "blender_bone", None) if bone else None
    return ExportedNode(uuid, vnode.node, vnode.blender_object,
                        blender_bone.name if blender_bone else None, bone,
                        getattr(vnode, "armature", None), getattr(vnode, "parent_uuid", None))
