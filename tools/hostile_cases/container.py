"""Hostile cases of the container and the JSON text: lying GLB headers and chunk lengths, chunks
missing, repeated or out of order, and JSON that does not parse or parses into the wrong root."""

import struct

from .asset import BIN_NAME, GIB_COUNT, base_document, base_glb, dump_json, glb_bytes
from .registry import SAMPLER_PTR, case, raw, set_at

# --- the .glb container ---


def _glb_patch(offset, fmt, value, mutate=None):
    def data():
        blob = bytearray(glb_bytes(*base_glb(mutate)))
        struct.pack_into(fmt, blob, offset, value)
        return bytes(blob)
    return data


case("glb_bad_magic", "INVALID_JSON", "",
     "a .glb whose magic is 'glTX': not a GLB, so read as JSON, which it is not",
     ("glb",))(raw("case.glb", _glb_patch(0, "<4s", b"glTX")))
case("glb_version_1", "GLB_INVALID_VERSION", "", "GLB header version 1",
     ("glb",))(raw("case.glb", _glb_patch(4, "<I", 1)))
case("glb_version_huge", "GLB_INVALID_VERSION", "", "GLB header version 0xFFFFFFFF",
     ("glb",))(raw("case.glb", _glb_patch(4, "<I", 0xFFFFFFFF)))
case("glb_total_length_lies_long", "GLB_LENGTH_MISMATCH", "",
     "GLB header declares 4 GiB - 1 bytes for a file of a few hundred",
     ("glb",))(raw("case.glb", _glb_patch(8, "<I", 0xFFFFFFFF)))
case("glb_total_length_lies_short", "GLB_LENGTH_MISMATCH", "",
     "GLB header declares 20 bytes; the file is longer",
     ("glb",))(raw("case.glb", _glb_patch(8, "<I", 20)))
case("glb_truncated_header", "GLB_UNEXPECTED_END_OF_HEADER", "",
     "a GLB of 8 bytes: magic and version only",
     ("glb",))(raw("case.glb", lambda: b"glTF\x02\x00\x00\x00"))
case("glb_magic_only", "GLB_UNEXPECTED_END_OF_HEADER", "", "a GLB of 4 bytes: 'glTF'",
     ("glb",))(raw("case.glb", lambda: b"glTF"))
case("glb_json_chunk_past_end", "GLB_CHUNK_TOO_BIG", "",
     "the JSON chunk declares 0xFFFFFFF0 bytes",
     ("glb",))(raw("case.glb", _glb_patch(12, "<I", 0xFFFFFFF0)))


def _bin_chunk_past_end():
    blob = bytearray(glb_bytes(*base_glb()))
    json_length = struct.unpack_from("<I", blob, 12)[0]
    struct.pack_into("<I", blob, 20 + json_length, 1 << 30)
    return bytes(blob)


case("glb_bin_chunk_past_end", "GLB_CHUNK_TOO_BIG", "",
     "the BIN chunk declares a gigabyte in a file of a few hundred bytes",
     ("glb", "huge"))(raw("case.glb", _bin_chunk_past_end))


def _truncated_chunk_header():
    json_bytes, blob = base_glb()
    data = glb_bytes(json_bytes, blob) + b"\x10\x00\x00\x00"  # 4 bytes of a next chunk header
    return data[:8] + struct.pack("<I", len(data)) + data[12:]


case("glb_truncated_chunk_header", "GLB_UNEXPECTED_END_OF_CHUNK_HEADER", "",
     "4 bytes of a third chunk header at the end (total length counts them)",
     ("glb",))(raw("case.glb", _truncated_chunk_header))


def _cut_file():
    data = glb_bytes(*base_glb())
    return data[:len(data) // 2]


case("glb_cut_in_half", "GLB_LENGTH_MISMATCH", "",
     "a GLB cut in the middle of its JSON (the header still declares the full length)",
     ("glb",))(raw("case.glb", _cut_file))
case("glb_missing_bin", "BUFFER_MISSING_DATA", "/buffers/0",
     "buffer 0 has no uri but the GLB has no BIN chunk",
     ("glb",))(raw("case.glb", lambda: glb_bytes(base_glb()[0])))
def _chunks(*kinds):
    """A GLB of the base asset's chunks in the order given ('JSON', 'BIN')."""
    def data():
        json_bytes, blob = base_glb()
        body = {"JSON": (0x4E4F534A, json_bytes + b" " * (-len(json_bytes) % 4)),
                "BIN": (0x004E4942, blob)}
        return glb_bytes(None, chunks=[body[kind] for kind in kinds])
    return data


case("glb_bin_first", "GLB_UNEXPECTED_FIRST_CHUNK", "",
     "the BIN chunk comes before the JSON chunk",
     ("glb",))(raw("case.glb", _chunks("BIN", "JSON")))
case("glb_two_bin_chunks", "GLB_DUPLICATE_CHUNK", "", "two BIN chunks",
     ("glb",))(raw("case.glb", _chunks("JSON", "BIN", "BIN")))
case("glb_no_chunks", "GLB_UNEXPECTED_FIRST_CHUNK", "", "a 12-byte GLB: header, no chunks",
     ("glb",))(raw("case.glb", lambda: glb_bytes(None, chunks=[])))
case("glb_empty_json_chunk", "INVALID_JSON", "", "a JSON chunk of 0 bytes",
     ("glb",))(raw("case.glb", lambda: glb_bytes(None, chunks=[(0x4E4F534A, b"")])))
case("glb_bin_shorter_than_buffer", "BUFFER_BYTE_LENGTH_MISMATCH", "/buffers/0",
     "the BIN chunk holds fewer bytes than buffer 0's byteLength",
     ("glb",))(raw("case.glb", lambda: glb_bytes(base_glb()[0], base_glb()[1][:16])))
case("glb_buffer_gigabytes", "BUFFER_BYTE_LENGTH_MISMATCH", "/buffers/0",
     "buffer 0 declares 2 GiB; the BIN chunk has a few hundred bytes",
     ("glb", "huge"))(raw("case.glb", lambda: glb_bytes(
         *base_glb(set_at(("buffers", 0, "byteLength"), GIB_COUNT)))))

# --- JSON ---

case("json_syntax_error", "INVALID_JSON", "", "the JSON stops in the middle of an object",
     ("json",))(raw("case.gltf", lambda: dump_json(base_document()[0])[:200]))
case("json_root_array", "INVALID_JSON_ROOT_OBJECT", "", "the JSON root is an array",
     ("json",))(raw("case.gltf", lambda: b"[" + dump_json(base_document()[0]) + b"]"))
case("json_root_string", "INVALID_JSON_ROOT_OBJECT", "", "the JSON root is a string",
     ("json",))(raw("case.gltf", lambda: b'"glTF"'))
case("json_empty_file", "INVALID_JSON", "", "an empty file",
     ("json",))(raw("case.gltf", lambda: b""))
case("json_nesting_bomb", "INVALID_JSON", "", "100,000 nested arrays in 'extras'",
     ("json",))(raw("case.gltf", lambda: b'{"asset": {"version": "2.0"}, "extras": '
                    + b"[" * 100_000 + b"]" * 100_000 + b"}"))
def _replace_in_json(old, new):
    """Files of the base .gltf with bytes ``old`` of its JSON replaced once by ``new``."""
    def build():
        document, blob = base_document()
        text = dump_json(document)
        assert old in text
        return {"case.gltf": text.replace(old, new, 1), BIN_NAME: blob}
    return build


case("json_huge_integer", "INVALID_JSON", "",
     "an accessor count of 100,000 digits (past Python's integer-string limit)",
     ("json",))(_replace_in_json(b'"count": 2', b'"count": ' + b"9" * 100_000))
case("json_not_utf8", "INVALID_JSON", "", "the JSON holds a byte that is not UTF-8",
     ("json",))(_replace_in_json(b'"Hostile"', b'"Host\xffile"'))
case("json_count_overflow_float", "TYPE_MISMATCH", "/accessors/0/count",
     "an accessor count of 1e999 (infinity once parsed)", ("json", "huge"))(
         _replace_in_json(b'"count": 2', b'"count": 1e999'))
case("json_count_nan_literal", "TYPE_MISMATCH", "/accessors/0/count",
     "an accessor count of NaN (not JSON, but Python's parser takes it)", ("json",))(
         _replace_in_json(b'"count": 2', b'"count": NaN'))
case("json_duplicate_key", "UNRESOLVED_REFERENCE", SAMPLER_PTR + "/0/input",
     "sampler 0 says 'input' twice; the last one (99) counts", ("json",))(
         _replace_in_json(b'"input": 0', b'"input": 0, "input": 99'))
