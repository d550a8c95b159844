"""The bundled glTF exporter's own objects, read into numpy and built from numpy.

Inside ``gather_gltf_hook`` an animation sampler's ``input`` and ``output`` are the exporter's
``Accessor`` objects whose ``buffer_view`` is a ``BinaryData`` holding the little-endian bytes;
the exporter packs them into the file's buffer after the hook. The constructors' signatures are the
same from 4.2 to 5.3; only the module of ``BinaryData`` moved (versions: binary_data_moved).
"""

from typing import Any

import numpy as np
import numpy.typing as npt

# io_scene_gltf2 is Blender's bundled add-on (scripts/addons_core), importable inside Blender only;
# pyright reads the main venv's copy (dev.py links it into .venv/pyright-paths). It has few types.
from io_scene_gltf2.io.com import gltf2_io
from io_scene_gltf2.io.com.gltf2_io_extensions import Extension

from .versions import applies
from ..core import EXTENSION_NAME

if applies("binary_data_moved"):
    from io_scene_gltf2.io.exp.binary_data import BinaryData
else:  # Blender 4.2 only: pyright reads the main venv's newer add-on, which no longer has it
    from io_scene_gltf2.io.exp.gltf2_io_binary_data import BinaryData  # pyright: ignore[reportMissingImports]

FLOAT, SHORT = 5126, 5122
_WIDTH = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}


def read(accessor: Any) -> np.ndarray:
    """A float accessor of the exporter as a (count, width) float64 array (SCALAR: (count,))."""
    if accessor.component_type != FLOAT or accessor.sparse is not None:
        raise ValueError("not a dense float accessor")
    data = np.frombuffer(accessor.buffer_view.data, dtype="<f4", count=accessor.count * _WIDTH[accessor.type],
                         offset=accessor.byte_offset or 0)
    data = data.astype(np.float64)
    return data if accessor.type == "SCALAR" else data.reshape(accessor.count, -1)


def accessor(values: npt.ArrayLike, bounds: bool = False, short: bool = False) -> Any:
    """A float accessor for (count,) times or (count, 4) quaternions; ``bounds`` adds min/max
    (required on sampler inputs); ``short``: normalized 16-bit components (values in [-1, 1], half
    the bytes; glTF 2.0 3.11 encoding round(f x 32767))."""
    values = np.asarray(values)
    kind = "SCALAR" if values.ndim == 1 else {3: "VEC3", 4: "VEC4"}[values.shape[1]]
    if short:
        data = np.clip(np.round(values * 32767.0), -32767, 32767).astype("<i2")
    else:
        data = np.ascontiguousarray(values, dtype="<f4")
    low = high = None
    if bounds:
        flat = data.reshape(len(data), -1)
        low, high = flat.min(axis=0).tolist(), flat.max(axis=0).tolist()
    # BinaryData pads every view to 4 bytes: a VEC4 of shorts is 8 bytes, aligned as glTF asks.
    return gltf2_io.Accessor(buffer_view=BinaryData(data.tobytes()), byte_offset=None,
                             component_type=SHORT if short else FLOAT, count=len(data), extensions=None,
                             extras=None, max=high, min=low, name=None, normalized=True if short else None,
                             sparse=None, type=kind)


def sampler(input_accessor: Any, output_accessor: Any, interpolation: str) -> Any:
    return gltf2_io.AnimationSampler(extensions=None, extras=None, input=input_accessor,
                                     interpolation=interpolation, output=output_accessor)


def sqlerp_extension(sampler_index: int, required: bool) -> Any:
    """``channel.extensions["EXT_animation_sqlerp"]``; ``required`` puts the name in
    extensionsRequired as well (the form without a usable fallback)."""
    return Extension(EXTENSION_NAME, {"sampler": int(sampler_index)}, required=required)


def replace_times(accessor_: Any, times: np.ndarray) -> None:
    """Rewrite an input accessor's times in place (shared by every sampler that uses it)."""
    fresh = accessor(times, bounds=True)
    accessor_.buffer_view, accessor_.byte_offset = fresh.buffer_view, None
    accessor_.min, accessor_.max = fresh.min, fresh.max


def pointer_target(target: Any) -> tuple[str, str] | None:
    """(pointer, owner name) of a KHR_animation_pointer channel target as the exporter holds it
    in gather_gltf_hook, else None (a node channel). There, from 4.2 to 5.3, such a target's
    ``path`` is still the pointer with "XXX" for the index of its material, light or camera,
    which ``node`` holds; the exporter fills the index in, moves the pointer into
    ``extensions.KHR_animation_pointer`` and sets ``path`` to "pointer" only when it writes the
    JSON. The pointer comes back with "{}" for the index ("/materials/{}/emissiveFactor")."""
    path = getattr(target, "path", None)
    if not isinstance(path, str) or not path.startswith("/") or path.startswith("/nodes/"):
        return None
    owner = getattr(target, "node", None)
    data = getattr(owner, "extension", None)  # a light: a ChildOfRootExtension holding a dict
    name = data.get("name") if isinstance(data, dict) else getattr(owner, "name", None)
    return path.replace("XXX", "{}"), str(name or "?")
