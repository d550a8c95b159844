"""What Blender plays after ``import_scene.gltf_sqlerp``, checked against the spec in the real Blender.

Every clip of every Khronos model and of our EXT_animation_sqlerp sample is played at every frame
and half frame; world rotations of objects and bones and every skinned/morphed vertex are compared
with the core's ``Document.node_matrices`` / ``Document.mesh_positions`` (tools/fidelity.py says
how). The bundled importer alone fails the same check on the sample, which shows the check can fail.
Also: NLA tracks per clip, the sampler data kept on actions, a broken file, undo, and the bundled
dialog's "Exact Animation" panel.
"""

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers.bpy_access import operator, settings
from helpers import ASSETS

from gltf_sqlerp.core.gltf.file import read_file
from helpers import scaled_rig
from helpers.jumping_curve import jumping_segment
from helpers.import_checks import VERTEX_TOLERANCE, assert_plays_the_spec, inventory, load_document, model_id

pytestmark = pytest.mark.blender
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
KHRONOS = sorted(p for p in (ASSETS / "khronos").rglob("*") if p.suffix in (".gltf", ".glb"))
CLIPS = [(path, clip) for path in KHRONOS
         for clip in range(len(read_file(path).json.get("animations", [])))]
SAMPLE_FILES = [SAMPLES / "sqlerp_arm.gltf", SAMPLES / "sqlerp_arm.glb", SAMPLES / "sqlerp_arm_required.gltf"]
CESIUM_MAN_GLB = ASSETS / "khronos/CesiumMan/glTF-Binary/CesiumMan.glb"
BROKEN_CASE = ASSETS / "validator" / "animation" / "unresolved_channel_sampler.gltf"


# --- fidelity ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path, clip", CLIPS, ids=[f"{model_id(p)}-clip{c}" for p, c in CLIPS])
def test_every_khronos_clip_plays_the_spec(fidelity, path, clip):
    assert fidelity.import_gltf(path) == {'FINISHED'}
    document = load_document(path)
    assert_plays_the_spec(fidelity.measure(document, clip), document, clip)


@pytest.mark.parametrize("source", ["EXTENSION", "FALLBACK"])
@pytest.mark.parametrize("path", SAMPLE_FILES, ids=model_id)
def test_sample_plays_the_chosen_sampler(fidelity, path, source):
    assert fidelity.import_gltf(path, source=source) == {'FINISHED'}
    document = load_document(path)
    fallback = source == "FALLBACK"
    assert_plays_the_spec(fidelity.measure(document, 0, use_fallback=fallback), document, 0)
    if any(c.fallback is not None for c in document.animations[0].channels):
        # The two samplers differ by up to 0.1° (tools/make_sample.py): the import played the one asked.
        other = fidelity.measure(document, 0, use_fallback=not fallback)
        assert other.rotation_max_deg > 0.05


@pytest.mark.parametrize("path", [SAMPLES / "sqlerp_arm.gltf", CESIUM_MAN_GLB], ids=model_id)
def test_a_29_97_fps_scene_plays_the_spec(fidelity, path):
    assert fidelity.import_gltf(path, fps=30, fps_base=1.001) == {'FINISHED'}
    document = load_document(path)
    assert_plays_the_spec(fidelity.measure(document, 0), document, 0)


@pytest.mark.parametrize("path, fps_base", [
    (SAMPLES / "sqlerp_arm.gltf", 1.0),  # plays the LINEAR fallback, not the CUBICSLERP curve
    (CESIUM_MAN_GLB, 1.001),  # keys at t * fps * fps_base
], ids=["sqlerp_arm.gltf", "CesiumMan.glb-29.97fps"])
def test_the_bundled_importer_alone_fails_the_same_check(fidelity, path, fps_base):
    fps = 30 if fps_base != 1 else None
    assert fidelity.import_gltf(path, exact=False, fps=fps, fps_base=fps_base) == {'FINISHED'}
    result = fidelity.measure(load_document(path), 0)
    assert result.problems == []
    assert result.rotation_max_deg > 0.05 and result.vertex_max > VERTEX_TOLERANCE, str(result)


# --- rigid parts under a scaled armature ----------------------------------------------------------

@pytest.mark.parametrize("clip", [0, 1], ids=["LINEAR", "CUBICSPLINE"])
@pytest.mark.parametrize("binary", [False, True], ids=["gltf", "glb"])
def test_rigid_parts_under_an_armature_scaled_by_100_play_the_spec(fidelity, tmp_path, binary, clip):
    """Meshes parented to joints (a head, a sword) of a centimetre rig: Blender moves them to their
    bone's tip, the edit bone is 1/100 of the importer's bone length, and every vertex must still
    be where the spec puts it (within 1e-4 of the part's own size, stricter than the model's)."""
    path = scaled_rig.write(tmp_path, binary)
    assert fidelity.import_gltf(path) == {'FINISHED'}
    document = load_document(path)
    result = fidelity.measure(document, clip)
    assert_plays_the_spec(result, document, clip)
    assert result.vertices >= 3 * 8 * result.samples  # the body, the head and the sword, every sample


def test_the_bundled_importer_alone_misplaces_them(fidelity, tmp_path):
    path = scaled_rig.write(tmp_path)
    assert fidelity.import_gltf(path, exact=False) == {'FINISHED'}
    result = fidelity.measure(load_document(path), 0)
    assert result.vertex_max > 0.5, str(result)  # half the part's size and more
    assert any("HeadMesh" in problem for problem in result.problems)


# --- skinned meshes the importer moves ------------------------------------------------------------

def _skinned_node_with_a_child(folder):
    """SimpleSkin with its skinned mesh node named "Skinned" and given a child: the bundled
    importer keeps the node as an empty and puts the mesh in a new object named after the mesh
    ("Mesh_0"), under the armature (io_scene_gltf2 vnode.move_skinned_meshes)."""
    source = ASSETS / "khronos/SimpleSkin/glTF"
    for blob in source.glob("*.bin"):
        shutil.copy(blob, folder)
    document = json.loads((source / "SimpleSkin.gltf").read_text(encoding="utf-8"))
    document["nodes"][0].update(name="Skinned", children=[len(document["nodes"])])
    document["nodes"].append({"name": "Child", "translation": [1.0, 0.0, 0.0]})
    (folder / "SimpleSkin.gltf").write_text(json.dumps(document), encoding="utf-8")
    return folder / "SimpleSkin.gltf"


def test_a_skinned_mesh_node_with_a_child_plays_the_spec(fidelity, tmp_path):
    path = _skinned_node_with_a_child(tmp_path)
    assert fidelity.import_gltf(path) == {'FINISHED'}
    document = load_document(path)
    node_map = fidelity.nodes.map_nodes(document, fidelity.bpy.data.objects)
    assert fidelity.bpy.data.objects[node_map.meshes[0]].type == 'MESH'
    result = fidelity.measure(document, 0)
    assert_plays_the_spec(result, document, 0)
    assert result.vertices > 0


# --- NLA tracks and stored sampler data -------------------------------------------------------------

STRUCTURE_FILES = [SAMPLES / "sqlerp_arm.gltf"] + [ASSETS / "khronos" / name for name in (
    "InterpolationTest/glTF/InterpolationTest.gltf", "CesiumMan/glTF/CesiumMan.gltf",
    "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")]


def _ids_of_clip(bpy, fidelity, document, clip):
    """The Blender IDs the clip animates: objects, armatures (bones), shape keys (weights)."""
    node_map = fidelity.nodes.map_nodes(document, bpy.data.objects)
    ids = {}
    for channel in document.animations[clip].channels:
        if channel.node in node_map.bones:
            data = bpy.data.objects[node_map.bones[channel.node][0]]
        else:
            data = bpy.data.objects[node_map.objects.get(channel.node) or node_map.meshes[channel.node]]
            data = data.data.shape_keys if channel.path == "weights" else data
        ids.setdefault(data.as_pointer(), (data, []))[1].append(channel)
    return ids.values()


@pytest.mark.parametrize("path", STRUCTURE_FILES, ids=model_id)
def test_each_clip_has_a_muted_nla_track_starting_at_its_first_key(fidelity, path):
    bpy = fidelity.bpy
    assert fidelity.import_gltf(path) == {'FINISHED'}
    document = load_document(path)
    rate = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    for clip, name in enumerate(fidelity.track_names(document)):
        expected = document.json["animations"][clip].get("name") or f"Anim_{clip}"
        assert name == expected  # no duplicate names in these files
        strips = []
        for data, channels in _ids_of_clip(bpy, fidelity, document, clip):
            tracks = [t for t in data.animation_data.nla_tracks if t.name == name]
            assert len(tracks) == 1 and tracks[0].mute and len(tracks[0].strips) == 1
            strips.append((tracks[0].strips[0], channels))
        for strip, _ in strips:
            # One action per clip (4.4+) or per clip and object (4.2): its first key is the earliest
            # key time of the channels it holds, in frames at the scene's rate.
            channels = [c for other, cs in strips if other.action == strip.action for c in cs]
            first_key = min(float(c.sampler.times[0]) for c in channels) * rate
            assert strip.action.frame_range[0] == pytest.approx(first_key, abs=1e-4)
            assert strip.frame_start == pytest.approx(first_key, abs=1e-4)


def _file_floats(gltf_json, base_dir, accessor_index):
    """An accessor's floats straight from the .bin (float32, tightly packed: true for these files)."""
    accessor = gltf_json["accessors"][accessor_index]
    view = gltf_json["bufferViews"][accessor["bufferView"]]
    assert accessor["componentType"] == 5126 and view.get("byteStride", 0) in (0, 4 * _width(accessor))
    blob = (base_dir / gltf_json["buffers"][view["buffer"]]["uri"]).read_bytes()
    start = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    return np.frombuffer(blob, np.float32, accessor["count"] * _width(accessor), start).astype(np.float64)


def _width(accessor):
    return {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[accessor["type"]]


@pytest.mark.parametrize("path", STRUCTURE_FILES, ids=model_id)
def test_actions_keep_the_files_sampler_data(fidelity, path):
    bpy = fidelity.bpy
    assert fidelity.import_gltf(path) == {'FINISHED'}
    gltf_json = json.loads(path.read_text(encoding="utf-8"))
    records = [channel for action in bpy.data.actions if "gltf_sqlerp" in action
               for channel in action["gltf_sqlerp"].to_dict()["channels"]]
    expected = {f"/animations/{a}/channels/{c}" for a, animation in enumerate(gltf_json["animations"])
                for c, channel in enumerate(animation["channels"]) if "node" in channel["target"]}
    assert {r["pointer"] for r in records} == expected
    for record in records:
        stored = [record["sampler"]] + ([record["fallback"]] if "fallback" in record else [])
        for sampler in stored:
            a, s = (int(part) for part in sampler["pointer"].split("/")[2::2])
            spec = gltf_json["animations"][a]["samplers"][s]
            assert sampler["interpolation"] == spec.get("interpolation", "LINEAR")
            assert np.array_equal(sampler["times"], _file_floats(gltf_json, path.parent, spec["input"]))
            # Rotations come back normalized in float64: the file's float32 quaternions are unit to 1e-7.
            values = _file_floats(gltf_json, path.parent, spec["output"])
            np.testing.assert_allclose(sampler["values"], values, rtol=0, atol=1e-6)


# --- broken files, undo --------------------------------------------------------------------------

def _broken_box(folder):
    """BoxAnimated with the defect of the validator's unresolved_channel_sampler case: a mesh
    scene the bundled importer would build before it stumbles."""
    source = ASSETS / "khronos/BoxAnimated/glTF"
    shutil.copy(source / "BoxAnimated0.bin", folder)
    document = json.loads((source / "BoxAnimated.gltf").read_text(encoding="utf-8"))
    document["animations"][0]["channels"][0]["sampler"] = len(document["animations"][0]["samplers"])
    (folder / "BoxAnimated.gltf").write_text(json.dumps(document), encoding="utf-8")
    return folder / "BoxAnimated.gltf"


@pytest.mark.parametrize("case", ["validator case", "BoxAnimated with its defect"])
def test_a_broken_file_changes_nothing_and_names_code_and_pointer(fidelity, tmp_path, case):
    bpy = fidelity.bpy
    report = json.loads(BROKEN_CASE.with_name(BROKEN_CASE.name + ".report.json").read_text(encoding="utf-8"))
    errors = [(m["code"], m["pointer"]) for m in report["issues"]["messages"] if m["severity"] == 0]
    assert errors == [("UNRESOLVED_REFERENCE", "/animations/0/channels/0/sampler")]
    path = BROKEN_CASE if case == "validator case" else _broken_box(tmp_path)
    bpy.ops.wm.read_homefile(use_empty=True)
    before = inventory(bpy)
    with pytest.raises(RuntimeError) as raised:
        operator("import_scene.gltf_sqlerp")(filepath=str(path))
    assert all(code in str(raised.value) and pointer in str(raised.value) for code, pointer in errors)
    assert inventory(bpy) == before
    if case != "validator case":  # control: the bundled importer alone leaves data-blocks behind
        settings(bpy.context.scene, "gltf_sqlerp_import").exact_animation = False
        with pytest.raises(RuntimeError):
            bpy.ops.import_scene.gltf(filepath=str(path))
        assert inventory(bpy) - before


def test_undo_after_an_import_removes_it(fidelity):
    bpy = fidelity.bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    collections = ("objects", "meshes", "armatures", "actions", "shape_keys")
    names = {c: sorted(getattr(bpy.data, c).keys()) for c in collections}
    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.ed.undo_push(message="before")
        # Positional 'EXEC_DEFAULT', True: push the operator's undo step as when run from the menu.
        path = str(SAMPLES / "sqlerp_arm.gltf")
        assert operator("import_scene.gltf_sqlerp")('EXEC_DEFAULT', True, filepath=path) == {'FINISHED'}
        assert len(bpy.data.objects) == 3 and len(bpy.data.actions) == 1
        assert bpy.ops.ed.undo() == {'FINISHED'}
    assert {c: sorted(getattr(bpy.data, c).keys()) for c in collections} == names


# --- the bundled dialog --------------------------------------------------------------------------

def _requiring_copy(folder):
    """sqlerp_arm.gltf (core LINEAR samplers plus the extension) marked as requiring the extension."""
    shutil.copy(SAMPLES / "sqlerp_arm.bin", folder)
    document = json.loads((SAMPLES / "sqlerp_arm.gltf").read_text(encoding="utf-8"))
    document["extensionsRequired"] = ["EXT_animation_sqlerp"]
    (folder / "sqlerp_arm.gltf").write_text(json.dumps(document), encoding="utf-8")
    return folder / "sqlerp_arm.gltf"


@pytest.mark.parametrize("form", ["draft form without core sampler", "core sampler and required"])
def test_bundled_dialog_with_exact_animation_plays_the_extension(fidelity, tmp_path, form):
    path = SAMPLES / "sqlerp_arm_required.gltf" if form.startswith("draft") else _requiring_copy(tmp_path)
    assert fidelity.import_gltf(path, bundled_dialog=True) == {'FINISHED'}
    document = load_document(path)
    assert_plays_the_spec(fidelity.measure(document, 0), document, 0)


@pytest.mark.parametrize("form", ["draft form without core sampler", "core sampler and required"])
def test_bundled_dialog_without_exact_animation_refuses_a_file_requiring_it(fidelity, tmp_path, form):
    bpy = fidelity.bpy
    path = SAMPLES / "sqlerp_arm_required.gltf" if form.startswith("draft") else _requiring_copy(tmp_path)
    bpy.ops.wm.read_homefile(use_empty=True)
    settings(bpy.context.scene, "gltf_sqlerp_import").exact_animation = False
    before = inventory(bpy)
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.import_scene.gltf(filepath=str(path))
    if not form.startswith("draft"):  # the draft form fails the bundled parser before this check
        assert "EXT_animation_sqlerp" in str(raised.value)
    assert inventory(bpy) == before


# --- a CUBICSLERP curve that jumps (issue 18, 2) ---------------------------------------------------

def _jumping_file(folder, frame=40.01, fps=24.0):
    """One empty turned by tests/helpers/jumping_curve.py's segment (with its LINEAR fallback), which
    jumps about 0.01 frames after a whole frame; and the jump's time."""
    times, rows, jump = jumping_segment(frame, fps)
    times, rows = times.astype(np.float32), rows.astype(np.float32)
    v0, v1 = rows[1], rows[4]
    fallback = np.array([v0, v1], dtype=np.float32)
    blob = times.tobytes() + rows.tobytes() + fallback.tobytes()
    views = [(0, 8), (8, 96), (104, 32)]
    document = {
        "asset": {"version": "2.0"}, "extensionsUsed": ["EXT_animation_sqlerp"], "scene": 0,
        "scenes": [{"nodes": [0]}], "nodes": [{"name": "Jumper"}],
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}],
        "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n} for o, n in views],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
                       "min": [float(times[0])], "max": [float(times[1])]},
                      {"bufferView": 1, "componentType": 5126, "count": 6, "type": "VEC4"},
                      {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC4"}],
        "animations": [{"name": "Jump", "samplers": [
            {"input": 0, "output": 2, "interpolation": "LINEAR"},
            {"input": 0, "output": 1, "interpolation": "CUBICSLERP"}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"},
                          "extensions": {"EXT_animation_sqlerp": {"sampler": 1}}}]}],
    }
    path = folder / "jumping.gltf"
    path.write_text(json.dumps(document))
    return path, jump


def test_a_jump_of_the_cubicslerp_curve_plays_the_spec_at_every_frame_and_is_reported(fidelity, tmp_path,
                                                                                       capfd):
    path, jump = _jumping_file(tmp_path)
    assert fidelity.import_gltf(path) == {'FINISHED'}
    report = capfd.readouterr().out
    assert f"1 jump(s) of the CUBICSLERP curve, keyed either side: Jumper at {jump:.4f} s" in report, report
    document = load_document(path)
    assert_plays_the_spec(fidelity.measure(document, 0), document, 0)
    import bpy
    animation = bpy.data.objects["Jumper"].animation_data
    assert animation is not None and animation.action is not None
    action = animation.action
    assert operator("gltf_sqlerp.deviation_report")(action=action.name) == {'FINISHED'}
    assert f"CUBICSLERP curve jumps at {jump:.4f} s" in capfd.readouterr().out
