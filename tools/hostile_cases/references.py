"""Hostile cases of where the document's references lead: node children that loop or give a node
two parents, and buffer URIs that leave the case's folder, miss their file or break their data."""

from .registry import Symlink, apply_all, case, delete_at, gltf, set_at

# --- node hierarchy ---

case("nodes_cycle", "NODE_LOOP", "/nodes/0", "node 1 lists node 0 as its child (0 -> 1 -> 0)",
     ("nodes",))(gltf(set_at(("nodes", 1, "children"), [0])))
case("nodes_self_child", "NODE_LOOP", "/nodes/1", "node 1 is its own only parent (node 0 has no children)",
     ("nodes",))(gltf(apply_all(delete_at(("nodes", 0, "children")), set_at(("nodes", 1, "children"), [1]))))


def _two_parents(document):
    document["nodes"].append({"name": "Second parent", "children": [1]})
    document["scenes"][0]["nodes"].append(2)


case("nodes_two_parents", "NODE_PARENT_OVERRIDE", "/nodes/2/children/0",
     "node 1 is a child of node 0 and of node 2", ("nodes",))(gltf(_two_parents))
case("nodes_child_listed_twice", "DUPLICATE_ELEMENTS", "/nodes/0/children/1",
     "node 0 lists child 1 twice", ("nodes",))(gltf(set_at(("nodes", 0, "children"), [1, 1])))


def _long_cycle(document):
    # 1000 nodes in one ring, none reachable from a root; the channel keeps targeting node 1.
    nodes = document["nodes"]
    start = len(nodes)
    for i in range(1000):
        nodes.append({"children": [start + (i + 1) % 1000]})


case("nodes_long_cycle", "NODE_LOOP", "/nodes/2", "a ring of 1000 nodes", ("nodes",))(
    gltf(_long_cycle))

# --- buffer URIs ---

OUTSIDE = {"../outside.bin": b"\0" * 4096}  # a real file next to the case folder


def uri_case(name, uri, code, description, side=None, pointer_="/buffers/0/uri"):
    case(name, code, pointer_, description, ("uri",))(
        gltf(set_at(("buffers", 0, "uri"), uri), side=side))


uri_case("uri_parent_folder", "../outside.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI '../outside.bin' (the file exists)", OUTSIDE)
uri_case("uri_nested_escape", "sub/../../outside.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI 'sub/../../outside.bin'", OUTSIDE)
uri_case("uri_percent_escape", "..%2Foutside.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI '..%2Foutside.bin' (percent-encoded slash)", OUTSIDE)
uri_case("uri_backslash_escape", "..\\outside.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI '..\\outside.bin'", OUTSIDE)
uri_case("uri_absolute", "/etc/passwd", "URI_OUTSIDE_FOLDER", "buffer URI '/etc/passwd'")
uri_case("uri_file_scheme", "file:///etc/passwd", "URI_OUTSIDE_FOLDER",
         "buffer URI 'file:///etc/passwd'")
uri_case("uri_http", "http://127.0.0.1:9/x.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI 'http://127.0.0.1:9/x.bin'")
uri_case("uri_windows_drive", "C:\\x.bin", "URI_OUTSIDE_FOLDER", "buffer URI 'C:\\x.bin'")
uri_case("uri_windows_drive_slash", "C:/Windows/win.ini", "URI_OUTSIDE_FOLDER",
         "buffer URI 'C:/Windows/win.ini'")
uri_case("uri_unc", "\\\\server\\share\\x.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI '\\\\server\\share\\x.bin'")
uri_case("uri_nul_byte", "base.bin\x00.png", "URI_OUTSIDE_FOLDER", "buffer URI with a NUL byte")
uri_case("uri_symlink_out", "link.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI 'link.bin', a symlink in the folder to '../outside.bin'",
         {**OUTSIDE, "link.bin": Symlink("../outside.bin")})
uri_case("uri_symlink_dir_out", "up/outside.bin", "URI_OUTSIDE_FOLDER",
         "buffer URI 'up/outside.bin' where 'up' is a symlink to '..'",
         {**OUTSIDE, "up": Symlink("..")})
uri_case("uri_missing_file", "missing.bin", "IO_ERROR", "buffer URI 'missing.bin', which is not there")
uri_case("uri_folder", "sub", "IO_ERROR", "buffer URI 'sub', a folder",
         {"sub/placeholder.txt": b"x"})
uri_case("uri_bad_base64", "data:application/octet-stream;base64,AAAA*AAA", "INVALID_URI",
         "a data: URI with '*' in its base64")
uri_case("uri_base64_bad_padding", "data:application/octet-stream;base64,AAA", "INVALID_URI",
         "a data: URI whose base64 lacks its padding")
uri_case("uri_data_not_base64", "data:application/octet-stream,hello", "INVALID_URI",
         "a data: URI without ';base64'")
uri_case("uri_data_short", "data:application/octet-stream;base64,AAAAAA==", "BUFFER_BYTE_LENGTH_MISMATCH",
         "a data: URI holding 4 bytes for a buffer of a few hundred", pointer_="/buffers/0")
case("uri_none_in_gltf", "BUFFER_MISSING_DATA", "/buffers/0",
     "a .gltf whose buffer has no uri (only a GLB can supply it)", ("uri",))(gltf(uri=None))
