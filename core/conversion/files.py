"""The files a conversion writes: the .gltf or .glb, its rewritten buffers, and the source's
external files it still references, all planned in memory (their sizes known) before any is
written, then written atomically.

- A GLB keeps buffer 0 (without ``uri``) in its BIN chunk; other buffers keep their form.
- A buffer whose bytes the conversion changed is written anew: a ``data:`` URI again, or, for an
  external one, a new file ``<destination stem>_sqlerp.bin`` (numbered when taken): the source's
  own .bin is never overwritten, since the source (and other files) may still reference it.
- External files kept as they are (unchanged buffers, images) are copied beside the destination
  when it is in another folder, so that their relative URIs stay valid.
"""

import base64
import json
import os
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ..document import Document
from ..gltf import pointer
from ..gltf import CHUNK_BIN, CHUNK_JSON, GLB_MAGIC, read_relative_uri
from ..gltf import write_atomic


def glb_form(source: Path, destination: Path) -> bool:
    """Whether the source is a GLB (by its first bytes, as read_file does); the destination's
    name must say the same form (ValueError)."""
    with open(source, "rb") as stream:
        glb = stream.read(4) == GLB_MAGIC
    expected = ".glb" if glb else ".gltf"
    if destination.suffix.lower() != expected:
        raise ValueError(f"{destination.name}: a {'GLB' if glb else '.gltf'} source is written as "
                         f"{expected}; the destination must end in {expected}")
    return glb


# (path, bytes) of a file to write. A document's JSON (``gltf``) is a dict[str, Any]: any JSON
# value may be anywhere in it.
Write = tuple[Path, bytes]


def planned_writes(document: Document, gltf: dict[str, Any], buffers: Sequence[bytes | None],
                   changed: Sequence[bool], destination: Path, glb: bool, compact_json: bool = False,
                   owned: frozenset[Path] = frozenset()) -> list[Write]:
    """[(path, bytes)], the destination last, for ``gltf`` (changed in place: URIs of rewritten
    buffers) whose buffers hold ``buffers`` (bytes each; ``changed``: per buffer, whether they
    differ from the source's). ``compact_json``: a .gltf written without indentation. ``owned``:
    resolved paths of files an earlier output of this conversion wrote, which may be replaced."""
    new_files = []
    for i, (buffer, data, fresh) in enumerate(zip(gltf.get("buffers", []), buffers, changed)):
        uri = buffer.get("uri")
        if glb and i == 0 and uri is None:
            continue  # the BIN chunk
        if data is None:  # the validator refuses a buffer without data outside a GLB's BIN chunk
            raise ValueError(f"buffer {i} has no data to write")
        if uri is None or (fresh and uri.startswith("data:")):
            buffer["uri"] = "data:application/octet-stream;base64," + base64.b64encode(data).decode("ascii")
        elif fresh:
            buffer["uri"] = _new_bin_name(destination, gltf, data, owned)
            new_files.append((destination.parent / buffer["uri"], data))
    fresh_uris = {path.name for path, _ in new_files}
    writes = _copied_resources(document, gltf, destination, fresh_uris, owned) + new_files
    if glb:
        declared = gltf.get("buffers", [])
        chunk = buffers[0] if declared and "uri" not in declared[0] else None
        return writes + [(destination, glb_bytes(gltf, chunk))]
    text = json.dumps(gltf, separators=(",", ":")) if compact_json else json.dumps(gltf, indent=1)
    return writes + [(destination, (text + "\n").encode("utf-8"))]


def planned_size(writes: Sequence[Write], gltf: dict[str, Any], source_dir: Path) -> int:
    """Bytes of the destination (the last write) and of every external buffer its JSON references:
    written ones as planned, the others as they are in the source's folder."""
    destination, data = writes[-1]
    planned = {path.resolve(): len(content) for path, content in writes}
    total = len(data)
    for _, uri in external_uris(gltf, ("buffers",)):
        path = (destination.parent / unquote(uri)).resolve()
        total += planned[path] if path in planned else (source_dir / unquote(uri)).stat().st_size
    return total


def external_uris(gltf: dict[str, Any], kinds: Iterable[str] = ("buffers", "images")) -> list[tuple[str, str]]:
    """Find the URIs of a document's buffers and images that name files (not ``data:`` URIs).

    Parameters
    ----------
    gltf : dict
        A glTF JSON document.
    kinds : iterable of str
        The top-level arrays to look in: "buffers", "images" or both.

    Returns
    -------
    list of (str, str)
        (JSON pointer, URI) of each, in the document's order; the URIs as written (``%xx``
        escapes kept).

    Examples
    --------
    >>> gltf = {"buffers": [{"uri": "data:application/octet-stream;base64,AAAA"}, {"uri": "a%20b.bin"}],
    ...         "images": [{"uri": "skin.png"}, {"bufferView": 3}]}
    >>> external_uris(gltf)
    [('/buffers/1/uri', 'a%20b.bin'), ('/images/0/uri', 'skin.png')]
    >>> external_uris(gltf, ("buffers",))
    [('/buffers/1/uri', 'a%20b.bin')]
    """
    return [(pointer(kind, i, "uri"), item["uri"]) for kind in kinds
            for i, item in enumerate(gltf.get(kind, []))
            if isinstance(item, dict) and isinstance(item.get("uri"), str)
            and not item["uri"].startswith("data:")]


def _new_bin_name(destination, gltf, data, owned=frozenset()):
    """<stem>_sqlerp.bin, numbered when the file uses that URI or another file of that name
    exists (unless it holds the same bytes, or is ``owned``): never overwrite what an older file
    may reference."""
    used = {unquote(uri) for _, uri in external_uris(gltf)}
    for number in range(1, 10000):
        name = f"{destination.stem}_sqlerp{'' if number == 1 else f'_{number}'}.bin"
        path = destination.parent / name
        if name not in used and (not path.exists() or path.resolve() in owned
                                 or path.read_bytes() == data):
            return name
    raise FileExistsError(f"no free name for the new buffer beside {destination}")


def _copied_resources(document, gltf, destination, fresh_uris, owned=frozenset()):
    """[(path, bytes)] of the source's external files the converted JSON still references, at the
    same relative paths beside the destination, when it is in another folder. A different file
    already there is an error (FileExistsError): it may belong to another asset, unless an
    earlier output of this conversion wrote it (``owned``)."""
    folder = source_dir(document)
    if folder.resolve() == destination.parent.resolve():
        return []
    writes = []
    for where, uri in external_uris(gltf):
        if uri in fresh_uris:
            continue
        data = read_relative_uri(uri, folder, where)
        target = destination.parent / unquote(uri)
        if not target.exists() or (target.resolve() in owned and target.read_bytes() != data):
            writes.append((target, data))
        elif target.read_bytes() != data:
            raise FileExistsError(f"{target} exists with other content than the source's "
                                  f"{uri!r}; convert into another folder or beside the source")
    return writes


def source_dir(document: Document) -> Path:
    """The folder the source's external files are read from (a document loaded from a file)."""
    if document.file.base_dir is None:
        raise ValueError("the source was not read from a file: its external files cannot be found")
    return document.file.base_dir


def write_all(writes: Sequence[Write]) -> list[Path]:
    """Write every (path, bytes) atomically, in order; if one fails, remove the files this call
    created (files it replaced keep their new content, or their old one where it failed)."""
    created = []
    try:
        for path, data in writes:
            if not path.exists():
                created.append(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data)
    except BaseException:
        for path in created:
            if path.exists():
                path.unlink()
        raise
    return [path for path, _ in writes]


def glb_bytes(gltf: dict[str, Any], chunk: bytes | None) -> bytes:
    """A binary glTF: 12-byte header, JSON chunk (space padded), BIN chunk (zero padded) if any.
    Other chunks of the source (unknown types, which loaders ignore) are not kept."""
    json_bytes = json.dumps(gltf, separators=(",", ":")).encode("utf-8")
    json_bytes += b" " * (-len(json_bytes) % 4)
    body = struct.pack("<II", len(json_bytes), CHUNK_JSON) + json_bytes
    if chunk is not None:
        chunk = bytes(chunk) + b"\0" * (-len(chunk) % 4)
        body += struct.pack("<II", len(chunk), CHUNK_BIN) + chunk
    return struct.pack("<4sII", GLB_MAGIC, 2, 12 + len(body)) + body


def size_on_disk(path: str | os.PathLike[str], gltf: dict[str, Any]) -> int:
    """Bytes of the file and of the external buffers it references (missing ones count 0)."""
    files = [Path(path).parent / unquote(uri) for _, uri in external_uris(gltf, ("buffers",))]
    return os.path.getsize(path) + sum(f.stat().st_size for f in files if f.is_file())
