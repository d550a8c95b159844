"""Checks of what Blender's bundled importer builds besides the animations: every accessor's and
buffer view's layout, mesh primitives (attributes, indices, material, morph targets) and scenes.

The import hands the whole file to the bundled importer, which trusts the JSON: an accessor whose
``componentType`` is 9999 or ``type`` "VEC7" makes it raise KeyError half way, a ``count`` of -5
or a ``byteStride`` of 1 gives whatever numpy makes of them. So the file is refused before
anything is built, with Khronos glTF-Validator's codes and JSON pointers (its ISSUES.md):
VALUE_NOT_IN_LIST (an error here: the importer cannot read such an accessor), TYPE_MISMATCH,
VALUE_NOT_IN_RANGE,
VALUE_MULTIPLE_OF, ACCESSOR_NORMALIZED_INVALID, ACCESSOR_OFFSET_ALIGNMENT,
ACCESSOR_SMALL_BYTESTRIDE, UNRESOLVED_REFERENCE, MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT
and MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT. Node, mesh and skin references of nodes are
core.sampling.scene's. Missing, mistyped and negative properties (an index "3", a count of "28", a camera
without its projection) are validate_shape's, with the validator's codes; here a value of the
right JSON type is judged.
"""

import re
from typing import Any

from ..accessors import COMPONENT_TYPES, TYPE_SIZES
from ..errors import pointer
from .json_checks import Report, as_index, show
from .links import Format, accessor_facts

COMPONENT_SIZES = {component: dtype.itemsize for component, dtype in COMPONENT_TYPES.items()}
FLOAT, UBYTE, USHORT, UINT = 5126, 5121, 5123, 5125
_NORMALIZED = [(UBYTE, True), (USHORT, True)]
ATTRIBUTE_FORMATS = {  # semantic (without its _n) -> allowed formats (type, component, normalized)
    "POSITION": [Format("VEC3", FLOAT)], "NORMAL": [Format("VEC3", FLOAT)],
    "TANGENT": [Format("VEC4", FLOAT)],
    "TEXCOORD": [Format("VEC2", FLOAT)] + [Format("VEC2", c, n) for c, n in _NORMALIZED],
    "COLOR": [Format(k, FLOAT) for k in ("VEC3", "VEC4")]
             + [Format(k, c, n) for k in ("VEC3", "VEC4") for c, n in _NORMALIZED],
    "JOINTS": [Format("VEC4", UBYTE), Format("VEC4", USHORT)],
    "WEIGHTS": [Format("VEC4", FLOAT)] + [Format("VEC4", c, n) for c, n in _NORMALIZED],
}
INDEX_FORMATS = [Format("SCALAR", c) for c in (UBYTE, USHORT, UINT)]
# KHR_mesh_quantization allows integer positions, normals, tangents and texture coordinates in
# many forms (Blender's importer reads it): those semantics are not format-checked then.
QUANTIZED = ("POSITION", "NORMAL", "TANGENT", "TEXCOORD")
_SEMANTIC = re.compile(r"^(POSITION|NORMAL|TANGENT)$|^(TEXCOORD|COLOR|JOINTS|WEIGHTS)_\d+$")


def check_document(report: Report, document: dict[str, Any]) -> None:
    """Report every problem of the document's accessors, buffer views, meshes and scenes."""
    quantized = "KHR_mesh_quantization" in report.extensions_used
    accessors = _list(document, "accessors")
    views = _list(document, "bufferViews")
    for i, accessor in enumerate(accessors):
        if isinstance(accessor, dict):
            _accessor(report, document, i, accessor, views)
    for i, view in enumerate(views):
        if isinstance(view, dict):
            _buffer_view(report, document, i, view)
    for m, mesh in enumerate(_list(document, "meshes")):
        primitives = mesh.get("primitives") if isinstance(mesh, dict) else None
        for p, primitive in enumerate(primitives if isinstance(primitives, list) else []):
            if isinstance(primitive, dict):
                _primitive(report, document, pointer("meshes", m, "primitives", p), primitive, quantized)
    _scenes(report, document)
    _nodes(report, document)
    _cameras(report, document)
    _textures(report, document)
    for m, material in enumerate(_list(document, "materials")):
        if isinstance(material, dict):
            _material(report, document, pointer("materials", m), material)


def _member(value, table):
    """Whether a JSON value is a key of ``table`` (ints and strings only: lists are unhashable,
    and True would equal 1)."""
    return isinstance(value, (int, str)) and not isinstance(value, bool) and value in table


def _escaped(name):
    """A JSON object key as a JSON pointer token (RFC 6901)."""
    return str(name).replace("~", "~0").replace("/", "~1")


def _list(document, name):
    value = document.get(name)
    return value if isinstance(value, list) else []


def _reference(report, document, table, value, where):
    """The index ``value`` into ``document[table]`` when it resolves, else None (reported when it
    is an index; a missing, mistyped or negative one is validate_shape's finding)."""
    index = as_index(value)
    if index is None or index < 0:
        return None
    if index >= len(_list(document, table)):
        report.add("UNRESOLVED_REFERENCE", where, f"Unresolved reference: {show(value)}.")
        return None
    return index


def _accessor(report, document, i, accessor, views):
    where = pointer("accessors", i)
    # Their JSON types (and count) are validate_shape's; the values are judged here.
    component, kind = as_index(accessor.get("componentType")), accessor.get("type")
    if component is not None and not _member(component, COMPONENT_SIZES):
        report.add("VALUE_NOT_IN_LIST", f"{where}/componentType", f"Invalid value {show(component)}. "
                   f"Valid values are ({', '.join(map(str, COMPONENT_SIZES))}).")
    if not _member(component, COMPONENT_SIZES):
        component = None
    if isinstance(kind, str) and not _member(kind, TYPE_SIZES):
        report.add("VALUE_NOT_IN_LIST", f"{where}/type",
                   f"Invalid value {show(kind)}. Valid values are ({', '.join(TYPE_SIZES)}).")
    if not _member(kind, TYPE_SIZES):
        kind = None
    if accessor.get("normalized") is True and component in (FLOAT, UINT):
        report.add("ACCESSOR_NORMALIZED_INVALID", f"{where}/normalized",
                   "Only (u)byte and (u)short accessors can be normalized.")
    if "bufferView" not in accessor or component is None:
        return
    view = _reference(report, document, "bufferViews", accessor["bufferView"], f"{where}/bufferView")
    offset = as_index(accessor.get("byteOffset", 0))
    if offset is not None and offset % COMPONENT_SIZES[component]:
        report.add("ACCESSOR_OFFSET_ALIGNMENT", f"{where}/byteOffset", f"Offset {offset} is not a "
                   f"multiple of componentType length {COMPONENT_SIZES[component]}.")
    stride = as_index(views[view].get("byteStride")) if view is not None and isinstance(views[view], dict) else None
    if stride is not None and kind is not None and stride < COMPONENT_SIZES[component] * TYPE_SIZES[kind]:
        report.add("ACCESSOR_SMALL_BYTESTRIDE", where, f"Referenced bufferView's byteStride value {stride} "
                   f"is less than accessor element's length {COMPONENT_SIZES[component] * TYPE_SIZES[kind]}.")


def _buffer_view(report, document, i, view):
    where = pointer("bufferViews", i)
    _reference(report, document, "buffers", view.get("buffer"), f"{where}/buffer")
    if "byteStride" not in view:
        return
    stride = as_index(view["byteStride"])
    if not isinstance(view["byteStride"], int) or isinstance(view["byteStride"], bool):
        report.add("TYPE_MISMATCH", f"{where}/byteStride",
                   f"Type mismatch. Property value {show(view['byteStride'])} is not a 'integer'.")
    elif stride is None or not 4 <= stride <= 252:
        report.add("VALUE_NOT_IN_RANGE", f"{where}/byteStride", f"Value {show(view['byteStride'])} is out of range.")
    elif stride % 4:
        report.add("VALUE_MULTIPLE_OF", f"{where}/byteStride", f"Value {stride} is not a multiple of 4.")


def _primitive(report, document, where, primitive, quantized):
    attributes = primitive.get("attributes")
    for name, value in (attributes.items() if isinstance(attributes, dict) else ()):
        _attribute(report, document, f"{where}/attributes/{_escaped(name)}", name, value, quantized)
    if "indices" in primitive:
        index = _reference(report, document, "accessors", primitive["indices"], f"{where}/indices")
        _format(report, document, index, INDEX_FORMATS, f"{where}/indices",
                "MESH_PRIMITIVE_INDICES_ACCESSOR_INVALID_FORMAT", "Invalid indices accessor format")
    if "material" in primitive:
        _reference(report, document, "materials", primitive["material"], f"{where}/material")
    targets = primitive.get("targets")
    for t, target in enumerate(targets if isinstance(targets, list) else []):
        for name, value in (target.items() if isinstance(target, dict) else ()):
            _reference(report, document, "accessors", value, f"{where}/targets/{t}/{_escaped(name)}")


def _attribute(report, document, where, name, value, quantized):
    index = _reference(report, document, "accessors", value, where)
    match = _SEMANTIC.match(name)
    if match is not None:
        semantic = match.group(1) or match.group(2)
        if quantized and semantic in QUANTIZED:
            return
        _format(report, document, index, ATTRIBUTE_FORMATS[semantic], where,
                "MESH_PRIMITIVE_ATTRIBUTES_ACCESSOR_INVALID_FORMAT",
                "Invalid accessor format", " for this attribute semantic")


def _format(report, document, index, allowed, where, code, text, tail=""):
    """``code`` when accessor ``index`` (resolved, or None) is none of the ``allowed`` formats."""
    facts = accessor_facts(document, index) if index is not None else None
    if facts is None:
        return
    found = facts.format
    if found not in allowed:
        report.add(code, where, f"{text} '{found}'{tail}. Must be one of "
                   f"({', '.join(str(f) for f in allowed)}).")


def _nodes(report, document):
    """Cameras and KHR_lights_punctual lights of the nodes (meshes and skins: core.sampling.scene)."""
    lights = (document.get("extensions") or {}).get("KHR_lights_punctual") if isinstance(
        document.get("extensions"), dict) else None
    listed = lights.get("lights") if isinstance(lights, dict) else None
    light_count = len(listed) if isinstance(listed, list) else 0
    for n, node in enumerate(_list(document, "nodes")):
        if not isinstance(node, dict):
            continue
        if "camera" in node:
            _reference(report, document, "cameras", node["camera"], pointer("nodes", n, "camera"))
        light = (node.get("extensions") or {}).get("KHR_lights_punctual") if isinstance(
            node.get("extensions"), dict) else None
        if isinstance(light, dict) and "light" in light:
            index = as_index(light["light"])
            if index is None or not 0 <= index < light_count:
                report.add("UNRESOLVED_REFERENCE", pointer("nodes", n, "extensions", "KHR_lights_punctual", "light"),
                           f"Unresolved reference: {show(light['light'])}.")


def _cameras(report, document):
    for c, camera in enumerate(_list(document, "cameras")):
        if not isinstance(camera, dict):
            continue
        # A missing or mistyped type, and the projection object, are validate_shape's.
        kind = camera.get("type")
        if isinstance(kind, str) and kind not in ("perspective", "orthographic"):
            report.add("VALUE_NOT_IN_LIST", pointer("cameras", c, "type"),
                       f"Invalid value {show(kind)}. Valid values are (perspective, orthographic).")


def _textures(report, document):
    for t, texture in enumerate(_list(document, "textures")):
        if not isinstance(texture, dict):
            continue
        if "source" in texture:
            _reference(report, document, "images", texture["source"], pointer("textures", t, "source"))
        if "sampler" in texture:
            _reference(report, document, "samplers", texture["sampler"], pointer("textures", t, "sampler"))


TEXTURE_SLOTS = (("normalTexture",), ("occlusionTexture",), ("emissiveTexture",),
                 ("pbrMetallicRoughness", "baseColorTexture"),
                 ("pbrMetallicRoughness", "metallicRoughnessTexture"))


def _material(report, document, where, material):
    for slot in TEXTURE_SLOTS:
        info = material
        for key in slot:
            info = info.get(key) if isinstance(info, dict) else None
        if isinstance(info, dict) and "index" in info:
            _reference(report, document, "textures", info["index"], f"{where}/{'/'.join(slot)}/index")


def _scenes(report, document):
    if "scene" in document:
        _reference(report, document, "scenes", document["scene"], "/scene")
    for s, scene in enumerate(_list(document, "scenes")):
        nodes = scene.get("nodes") if isinstance(scene, dict) else None
        for k, node in enumerate(nodes if isinstance(nodes, list) else []):
            _reference(report, document, "nodes", node, pointer("scenes", s, "nodes", k))
