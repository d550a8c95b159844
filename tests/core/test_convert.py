"""core.conversion.converter and tools/sqlerp_convert.py: dense LINEAR rotations rewritten in fewer bytes (LINEAR
keys alone, or CUBICSLERP keys with a reduced fallback), the replaced data gone from the file.

Independent references: the motions are closed forms built here (rotation about a moving axis,
sampled every 1/24 s), the LINEAR curve that viewers play is Appendix C's slerp written out in this
file (`ref_slerp`), written files are read back with plain json/struct (`raw_accessor`, `gltf_json`)
as well as with core.load, and the Khronos glTF-Validator checks every converted file. No Blender.
"""

import json
import subprocess
import sys
from collections import Counter
from typing import Any

import numpy as np
import pytest
from helpers import ASSETS, ROOT
from helpers.gltf_validator import errors, validate_all
from helpers.raw_gltf import raw_accessor
from helpers.convert_sources import CESIUM, GENTLE, KEYS, LIVELY, gltf_json, write_source

from gltf_sqlerp import core
from gltf_sqlerp.core.conversion import CONVERT_DEFAULTS, ConvertOptions
from gltf_sqlerp.core.conversion.converter import CHECKS_PER_INTERVAL, convert

EXTENSION = "EXT_animation_sqlerp"
CLI = ROOT / "tools" / "sqlerp_convert.py"
def ref_slerp(a, b, t):
    """Appendix C slerp, shortest path, t (m,) against (m, 4) ends."""
    d = np.sum(a * b, axis=1, keepdims=True)
    b = np.where(d < 0.0, -b, b)
    angle = np.arccos(np.clip(np.abs(d), -1.0, 1.0))
    s = np.sin(np.where(angle > 1e-9, angle, 1.0))
    t = t[:, None]
    out = np.where(angle > 1e-9, (np.sin((1 - t) * angle) * a + np.sin(t * angle) * b) / s,
                   a + t * (b - a))
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def ref_linear(times, values, query):
    """The LINEAR rotation sampler (times, values) at query times inside the keys."""
    k = np.clip(np.searchsorted(times, query, side="right") - 1, 0, len(times) - 2)
    t = (query - times[k]) / (times[k + 1] - times[k])
    return ref_slerp(values[k], values[k + 1], t)


def angle_deg(p, q):
    return np.degrees(2.0 * np.arccos(np.clip(np.abs(np.sum(p * q, axis=1)), 0.0, 1.0)))


def keys_and_midpoints(times):
    return np.sort(np.concatenate([times, 0.5 * (times[:-1] + times[1:])]))


def dense(times, count=64):
    return np.linspace(times[0], times[-1], count * (len(times) - 1) + 1)


@pytest.mark.parametrize("motion, tolerance", [(GENTLE, 0.01), (GENTLE, 0.05)],
                         ids=["gentle-0.01deg", "gentle-0.05deg"])
def test_a_smooth_dense_rotation_gets_far_fewer_cubicslerp_keys_within_the_tolerance(
        tmp_path, motion, tolerance):
    source, destination = tmp_path / "dense.gltf", tmp_path / "sparse.gltf"
    times, rotations = write_source(source, motion)
    report = convert(source, destination, tolerance_deg=tolerance)
    assert report.written and report.destination_bytes < report.source_bytes

    swing, stepper = report.channels  # rotation channels only: 0 and 2
    assert (swing.pointer, stepper.pointer) == ("/animations/0/channels/0", "/animations/0/channels/2")
    assert swing.form == "CUBICSLERP" and swing.original_keys == KEYS
    assert swing.keys is not None and swing.max_error_deg is not None
    assert swing.keys * 4 <= KEYS, swing
    assert 0.0 < swing.max_error_deg <= tolerance
    assert not stepper.converted and "STEP" in stepper.note

    channel = core.load(destination).animations[0].channels[0]
    assert channel.sampler.interpolation == "CUBICSLERP"
    assert len(channel.sampler.times) == swing.keys
    query = keys_and_midpoints(times)
    error = angle_deg(channel.evaluate(query), ref_linear(times, rotations, query))
    # A root node: its world rotation is its own. The report's figure checks these times too
    # (CHECKS_PER_INTERVAL per interval, an even number: midpoints, there rounded to float32).
    assert CHECKS_PER_INTERVAL % 2 == 0 and error.max() <= 1.01 * report.world_max_deg <= tolerance
    # Between the check times too (64 per original interval), the extension and the fallback.
    grid = dense(times)
    expected = ref_linear(times, rotations, grid)
    assert angle_deg(channel.evaluate(grid), expected).max() <= tolerance
    fallback = angle_deg(channel.evaluate(grid, use_fallback=True), expected).max()
    assert fallback <= report.fallback_tolerance_deg and fallback <= 1.01 * report.world_max_fallback_deg


def test_the_fallback_is_reduced_the_old_data_gone_and_the_keys_follow_the_spec(tmp_path):
    # Changed on purpose (issue 17): the channel's own sampler used to stay untouched as the
    # fallback; now it holds the reduced fallback and the dense keys leave the file.
    source, destination = tmp_path / "dense.gltf", tmp_path / "sparse.gltf"
    times, rotations = write_source(source)
    convert(source, destination)
    before, after = gltf_json(source), gltf_json(destination)
    channel = after["animations"][0]["channels"][0]
    fallback = after["animations"][0]["samplers"][channel["sampler"]]
    assert fallback["interpolation"] in ("LINEAR", "CUBICSPLINE")
    assert after["accessors"][fallback["output"]]["count"] < KEYS
    # The old output is gone: the CUBICSLERP input and output came, and the fallback's output
    # (and its own input, when its keys are some of the CUBICSLERP ones only).
    cubic_input = after["animations"][0]["samplers"][channel["extensions"][EXTENSION]["sampler"]]["input"]
    added = 3 + (fallback["input"] != cubic_input)
    assert len(after["accessors"]) == len(before["accessors"]) - 1 + added
    assert after["extensionsUsed"] == [EXTENSION] and "extensionsRequired" not in after
    # The other channels' data, unchanged (the translation and the STEP rotation).
    for c in (1, 2):
        old = before["animations"][0]["samplers"][before["animations"][0]["channels"][c]["sampler"]]
        new = after["animations"][0]["samplers"][after["animations"][0]["channels"][c]["sampler"]]
        assert old["interpolation"] == new["interpolation"]
        for key in ("input", "output"):
            assert np.array_equal(raw_accessor(destination, new[key]), raw_accessor(source, old[key]))

    cubic = after["animations"][0]["samplers"][channel["extensions"][EXTENSION]["sampler"]]
    assert cubic["interpolation"] == "CUBICSLERP"
    key_times = raw_accessor(destination, cubic["input"])[:, 0]
    assert after["accessors"][cubic["input"]]["min"] == [key_times[0]]
    assert after["accessors"][cubic["input"]]["max"] == [key_times[-1]]
    assert (key_times[0], key_times[-1]) == (times[0], times[-1])
    rows = core.load(destination).animations[0].channels[0].sampler.values
    a, v, b = rows[0::3], rows[1::3], rows[2::3]
    assert len(v) == len(key_times) and np.allclose(a[0], v[0], atol=1e-4) and np.allclose(b[-1], v[-1], atol=1e-4)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    for left, right in ((v[:-1], v[1:]), (v[:-1], b[:-1]), (v[1:], a[1:]), (b[:-1], a[1:])):
        assert (np.sum(left * right, axis=1) >= 0.0).all()  # spec "Sign rules for writers" sign rules


def test_a_lively_motion_becomes_linear_keys_alone_without_the_extension(tmp_path):
    # Changed on purpose: such a channel used to be left alone (its corners exceed what a smooth
    # curve follows at 0.01 deg); now its LINEAR keys are rewritten in fewer bytes (16-bit).
    source, destination = tmp_path / "dense.gltf", tmp_path / "small.gltf"
    times, rotations = write_source(source, LIVELY)
    report = convert(source, destination, tolerance_deg=0.01)
    assert report.written and report.destination_bytes < report.source_bytes
    swing = report.channels[0]
    assert swing.form == "LINEAR" and swing.precision == "SHORT"
    after = gltf_json(destination)
    assert "extensionsUsed" not in after and "extensions" not in after["animations"][0]["channels"][0]
    output = after["accessors"][after["animations"][0]["samplers"][0]["output"]]
    assert (output["componentType"], output.get("normalized")) == (5122, True)
    channel = core.load(destination).animations[0].channels[0]
    grid = dense(times)
    assert angle_deg(channel.evaluate(grid), ref_linear(times, rotations, grid)).max() <= 0.01


def test_an_options_object_and_its_fields_as_keywords_write_the_same_file(tmp_path):
    # The scripting API's keywords (tolerance_deg=...) and ConvertOptions are one set of names.
    source = CESIUM / "glTF-Binary" / "CesiumMan.glb"
    convert(source, tmp_path / "keywords.glb", tolerance_deg=0.05, min_ratio=1.0)
    convert(source, tmp_path / "object.glb", ConvertOptions(tolerance_deg=0.05))
    convert(source, tmp_path / "default.glb")
    assert (tmp_path / "keywords.glb").read_bytes() == (tmp_path / "object.glb").read_bytes()
    assert (tmp_path / "default.glb").read_bytes() != (tmp_path / "object.glb").read_bytes()  # the tolerance counts
    assert CONVERT_DEFAULTS == ConvertOptions(0.01, 1.0, 0.1, False)
    with pytest.raises(TypeError, match="tolerance"):  # a name the options do not have
        convert(source, tmp_path / "wrong.glb", tolerance=0.05)


def reduction(channel):
    """Original keys per new key of a converted channel."""
    assert channel.keys is not None
    return channel.original_keys / channel.keys


def test_min_ratio_leaves_channels_with_too_small_a_reduction_alone(tmp_path):
    source = CESIUM / "glTF-Binary" / "CesiumMan.glb"
    every = convert(source, tmp_path / "every.glb", tolerance_deg=0.05)
    ratios = sorted(reduction(c) for c in every.converted)
    assert ratios[0] < 2.0 <= ratios[-1]  # else this checks nothing
    report = convert(source, tmp_path / "some.glb", tolerance_deg=0.05, min_ratio=2.0)
    assert {c.pointer for c in report.converted} == {
        c.pointer for c in every.converted if reduction(c) >= 2.0}
    assert all("more than 1/2 of them" in c.note for c in report.channels if not c.converted)
    assert report.destination_bytes > every.destination_bytes


def test_converting_a_converted_file_again_writes_nothing(tmp_path):
    write_source(tmp_path / "dense.glb")
    convert(tmp_path / "dense.glb", tmp_path / "once.glb")
    before = (tmp_path / "once.glb").read_bytes()
    report = convert(tmp_path / "once.glb", tmp_path / "once.glb")  # in place, asked for explicitly
    assert not report.written and report.files == []
    assert report.reason.startswith("nothing written: no rotation channel can be rewritten")
    assert report.converted == [] and EXTENSION in report.channels[0].note
    assert (tmp_path / "once.glb").read_bytes() == before


def test_a_file_that_would_not_get_smaller_is_not_written_unless_allowed(tmp_path):
    # SimpleSkin: its one rotation's input and output share a buffer view, so the 16-bit keys
    # save nothing and the new accessor's JSON makes the file larger.
    source = ASSETS / "khronos" / "SimpleSkin" / "glTF" / "SimpleSkin.gltf"
    report = convert(source, tmp_path / "SimpleSkin.gltf")
    assert not report.written and list(tmp_path.iterdir()) == []
    assert report.reason.startswith("nothing written: the output would be")
    assert report.destination_bytes >= report.source_bytes
    forced = convert(source, tmp_path / "SimpleSkin.gltf", allow_larger=True)
    assert forced.written and (tmp_path / "SimpleSkin.gltf").is_file()
    assert forced.destination_bytes == report.destination_bytes
    assert errors(validate_all([tmp_path / "SimpleSkin.gltf"])[0]) == []


def _converted_pairs(tmp_path):
    """(source, destination) of every form: our dense .gltf/.glb/embedded, CesiumMan .gltf/.glb."""
    pairs = []
    for name in ("dense.gltf", "dense.glb"):
        write_source(tmp_path / name)
        pairs.append((tmp_path / name, tmp_path / "out" / name))
    write_source(tmp_path / "embedded.gltf", embed=True)
    pairs.append((tmp_path / "embedded.gltf", tmp_path / "out" / "embedded.gltf"))
    pairs += [(CESIUM / "glTF" / "CesiumMan.gltf", tmp_path / "cesium" / "CesiumMan.gltf"),
              (CESIUM / "glTF-Binary" / "CesiumMan.glb", tmp_path / "cesium" / "CesiumMan.glb")]
    for source, destination in pairs:
        destination.parent.mkdir(exist_ok=True)
        assert convert(source, destination, tolerance_deg=0.05).converted
    return pairs


def _codes(report):
    return Counter(m["code"] for m in report["issues"]["messages"])


def test_converted_files_pass_the_khronos_validator_and_load_without_warnings(tmp_path):
    pairs = _converted_pairs(tmp_path)
    reports = validate_all([path for pair in pairs for path in pair])
    for (_, destination), before, after in zip(pairs, reports[0::2], reports[1::2]):
        assert errors(after) == [], destination
        assert core.load(destination).warnings == [], destination
        # What spec "Channel forms" predicts for the fallback form, per CUBICSLERP sampler, and nothing
        # else that the source did not have already.
        samplers = sum(s["interpolation"] == "CUBICSLERP"
                       for a in gltf_json(destination)["animations"] for s in a["samplers"])
        predicted = Counter({"VALUE_NOT_IN_LIST": samplers, "UNUSED_OBJECT": samplers,
                             "UNSUPPORTED_EXTENSION": int(samplers > 0)})
        assert _codes(after) - _codes(before) <= predicted


def _truncated_glb(tmp_path):
    write_source(tmp_path / "dense.glb")
    data = (tmp_path / "dense.glb").read_bytes()
    (tmp_path / "truncated.glb").write_bytes(data[:len(data) // 2])
    return tmp_path / "truncated.glb"


def _count_mismatch(tmp_path):
    write_source(tmp_path / "dense.gltf")
    document = json.loads((tmp_path / "dense.gltf").read_text())
    output = document["animations"][0]["samplers"][0]["output"]
    document["accessors"][output]["count"] -= 1
    (tmp_path / "mismatch.gltf").write_text(json.dumps(document))
    return tmp_path / "mismatch.gltf"


@pytest.mark.parametrize("make, code, where", [
    (_truncated_glb, "GLB_LENGTH_MISMATCH", ""),
    (_count_mismatch, "ANIMATION_SAMPLER_OUTPUT_ACCESSOR_INVALID_COUNT",
     "/animations/0/channels/0/sampler"),
])
def test_bad_input_raises_gltf_error_and_writes_nothing(tmp_path, make, code, where):
    source = make(tmp_path)
    suffix = source.suffix
    with pytest.raises(core.GltfError) as raised:
        convert(source, tmp_path / "new" / f"out{suffix}")
    assert (raised.value.code, raised.value.pointer) == (code, where)
    assert not (tmp_path / "new").exists()
    existing = tmp_path / f"existing{suffix}"
    existing.write_bytes(b"an older file")
    before = sorted(tmp_path.iterdir())
    with pytest.raises(core.GltfError):
        convert(source, existing)
    assert existing.read_bytes() == b"an older file" and sorted(tmp_path.iterdir()) == before


def test_bad_arguments_raise_value_error_and_write_nothing(tmp_path):
    write_source(tmp_path / "dense.glb")
    before = sorted(tmp_path.iterdir())
    with pytest.raises(ValueError, match="must end in .glb"):
        convert(tmp_path / "dense.glb", tmp_path / "out.gltf")
    wrong_tolerances: list[Any] = [0.0, -1.0, float("nan"), "0.01x"]  # a wrong type too, on purpose
    for tolerance in wrong_tolerances:
        with pytest.raises(ValueError, match="tolerance_deg"):
            convert(tmp_path / "dense.glb", tmp_path / "out.glb", tolerance_deg=tolerance)
    wrong_ratios: list[Any] = [0.5, float("inf"), None]
    for ratio in wrong_ratios:
        with pytest.raises(ValueError, match="min_ratio"):
            convert(tmp_path / "dense.glb", tmp_path / "out.glb", tolerance_deg=0.01, min_ratio=ratio)
    for fallback in (0.005, 180.0, float("nan")):  # below the tolerance, or no angle
        with pytest.raises(ValueError, match="fallback_tolerance_deg"):
            convert(tmp_path / "dense.glb", tmp_path / "out.glb", tolerance_deg=0.01, min_ratio=1.0,
                        fallback_tolerance_deg=fallback)
    assert sorted(tmp_path.iterdir()) == before


def _run_cli(*args):
    # bpy made unimportable: the converter must run on a plain Python with numpy.
    script = ("import runpy, sys; sys.modules['bpy'] = None; sys.argv = sys.argv[1:]; "
              "runpy.run_path(sys.argv[0], run_name='__main__')")
    return subprocess.run([sys.executable, "-c", script, str(CLI), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_cli_prints_a_table_and_exits_0(tmp_path):
    result = _run_cli(CESIUM / "glTF-Binary" / "CesiumMan.glb", tmp_path / "c.glb",
                      "--tolerance", "0.05")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["channel", "node", "interpolation", "keys"]
    assert "new form" in lines[0] and "max error°" in lines[0]
    assert sum(line.startswith("/animations/0/channels/") for line in lines) == 19
    assert "rotation channels rewritten" in result.stdout and "within 0.05°" in result.stdout
    assert "world max error:" in result.stdout and "written: " in result.stdout
    assert core.load(tmp_path / "c.glb").animations[0].channels[1].sampler.interpolation == "LINEAR"


def test_cli_exits_3_when_nothing_is_written_and_writes_with_allow_larger(tmp_path):
    source = ASSETS / "khronos" / "SimpleSkin" / "glTF" / "SimpleSkin.gltf"
    result = _run_cli(source, tmp_path / "s.gltf")
    assert result.returncode == 3, result.stderr
    assert "nothing written: the output would be" in result.stdout
    assert not (tmp_path / "s.gltf").exists()
    result = _run_cli(source, tmp_path / "s.gltf", "--allow-larger")
    assert result.returncode == 0 and (tmp_path / "s.gltf").is_file()


def test_cli_exits_non_zero_with_the_error_code_and_pointer(tmp_path):
    source = _truncated_glb(tmp_path)
    result = _run_cli(source, tmp_path / "out.glb")
    assert result.returncode == 1
    assert "[GLB_LENGTH_MISMATCH at /]" in result.stderr
    assert not (tmp_path / "out.glb").exists()
    result = _run_cli(_count_mismatch(tmp_path), tmp_path / "out.gltf")
    assert result.returncode == 1
    assert "at /animations/0/channels/0/sampler]" in result.stderr
    assert _run_cli(source, tmp_path / "out.glb", "--tolerance", "-1").returncode != 0


def test_progress_is_heard_as_the_fit_goes_from_zero_to_one(tmp_path):
    """CesiumMan's 19 LINEAR rotations: a call after each one's first fit, then one per animation
    checked in world space; never backwards, ending at 1."""
    heard = []
    report = convert(CESIUM / "glTF-Binary" / "CesiumMan.glb", tmp_path / "walk.glb", progress=heard.append)
    assert report.written and len(report.channels) == 19
    assert len(heard) == 19 + 1 and heard == sorted(heard)
    assert 0.0 < heard[0] < 0.1 and heard[-1] == 1.0
