"""three.js plays EXT_animation_sqlerp files through viewers/three/EXT_animation_sqlerp.js as the core does.

three.js is the pinned npm package (tests/validator/package.json), run under Node.js by
tests/three/play.mjs: GLTFLoader with our plugin registered, an AnimationMixer stepped to every key
time, every key interval's middle and 240 times a second, every node's quaternion read back
(tools/three_player.py). TestThree runs every web player's tests (web_player_checks.PlayerTests): the
core's curve within 1e-6 on the sample in every form, hand-worked values, the hostile corpus, node
channels through KHR_animation_pointer and the export benchmark's files. The plugin uses three.js'
public API only (no underscore member of three.js, hooks three.js' parser calls), and everything but
rotations (clip names, userData, track names, CUBICSPLINE, morph weights) is three.js' own.
"""

import base64
import json
import re

import numpy as np
import pytest

from helpers.child_job import ROOT

from helpers import web_player_checks as checks

PLAYER = "three"
PLUGIN = ROOT / "viewers" / "three" / "EXT_animation_sqlerp.js"
# An identifier that starts with an underscore: three.js' private members (`parser._createAnimationTracks`).
UNDERSCORED = re.compile(r"(?<![\w$])_[A-Za-z$]\w*")
UUID = re.compile(r"^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\.")  # an unnamed node's track: its uuid


class TestThree(checks.PlayerTests):
    PLAYER = PLAYER


def test_three_alone_fails_on_the_drafts_required_form():
    # The README's claim, and why the export never writes that form: three.js alone reads
    # channel.sampler, which the draft's form leaves out.
    with pytest.raises(AssertionError, match="could not load"):
        checks.play_like_the_core([checks.SAMPLES / "sqlerp_arm_required.gltf"], PLAYER, plugin=False)


def test_three_alone_ignores_pointer_channels(tmp_path):
    # three.js has no KHR_animation_pointer: without the plugin the node channels through pointers do
    # not play, so the comparison of TestThree's pointer test can fail.
    paths = [checks.pointer_files.write(name, tmp_path) for name in ("reported", "node_trs_pointers", "shared_sampler")]
    for (worst, _), path in zip(checks.play_like_the_core(paths, PLAYER, plugin=False), paths):
        assert worst > 0.1, path.name


def test_the_plugin_uses_three_public_api_only():
    loader = (checks.web_player.modules_folder() / "three/examples/jsm/loaders/GLTFLoader.js").read_text()
    # The scan finds the private members three.js' own loadAnimation calls...
    assert {"_createAnimationTracks", "_getArrayFromAccessor", "_invokeOne"} <= set(UNDERSCORED.findall(loader))
    # ...and none in the plugin or its declarations.
    for path in (PLUGIN, PLUGIN.with_suffix(".d.ts")):
        source = path.read_text(encoding="utf-8")
        assert UNDERSCORED.findall(source) == [] and "parser._" not in source, path.name
    # Its hooks are ones GLTFParser calls (`ext.beforeRoot && ext.beforeRoot()`), and not
    # loadAnimation, where the tracks would have to be built without three.js' private factory.
    hooks = set(re.findall(r"ext\.(\w+) && ext\.\1\(", loader))
    plugin_class = PLUGIN.read_text(encoding="utf-8").split("export class GLTFAnimationSqlerpExtension")[1]
    methods = set(re.findall(r"^\t(?:async )?(\w+)\(", plugin_class, re.MULTILINE)) - {"constructor"}
    assert methods == {"beforeRoot", "afterRoot"} and methods <= hooks


def about(axis, degrees):
    half = np.radians(degrees) / 2
    return [*(np.sin(half) * np.asarray(axis, dtype=np.float64) / np.linalg.norm(axis)), np.cos(half)]


def _keys(a, b, c):  # CUBICSPLINE / CUBICSLERP outputs: in-tangent, value, out-tangent per key
    return [x for key in (a, b, c) for x in key]


def many_tracks_file(folder, alone=False):
    """Two animations of every kind of track three.js builds: node 0 ("Arm.upper left") a 16-bit
    LINEAR rotation and a CUBICSPLINE translation, node 1 (the same name) a CUBICSLERP rotation with
    a LINEAR fallback and a STEP scale, node 2 a mesh of two primitives with a morph target each and
    CUBICSPLINE weights through KHR_animation_pointer, node 3 (no name) a CUBICSPLINE rotation and a
    LINEAR translation through a pointer; the first animation named, with extras, the second neither.
    ``alone``: the file three.js alone can play (node targets, no extension on the channels)."""
    turn = [about((0, 0, 1), d) for d in (0, 45, 90)]
    data = [  # (values, type, componentType, normalized)
        ([0.0, 0.5, 1.0], "SCALAR", 5126, False),
        ([about((1, 0.3, 0), d) for d in (0, 40, 80)], "VEC4", 5122, True),
        (_keys(*([[0.2, 0, 0], p, [0, 0.5, 0]] for p in ([0, 0, 0], [1, 2, 0], [2, 0, 1]))), "VEC3", 5126, False),
        (_keys(*([about((0, 0, 1), d - 15), about((0, 0, 1), d), about((0, 0, 1), d + 15)] for d in (0, 45, 90))),
         "VEC4", 5126, False),
        (turn, "VEC4", 5126, False),
        ([[1, 1, 1], [2, 1, 1], [1, 3, 1]], "VEC3", 5126, False),
        (_keys(*([0.5, w, -0.5] for w in (0.0, 1.0, 0.25))), "SCALAR", 5126, False),
        (_keys(*([[0.1, 0, 0, 0], about((0, 1, 0), d), [0, 0.1, 0, 0]] for d in (0, 60, 30))), "VEC4", 5126, False),
        ([[0, 0, 0], [0, 1, 0], [0, 0, 1]], "VEC3", 5126, False),  # positions, and their morph target
    ]
    blob, views, accessors = b"", [], []
    for values, kind, component, normalized in data:
        array = np.asarray(values, dtype=np.float64).reshape(-1, {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[kind])
        raw = (np.round(array * 32767).astype(np.int16) if normalized else array.astype(np.float32)).tobytes()
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(raw)})
        accessors.append({"bufferView": len(views) - 1, "componentType": component, "count": len(array), "type": kind,
                          **({"normalized": True} if normalized else {}),
                          **({"min": array.min(0).tolist(), "max": array.max(0).tolist()} if kind != "VEC4" else {})})
        blob += raw + b"\0" * (-len(raw) % 4)
    sampler = [{"input": 0, "output": o, "interpolation": i}
               for o, i in ((1, "LINEAR"), (2, "CUBICSPLINE"), (3, "CUBICSLERP"), (4, "LINEAR"), (5, "STEP"),
                            (6, "CUBICSPLINE"), (7, "CUBICSPLINE"), (8, "LINEAR"))]

    def to(node, path, s, pointer=False):
        target = {"node": node, "path": path}
        if pointer and not alone:
            target = {"path": "pointer", "extensions": {checks.POINTER: {"pointer": f"/nodes/{node}/{path}"}}}
        return {"sampler": s, "target": target}
    sqlerp = {**to(1, "rotation", 3), **({} if alone else {"extensions": {"EXT_animation_sqlerp": {"sampler": 2}}})}
    primitive = {"attributes": {"POSITION": 8}, "targets": [{"POSITION": 8}]}
    document = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": [{"name": "Arm.upper left"}, {"name": "Arm.upper left"}, {"name": "Face", "mesh": 0}, {}],
        "meshes": [{"primitives": [primitive, primitive], "weights": [0.0]}],
        "extensionsUsed": [] if alone else ["EXT_animation_sqlerp", checks.POINTER],
        "buffers": [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64,"
                     + base64.b64encode(blob).decode()}],
        "bufferViews": views, "accessors": accessors,
        "animations": [
            {"name": "wave", "extras": {"take": 3, "note": "a.b c"}, "samplers": sampler, "channels": [
                to(0, "rotation", 0), to(0, "translation", 1), sqlerp, to(1, "scale", 4),
                to(2, "weights", 5, pointer=True), to(3, "rotation", 6), to(3, "translation", 7, pointer=True)]},
            {"samplers": [sampler[4]], "channels": [to(0, "scale", 0)]}]}
    path = folder / ("alone.gltf" if alone else "ours.gltf")
    path.write_text(json.dumps(document))
    return path


def test_every_other_track_is_three_alones(tmp_path):
    ours, alone = many_tracks_file(tmp_path), many_tracks_file(tmp_path, alone=True)
    at = np.linspace(-0.25, 1.25, 25)
    [mine, theirs] = (checks.web_player.play([path], [{0: at, 1: at}], plugin=path == ours, tracks=at)[0].tracks
                      for path in (ours, alone))
    # parser.json's animations are the file's again after loading (the plugin rewrote copies).
    assert mine["animations"] == json.loads(ours.read_text())["animations"]
    # Names as three.js makes them, by hand: unnamed clips are animation_<index>, extras go to
    # userData, PropertyBinding.sanitizeNodeName drops '.' and turns spaces into '_', the second
    # "Arm.upper left" is made unique with _1, and the weights animate both primitives' meshes.
    for key, wanted in (("name", ["wave", "animation_1"]), ("userData", [{"take": 3, "note": "a.b c"}, {}])):
        assert [clip[key] for clip in mine["clips"]] == [clip[key] for clip in theirs["clips"]] == wanted
    names, alone_names = ([[UUID.sub("<uuid>.", track["name"]) for track in clip["tracks"]] for clip in played["clips"]]
                          for played in (mine, theirs))
    assert names == alone_names
    assert {"Armupper_left.quaternion", "Armupper_left_1.quaternion"} <= set(names[0])
    assert len([name for name in names[0] if name.endswith(".morphTargetInfluences")]) == 2
    assert len(names[0]) == 8 and "<uuid>.quaternion" in names[0] and names[1] == ["Armupper_left.scale"]
    for clip, twin in zip(mine["clips"], theirs["clips"]):
        assert clip["duration"] == twin["duration"] == 1.0
        for track, same in zip(clip["tracks"], twin["tracks"]):
            assert track["type"] == same["type"]
            if track["type"] != "quaternion":  # translations, scales and weights: three.js' own, exactly
                assert track["samples"] == same["samples"], track["name"]
    # The rotations are the core's (the CUBICSLERP curve, 16-bit keys made unit length).
    [(worst, samples)] = checks.play_like_the_core([ours], PLAYER)
    assert worst <= checks.TOLERANCE and samples > 1000
