"""glTF files packed by hand for the accessor tests (tests/core/test_accessors_*.py): one buffer of
bytes packed with ``struct``, buffer views over it, accessors of the glTF 2.0 component types
(spec §3.6.2.2), and the error read_accessor must raise."""

import pytest

from gltf_sqlerp.core.gltf.accessors import read_accessor
from gltf_sqlerp.core.gltf.errors import GltfError
from gltf_sqlerp.core.gltf.file import GltfFile

BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, UNSIGNED_INT, FLOAT = 5120, 5121, 5122, 5123, 5125, 5126


def gltf(accessors, data, views=None):
    """A GltfFile over one buffer; by default one buffer view spanning the whole buffer."""
    views = views if views is not None else [{"buffer": 0, "byteLength": len(data)}]
    document = {"asset": {"version": "2.0"}, "buffers": [{"byteLength": len(data)}],
                "bufferViews": views, "accessors": accessors}
    return GltfFile(json=document, buffers=[bytes(data)])


def accessor(component_type, kind, count, **extra):
    """An accessor of buffer view 0."""
    return {"bufferView": 0, "componentType": component_type, "type": kind, "count": count, **extra}


def raises(code, pointer, file, index=0):
    """Check that reading accessor ``index`` of ``file`` fails with this code at this JSON pointer."""
    with pytest.raises(GltfError) as info:
        read_accessor(file, index)
    assert (info.value.code, info.value.pointer) == (code, pointer), str(info.value)
