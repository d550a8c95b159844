"""The JSON schema of the EXT_animation_sqlerp channel extension object, applied to glTF files: a
test helper (not a test module).

The schema is docs/EXT_animation_sqlerp/schema/animation.channel.EXT_animation_sqlerp.schema.json,
self-contained (no reference to the core glTF schemas), checked once here as a draft 2020-12 schema
with jsonschema. ``findings(document)`` applies it to every
``animations[a].channels[c].extensions.EXT_animation_sqlerp`` object of a parsed glTF JSON document
and returns (JSON pointer, message) per schema error; ``problems(document)`` gives the same as one-line
strings ``"<pointer>: <message>"``; ``problems_of_file(path)`` reads a .gltf or .glb first.

Only the extension objects are this schema's business. Animations, channels or ``extensions``
members of the wrong JSON type are skipped without a word: the core's validation and
glTF-Validator report those, and a hostile file must not crash this helper on its way there.
"""

import json
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = "EXT_animation_sqlerp"
SCHEMA_PATH = ROOT / "docs" / EXTENSION / "schema" / f"animation.channel.{EXTENSION}.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
Draft202012Validator.check_schema(SCHEMA)  # a broken schema fails every importing test at once
VALIDATOR = Draft202012Validator(SCHEMA)

GLB_MAGIC = b"glTF"
JSON_CHUNK = 0x4E4F534A
# A message quotes the offending value; a hostile file's value can be megabytes long.
MESSAGE_LIMIT = 300


class Unreadable(ValueError):
    """The file holds no glTF JSON this helper can parse (a broken GLB container or JSON). The core's
    validation and glTF-Validator report what is wrong with it; the schema has nothing to say."""


def escape(token: str | int) -> str:
    """One reference token of a JSON pointer (RFC 6901: '~' as '~0', '/' as '~1')."""
    return str(token).replace("~", "~0").replace("/", "~1")


def extension_objects(document: Any) -> Iterable[tuple[str, Any]]:
    """(JSON pointer, value) of every channel's EXT_animation_sqlerp member, whatever its type;
    containers of the wrong type on the way there are skipped."""
    animations = document.get("animations") if isinstance(document, dict) else None
    if not isinstance(animations, list):
        return
    for a, animation in enumerate(animations):
        channels = animation.get("channels") if isinstance(animation, dict) else None
        if not isinstance(channels, list):
            continue
        for c, channel in enumerate(channels):
            extensions = channel.get("extensions") if isinstance(channel, dict) else None
            if isinstance(extensions, dict) and EXTENSION in extensions:
                yield f"/animations/{a}/channels/{c}/extensions/{EXTENSION}", extensions[EXTENSION]


def check(value: Any, where: str) -> list[tuple[str, str]]:
    """(JSON pointer, message) of each schema error of one extension object found at ``where``,
    sorted by pointer, then message."""
    found = []
    for error in VALIDATOR.iter_errors(value):
        pointer = where + "".join("/" + escape(token) for token in error.absolute_path)
        message = " ".join(error.message.split())  # one line, whatever the value holds
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT - 3] + "..."
        found.append((pointer, message))
    return sorted(found)


def findings(document: Any) -> list[tuple[str, str]]:
    """(JSON pointer, message) of every schema error of every extension object in ``document``,
    in document order."""
    return [item for where, value in extension_objects(document) for item in check(value, where)]


def problems(document: dict[str, Any]) -> list[str]:
    """Every schema error of the document's extension objects as ``"<JSON pointer>: <message>"``,
    e.g. ``/animations/0/channels/3/extensions/EXT_animation_sqlerp/sampler: '1' is not of type
    'integer'``; [] when every one is valid (or there is none)."""
    return [f"{pointer}: {message}" for pointer, message in findings(document)]


def read_json(path: str | Path) -> Any:
    """The glTF JSON of a .gltf file or of a .glb's JSON chunk (told apart by the GLB magic, as
    the core tells them apart). Raises Unreadable when there is no parsable JSON."""
    data = Path(path).read_bytes()
    if data[:4] == GLB_MAGIC:
        data = _json_chunk(data)
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # JSON, UTF-8 and int-size errors are ValueErrors
        raise Unreadable(f"{path}: not glTF JSON ({type(error).__name__})") from None


def _json_chunk(data: bytes) -> bytes:
    """The first chunk of a GLB, which must be its JSON chunk: 12-byte header (magic, version,
    length), then chunk length and type, then the chunk."""
    if len(data) < 20:
        raise Unreadable("a GLB shorter than its header and one chunk header")
    length, kind = struct.unpack_from("<II", data, 12)
    if kind != JSON_CHUNK or 20 + length > len(data):
        raise Unreadable("a GLB whose first chunk is not a complete JSON chunk")
    return data[20:20 + length]


def problems_of_file(path: str | Path) -> list[str]:
    """``problems`` of a .gltf or .glb file (see read_json; Unreadable propagates)."""
    return problems(read_json(path))
