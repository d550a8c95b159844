"""KHR_animation_pointer targets that are a node's own TRS or morph weights.

A channel whose target is ``{"path": "pointer", "extensions": {"KHR_animation_pointer":
{"pointer": "/nodes/3/rotation"}}}`` animates exactly what ``{"node": 3, "path": "rotation"}``
does (KHR_animation_pointer: "/nodes/{}/rotation" and the other node properties have the core
channels' types and meaning). Blender's bundled importer plays both through its node animation
code, and so does this add-on: the core reads such a channel as a node channel, so that it is
validated, evaluated, imported exactly, previewed and reported like one. Other pointers (materials,
cameras, lights, "/meshes/{}/weights") are not node channels and are read by the importer alone.
"""

from typing import Any

POINTER = "KHR_animation_pointer"
NODE_PATHS = ("translation", "rotation", "scale", "weights")


def pointer_text(target: Any) -> str | None:
    """The pointer string of a channel target object, or None (not a pointer target, or malformed:
    the validator reports that)."""
    if not isinstance(target, dict) or target.get("path") != "pointer":
        return None
    extension = target.get("extensions")
    extension = extension.get(POINTER) if isinstance(extension, dict) else None
    text = extension.get("pointer") if isinstance(extension, dict) else None
    return text if isinstance(text, str) else None


def node_target(target: Any) -> tuple[int, str] | None:
    """(node, path) when the target object points at a node's translation, rotation, scale or
    weights ("/nodes/{index}/{path}", index a plain decimal integer), else None."""
    text = pointer_text(target)
    if text is None:
        return None
    parts = text.split("/")
    if len(parts) != 4 or parts[0] != "" or parts[1] != "nodes" or parts[3] not in NODE_PATHS:
        return None
    index = parts[2]
    if not index.isdecimal() or not index.isascii() or (len(index) > 1 and index[0] == "0"):
        return None
    return int(index), parts[3]
