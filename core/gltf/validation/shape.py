"""The JSON shape of every glTF object outside the animations, as the glTF 2.0 JSON schema defines
it (specification/2.0/schema/*.schema.json) and Khronos glTF-Validator reports it (lib/src/base/
*.dart ``fromMap``): types, array lengths, ranges, enumerations, required properties, oneOf and
dependencies, with the validator's codes and JSON pointers.

Blender's bundled importer trusts the JSON: a node ``translation`` of "abc" or a primitive
``attributes`` list makes it raise half way (its io layer asserts every type), a ``mode`` of 99 or
a ``rotation`` of 3 numbers builds nonsense. So each object kind has a table here (property ->
rule, see validate_rules) and the file is refused before anything is built. What the validator
reports only as a warning stays a warning (an ``alphaMode`` of "SOMETIMES" is imported as BLEND),
except a sparse accessor's index type, which the importer uses as numpy indices (floats raise).

Not here: accessor ``componentType``/``type`` values and ``byteStride`` (validate_document: also
errors, as the importer cannot read such data), references between objects (validate_document,
core.sampling.scene), animations (validate_structure), and the objects of extensions.
"""

import re
from typing import Any

import numpy as np

from ..accessors import COMPONENT_TYPES, SPARSE_INDEX_TYPES, TYPE_SIZES
from ..errors import ERROR, WARNING, pointer
from .json_checks import Report, as_index, show, show_list, type_mismatch, undefined
from .rules import (
    Kind, all_numbers, boolean, check_object, child, index, index_map, index_maps, indices, is_number, known,
    number, numbers, objects, root_array, string, strings, uint
)

NAME = {"name": string()}
MAG_FILTERS = (9728, 9729)
MIN_FILTERS = (9728, 9729, 9984, 9985, 9986, 9987)
WRAP_MODES = (33071, 33648, 10497)
ALPHA_MODES = ("OPAQUE", "MASK", "BLEND")
IMAGE_TYPES = ("image/jpeg", "image/png")  # + image/webp with EXT_texture_webp (the validator's)
VERSION = re.compile(r"^([0-9]+)\.([0-9]+)$")
FLOAT = 5126
INTS = frozenset((int,))
OFFSET = uint()
GL_NAMES = {5120: "BYTE", 5121: "UNSIGNED_BYTE", 5122: "SHORT", 5123: "UNSIGNED_SHORT",
            5125: "UNSIGNED_INT"}
GL_RANGES = {c: (int(np.iinfo(COMPONENT_TYPES[c]).min), int(np.iinfo(COMPONENT_TYPES[c]).max))
             for c in GL_NAMES}


def _valid_index(obj, name):
    """What the validator's getIndex leaves of ``obj[name]``: the index, or None (-1 there)."""
    value = as_index(obj.get(name))
    return value if value is not None and value >= 0 else None


def _dependency(report, where, name, needed):
    report.add("UNSATISFIED_DEPENDENCY", f"{where}/{name}",
               f"Dependency failed. '{needed}' must be defined.")


def _one_of(report, where, names):
    report.add("ONE_OF_MISMATCH", where,
               f"Exactly one of {', '.join(repr(n) for n in names)} properties must be defined.")


# ----- materials and textures ---------------------------------------------------------------------

TEXTURE_INFO = Kind({"index": index, "texCoord": uint()}, ("index",))
NORMAL_TEXTURE_INFO = Kind({**TEXTURE_INFO.rules, "scale": number()}, ("index",))
OCCLUSION_TEXTURE_INFO = Kind({**TEXTURE_INFO.rules, "strength": number(0, 1)}, ("index",))
PBR_METALLIC_ROUGHNESS = Kind({
    "baseColorFactor": numbers((4,), 0, 1), "baseColorTexture": child(TEXTURE_INFO),
    "metallicFactor": number(0, 1), "roughnessFactor": number(0, 1),
    "metallicRoughnessTexture": child(TEXTURE_INFO)})
MATERIAL = Kind({
    **NAME, "pbrMetallicRoughness": child(PBR_METALLIC_ROUGHNESS),
    "normalTexture": child(NORMAL_TEXTURE_INFO), "occlusionTexture": child(OCCLUSION_TEXTURE_INFO),
    "emissiveTexture": child(TEXTURE_INFO), "emissiveFactor": numbers((3,), 0, 1),
    "alphaMode": string(ALPHA_MODES), "alphaCutoff": number(low=0), "doubleSided": boolean})
TEXTURE = Kind({**NAME, "sampler": index, "source": index})
SAMPLER = Kind({**NAME, "magFilter": uint(values=MAG_FILTERS), "minFilter": uint(values=MIN_FILTERS),
                "wrapS": uint(values=WRAP_MODES), "wrapT": uint(values=WRAP_MODES)})


MIME_TYPES = {False: string(IMAGE_TYPES), True: string(IMAGE_TYPES + ("image/webp",))}


def _mime_type(report, value, where):
    # The validator accepts WebP images where EXT_texture_webp is used.
    MIME_TYPES["EXT_texture_webp" in report.extensions_used](report, value, where)


def _image_source(report, image, where):
    view, uri = _valid_index(image, "bufferView"), image.get("uri")
    if view is not None and not isinstance(image.get("mimeType"), str):
        _dependency(report, where, "bufferView", "mimeType")
    if (view is None) == (not isinstance(uri, str)):  # both, or neither
        _one_of(report, where, ("bufferView", "uri"))


IMAGE = Kind({**NAME, "bufferView": index, "mimeType": _mime_type, "uri": string()},
             whole=_image_source)


def _texture_image_types(report, document):
    """A texture's core source must be a PNG or JPEG (the validator's
    TEXTURE_INVALID_IMAGE_MIME_TYPE, from the declared type; the image data is not read here)."""
    textures, images = document.get("textures"), document.get("images")
    if not isinstance(textures, list) or not isinstance(images, list):
        return
    for t, texture in enumerate(textures):
        source = _valid_index(texture, "source") if isinstance(texture, dict) else None
        image = images[source] if source is not None and source < len(images) else None
        kind = image.get("mimeType") if isinstance(image, dict) else None
        if isinstance(kind, str) and kind not in IMAGE_TYPES:
            report.add("TEXTURE_INVALID_IMAGE_MIME_TYPE", pointer("textures", t, "source"),
                       f"Invalid MIME type '{kind}' for the texture source. Valid MIME types are "
                       f"{', '.join(repr(k) for k in IMAGE_TYPES)}.")


# ----- nodes, meshes, skins, scenes, cameras ------------------------------------------------------

def _node_dependencies(report, node, where):
    # The schema's "dependencies": skin and weights need a mesh to act on.
    if _valid_index(node, "mesh") is not None:
        return
    if _valid_index(node, "skin") is not None:
        _dependency(report, where, "skin", "mesh")
    weights = node.get("weights")
    if isinstance(weights, list) and weights and all(is_number(w) for w in weights):
        _dependency(report, where, "weights", "mesh")


NODE = Kind({
    **NAME, "camera": index, "children": indices, "skin": index, "matrix": numbers((16,)),
    "mesh": index, "rotation": numbers((4,), -1, 1), "scale": numbers((3,)),
    "translation": numbers((3,)), "weights": numbers()}, whole=_node_dependencies)
PRIMITIVE = Kind({"attributes": index_map, "indices": index, "material": index, "mode": uint(0, 6),
                  "targets": index_maps}, ("attributes",))
MESH = Kind({**NAME, "primitives": objects(PRIMITIVE), "weights": numbers()}, ("primitives",))
SKIN = Kind({**NAME, "inverseBindMatrices": index, "skeleton": index, "joints": indices}, ("joints",))
SCENE = Kind({**NAME, "nodes": indices})
PERSPECTIVE = Kind({"aspectRatio": number(above=0), "yfov": number(above=0),
                    "zfar": number(above=0), "znear": number(above=0)}, ("yfov", "znear"))
ORTHOGRAPHIC = Kind({"xmag": number(), "ymag": number(), "zfar": number(above=0),
                     "znear": number(low=0)}, ("xmag", "ymag", "zfar", "znear"))
PROJECTIONS = {"perspective": child(PERSPECTIVE), "orthographic": child(ORTHOGRAPHIC)}


def _projection(report, camera, where):
    # Only the projection that ``type`` names is read, and required; an unknown type is
    # validate_document's VALUE_NOT_IN_LIST.
    if all(name in camera for name in PROJECTIONS):
        _one_of(report, where, tuple(PROJECTIONS))
    kind = camera.get("type")
    if isinstance(kind, str) and kind in PROJECTIONS:
        if camera.get(kind) is None:
            undefined(report, where, kind)
        else:
            PROJECTIONS[kind](report, camera[kind], f"{where}/{kind}")


CAMERA = Kind({**NAME, "type": string(), "perspective": known, "orthographic": known}, ("type",),
              whole=_projection)


# ----- accessors, buffer views, buffers -----------------------------------------------------------

def _gl_ints(report, value, where, component, length):
    """getGlIntList: ``min``/``max`` of an integer accessor, each within its component type."""
    if not isinstance(value, list):
        type_mismatch(report, where, value, "array")
        return
    if len(value) != length:
        report.add("ARRAY_LENGTH_NOT_IN_LIST", where,
                   f"Invalid array length {len(value)}. Valid lengths are: {show_list([length])}.")
        return
    low, high = GL_RANGES[component]
    for item in value:
        number_ = as_index(item)
        if number_ is None:
            report.add("ARRAY_TYPE_MISMATCH", where,
                       f"Type mismatch. Array element {show(item)} is not a 'integer'.")
        elif not low <= number_ <= high:
            report.add("INVALID_GL_VALUE", where,
                       f"Invalid value {number_} for GL type '{GL_NAMES[component]}'.")


FLOAT_BOUNDS = {size: numbers((size,)) for size in set(TYPE_SIZES.values())}


def _bounds_fit(values, component):
    """Whether ``values`` (an accessor's min + max) all fit its component type, tested in C: an
    accessor of a valid file ends here (a file has hundreds, each with its bounds)."""
    if component == FLOAT:
        return all_numbers(values)
    low, high = GL_RANGES[component]
    return INTS.issuperset(map(type, values)) and low <= min(values) and max(values) <= high


def _accessor_bounds(report, accessor, where, component, size):
    low, high = accessor.get("min"), accessor.get("max")
    if (type(low) is list and type(high) is list and len(low) == len(high) == size
            and _bounds_fit(low + high, component)):
        return
    for name in ("min", "max"):
        if name in accessor:
            if component == FLOAT:
                FLOAT_BOUNDS[size](report, accessor[name], f"{where}/{name}")
            else:
                _gl_ints(report, accessor[name], f"{where}/{name}", component, size)


def _accessor_layout(report, accessor, where):
    # byteOffset means something only with a bufferView; min and max are read only when the
    # accessor's type and componentType say how long they are and what they hold.
    offset, view = accessor.get("byteOffset"), accessor.get("bufferView")
    if type(offset) is int and offset >= 0 and type(view) is int and view >= 0:
        pass  # the common case, without a call
    elif "byteOffset" in accessor:
        if _valid_index(accessor, "bufferView") is None:
            _dependency(report, where, "byteOffset", "bufferView")
        else:
            OFFSET(report, accessor["byteOffset"], f"{where}/byteOffset")
    component, kind = as_index(accessor.get("componentType")), accessor.get("type")
    size = TYPE_SIZES.get(kind) if isinstance(kind, str) else None
    if size is not None and component in COMPONENT_TYPES and ("min" in accessor or "max" in accessor):
        _accessor_bounds(report, accessor, where, component, size)


SPARSE_INDICES = Kind({"bufferView": index, "byteOffset": uint(),
                       "componentType": uint(values=SPARSE_INDEX_TYPES, severity=ERROR)},
                      ("bufferView", "componentType"))
SPARSE_VALUES = Kind({"bufferView": index, "byteOffset": uint()}, ("bufferView",))
SPARSE = Kind({"count": uint(low=1), "indices": child(SPARSE_INDICES), "values": child(SPARSE_VALUES)},
              ("count", "indices", "values"))
# componentType and type: their values are validate_document's; only their JSON type is here.
ACCESSOR = Kind({
    **NAME, "bufferView": index, "byteOffset": known, "componentType": uint(), "count": uint(low=1),
    "type": string(), "normalized": boolean, "min": known, "max": known, "sparse": child(SPARSE)},
    ("componentType", "count", "type"), whole=_accessor_layout)
BUFFER_VIEW = Kind({**NAME, "buffer": index, "byteOffset": uint(), "byteLength": uint(low=1),
                    "byteStride": known, "target": uint(values=(34962, 34963))},
                   ("buffer", "byteLength"))
BUFFER = Kind({**NAME, "byteLength": uint(low=1), "uri": string()}, ("byteLength",))


# ----- the root -----------------------------------------------------------------------------------

def _asset_version(report, asset, where):
    match = VERSION.match(asset["version"]) if isinstance(asset.get("version"), str) else None
    if match is None:
        return
    major, minor = int(match.group(1)), int(match.group(2))
    if major != 2:
        report.add("UNKNOWN_ASSET_MAJOR_VERSION", f"{where}/version",
                   f"Unknown glTF major asset version: {major}.")
    elif minor > 0:
        report.add("UNKNOWN_ASSET_MINOR_VERSION", f"{where}/version",
                   f"Unknown glTF minor asset version: {minor}.", WARNING)


ASSET = Kind({"copyright": string(), "generator": string(), "version": string(pattern=VERSION),
              "minVersion": string(pattern=VERSION)}, ("version",), whole=_asset_version)
ROOT = Kind({
    "asset": known, "animations": known, "scene": index, "extensionsUsed": strings,
    "extensionsRequired": strings, "accessors": root_array(ACCESSOR),
    "buffers": root_array(BUFFER), "bufferViews": root_array(BUFFER_VIEW),
    "cameras": root_array(CAMERA), "images": root_array(IMAGE), "materials": root_array(MATERIAL),
    "meshes": root_array(MESH), "nodes": root_array(NODE), "samplers": root_array(SAMPLER),
    "scenes": root_array(SCENE), "skins": root_array(SKIN), "textures": root_array(TEXTURE)})


def _asset_usable(report, document):
    """Check ``asset``; whether the validator goes on with the file (a version 2.x)."""
    asset = document.get("asset")
    if not isinstance(asset, dict):
        if "asset" in document:
            type_mismatch(report, "/asset", asset, "object")
        if asset is None:
            undefined(report, "/", "asset")
        return False
    check_object(report, asset, "/asset", ASSET)
    version = asset.get("version")
    match = VERSION.match(version) if isinstance(version, str) else None
    return match is not None and int(match.group(1)) == 2


def check_shape(report: Report, document: dict[str, Any]) -> bool:
    """Report the JSON shape of ``document``'s objects outside ``animations``. False when its
    ``asset`` makes the validator stop there (no version 2.x): then nothing else is worth
    reporting, and nothing else of the file was checked."""
    if not _asset_usable(report, document):
        return False
    check_object(report, document, "", ROOT)
    if "extensionsRequired" in document and "extensionsUsed" not in document:
        _dependency(report, "", "extensionsRequired", "extensionsUsed")
    _texture_image_types(report, document)
    return True
