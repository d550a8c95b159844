"""The fuzzer's mutations below the JSON tree (tests/helpers/fuzz_strategies.py draws them).

Flip, truncate or extend the GLB BIN chunk or an external .bin; a buffer turned into a ``data:``
URI with hostile base64; the GLB header and chunk lengths, version and chunk types; raw truncation
or byte flips of the serialized JSON text, and nests deeper than Python's recursion limit. Each
mutation takes (draw, case) and changes the case in place.
"""

import base64
import struct

from hypothesis import strategies as st

from .fuzz_tree_mutations import object_indices, short_repr


def _mutate_bytes(draw, blob, what):
    """Flip, truncate or extend a byte string; returns (new bytes, description)."""
    op = draw(st.sampled_from(["flip", "truncate", "extend", "zero"]))
    if op == "flip" and blob:
        at = draw(st.integers(0, len(blob) - 1))
        mask = draw(st.integers(1, 255))
        blob = blob[:at] + bytes([blob[at] ^ mask]) + blob[at + 1:]
        return blob, f"flip {what}[{at}] ^ {mask}"
    if op == "truncate":
        cut = draw(st.integers(0, len(blob)))
        return blob[:cut], f"truncate {what} to {cut}"
    if op == "zero" and blob:
        at = draw(st.integers(0, len(blob) - 1))
        size = draw(st.integers(1, 64))
        return blob[:at] + b"\xff" * min(size, len(blob) - at) + blob[at + size:], \
            f"0xff {what}[{at}:{at + size}]"
    extra = draw(st.sampled_from([1, 3, 4, 1000]))
    return blob + b"\x7f" * extra, f"extend {what} by {extra}"


def m_deep(draw, case):
    """A JSON nest far deeper than Python's recursion limit, as the value of a top-level key."""
    depth = draw(st.sampled_from([1000, 100_000]))
    key = draw(st.sampled_from(["asset", "nodes", "animations", "accessors", "extras"]))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    text = case.json_bytes()
    cut = text.rfind(b"}")
    case.json = text[:cut] + b',"' + key.encode() + b'":' + opener * depth + b"0" + closer * depth + b"}"
    case.steps.append(f"nest {depth} deep at /{key}")


def m_binary(draw, case):
    if case.kind == "glb" and case.bin is not None and draw(st.booleans()):
        case.bin, step = _mutate_bytes(draw, case.bin, "BIN")
        case.steps.append(step)
    elif case.files:
        uri = draw(st.sampled_from(sorted(case.files)))
        case.files[uri], step = _mutate_bytes(draw, case.files[uri], uri)
        case.steps.append(step)
    elif case.kind == "glb":
        m_glb(draw, case)
    else:
        m_data_uri(draw, case)


def m_data_uri(draw, case):
    buffers = object_indices(case.json, "buffers")
    if not buffers:
        return
    b = draw(st.sampled_from(buffers))
    payload = draw(st.one_of(st.binary(max_size=64).map(lambda x: base64.b64encode(x).decode()),
                             st.sampled_from(["!!!", "AAA", "AAAA=", "", "====", "A" * 4001])))
    header = draw(st.sampled_from(["data:application/octet-stream;base64,", "data:;base64,",
                                   "data:application/gltf-buffer;base64,", "data:text/plain,"]))
    case.json["buffers"][b]["uri"] = header + payload
    case.steps.append(f"set /buffers/{b}/uri = {short_repr(header + payload)}")


GLB_FIELDS = {
    "magic": st.sampled_from([b"glTF", b"gltf", b"\0\0\0\0"]),
    "version": st.sampled_from([0, 1, 2, 3, 2**32 - 1]),
    "length": st.one_of(st.integers(0, 2**32 - 1), st.sampled_from([0, 11, 12, 20])),
    "json_length": st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 64)),
    "json_type": st.sampled_from([0x004E4942, 0, 0x4E4F534A + 1]),
    "bin_length": st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 64)),
    "bin_type": st.sampled_from([0x4E4F534A, 0, 0x12345678]),
    "trailer": st.sampled_from([b"\0" * 4, b"\0" * 8, struct.pack("<II", 4, 0x004E4942) + b"\0" * 4,
                                struct.pack("<II", 2**31, 0)]),
    "cut": st.integers(0, 2**16),
}


def m_glb(draw, case):
    if case.kind != "glb":
        m_text(draw, case)
        return
    name = draw(st.sampled_from(sorted(GLB_FIELDS)))
    case.glb[name] = draw(GLB_FIELDS[name])
    case.steps.append(f"glb {name} = {short_repr(case.glb[name])}")


def m_text(draw, case):
    """Byte-level damage to the serialized JSON (after this, no more tree mutations apply)."""
    text = case.json_bytes()
    text, step = _mutate_bytes(draw, text, "JSON")
    case.json = text
    case.steps.append(step)
