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
    """Return the KHR_animation_pointer string of a channel's target object.

    Parameters
    ----------
    target : any JSON value
        A channel's ``target``.

    Returns
    -------
    str or None
        The pointer; None when the target is not a pointer target, or a malformed one (the
        validator reports that).

    Examples
    --------
    >>> extension = {"KHR_animation_pointer": {"pointer": "/materials/0/alphaCutoff"}}
    >>> pointer_text({"path": "pointer", "extensions": extension})
    '/materials/0/alphaCutoff'
    >>> pointer_text({"node": 3, "path": "rotation"}) is None
    True
    """
    if not isinstance(target, dict) or target.get("path") != "pointer":
        return None
    extension = target.get("extensions")
    extension = extension.get(POINTER) if isinstance(extension, dict) else None
    text = extension.get("pointer") if isinstance(extension, dict) else None
    return text if isinstance(text, str) else None


def node_target(target: Any) -> tuple[int, str] | None:
    """Read the node and path a KHR_animation_pointer target animates, when it is a node's TRS.

    Parameters
    ----------
    target : any JSON value
        A channel's ``target``.

    Returns
    -------
    (int, str) or None
        (node, path) when the pointer is "/nodes/{index}/{path}", index a plain decimal integer
        (RFC 6901: no sign, no leading zero) and path translation, rotation, scale or weights;
        else None.

    Examples
    --------
    >>> def target(text): return {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": text}}}
    >>> node_target(target("/nodes/3/rotation"))  # plays as {"node": 3, "path": "rotation"}
    (3, 'rotation')
    >>> node_target(target("/nodes/03/rotation")), node_target(target("/meshes/0/weights"))
    (None, None)
    """
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
