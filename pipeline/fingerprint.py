"""Whether a conversion's output is up to date: a fingerprint of everything that decides it.

The fingerprint hashes the input file's bytes, the bytes of every file its JSON references
(buffers and images, by URI; a missing one counts as missing), this tool's version and the options
that change the output. A written output carries it in ``asset.extras.gltf_sqlerp_convert``; the
folder journal carries it for files where nothing was written. Contents are hashed, not times:
touching a file redoes nothing, changing one byte of it redoes its conversion.
"""

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from .. import __version__
from ..core.conversion import external_uris
from ..core.gltf import GltfError
from ..core.gltf import parse_json_only, read_relative_uri

EXTRAS_KEY = "gltf_sqlerp_convert"


def fingerprint(source: Path, options: Mapping[str, Any]) -> str:
    """sha256 (hex) of the input, the files it references, the tool's version and ``options`` (JSON)."""
    source = Path(source)
    data = source.read_bytes()
    digest = hashlib.sha256(json.dumps({"tool": f"gltf_sqlerp {__version__}", "options": options},
                                       sort_keys=True).encode())
    digest.update(hashlib.sha256(data).digest())
    for uri in _referenced(data):
        digest.update(uri.encode() + b"\0")
        try:  # the reader's own rule: nothing outside the file's folder is read
            digest.update(hashlib.sha256(read_relative_uri(uri, source.parent, "")).digest())
        except GltfError as error:
            digest.update(error.code.encode())
    return digest.hexdigest()


def provenance(print_: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """core.conversion.converter's ``provenance``: what a written output records in ``asset.extras``."""
    return {"key": EXTRAS_KEY, "value": {"fingerprint": print_, "tool": f"gltf_sqlerp {__version__}",
                                        "options": options}}


def output_fingerprint(output: Path) -> str | None:
    """The fingerprint a complete output carries, or None (missing, unreadable, foreign, or a file
    it references is gone)."""
    output = Path(output)
    try:
        document = parse_json_only(output.read_bytes())
        if any(not (output.parent / unquote(uri)).is_file() for _, uri in external_uris(document)):
            return None
    except (OSError, GltfError, TypeError, AttributeError):
        return None
    asset = document.get("asset")
    extras = asset.get("extras") if isinstance(asset, dict) else None
    record = extras.get(EXTRAS_KEY) if isinstance(extras, dict) else None
    found = record.get("fingerprint") if isinstance(record, dict) else None
    return found if isinstance(found, str) else None


def _referenced(data):
    """The external URIs (sorted, unique) of a file's JSON; none when it does not parse (the
    conversion then fails, and failed files are always tried again)."""
    try:
        return sorted({uri for _, uri in external_uris(parse_json_only(data))})
    except (GltfError, TypeError, AttributeError):  # a hostile shape: the conversion will say
        return []
