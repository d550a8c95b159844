"""Letting Blender's bundled importer parse the draft form of EXT_animation_sqlerp.

The draft allows a channel without a core ``sampler`` when the extension is required. The bundled
importer's parser rejects such a channel before any import hook runs ("Couldn't parse glTF"), so
for the next parse only, we point it at its CUBICSLERP sampler, labelled CUBICSPLINE so that the
importer reads one value per key (placeholders: our hook writes the real keys). Blender 4.2 to 5.0
parse in ``io_scene_gltf2.io.imp.gltf2_io_gltf`` through its module-level ``gltf_from_dict``.
"""

import importlib
import sys
from typing import Any
from ..core import EXTENSION_NAME

PARSER_MODULE = "io_scene_gltf2.io.imp.gltf2_io_gltf"


def fill_draft_channels(document: dict[str, Any]) -> None:
    """Give every draft-form channel its extension sampler as core sampler (edits the JSON dict)."""
    for animation in document.get("animations") or []:
        samplers = animation.get("samplers") or []
        for channel in animation.get("channels") or []:
            extension = (channel.get("extensions") or {}).get(EXTENSION_NAME)
            index = extension.get("sampler") if isinstance(extension, dict) else None
            if "sampler" in channel or not isinstance(index, int) or not 0 <= index < len(samplers):
                continue
            channel["sampler"] = index
            samplers[index]["interpolation"] = "CUBICSPLINE"


def patch_next_parse() -> bool:
    """Wrap the parser for one call; False when this Blender's importer has no such parser.
    The bundled importer loads its parser module only when it parses, after the import hooks
    that call this are made: on a session's first glTF import it is loaded here, else that
    import would meet the unwrapped parser (issue 18: "Couldn't parse glTF", the first time only)."""
    module: Any = sys.modules.get(PARSER_MODULE)  # the bundled importer's parser module (no types)
    if module is None:
        try:
            module = importlib.import_module(PARSER_MODULE)
        except ImportError:  # another Blender's importer: nothing to wrap
            return False
    parse = getattr(module, "gltf_from_dict", None)
    if parse is None:
        return False
    original = getattr(parse, "__wrapped__", parse)

    def gltf_from_dict(document):
        module.gltf_from_dict = original
        if isinstance(document, dict):
            fill_draft_channels(document)
        return original(document)

    gltf_from_dict.__wrapped__ = original
    module.gltf_from_dict = gltf_from_dict
    return True


def unpatch() -> None:
    """Remove the wrapper if the parse it waited for never came (a file that could not be read)."""
    module: Any = sys.modules.get(PARSER_MODULE)
    parse = getattr(module, "gltf_from_dict", None)
    if parse is not None and hasattr(parse, "__wrapped__"):
        module.gltf_from_dict = parse.__wrapped__
