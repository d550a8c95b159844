"""The seam to Blender's bundled glTF add-on (bundled_gltf/): only it names the add-on, and its
table of what differs per Blender version matches the add-on this Blender ships.

The table is checked against the real bundled add-on's sources and classes of every Blender in
the matrix (the test runs on each), so a row with a wrong first version fails on the Blender
that disagrees, and a new Blender that drops a change fails here before anything else does."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADDON_FOLDERS = ("core", "operators", "ui", "pipeline", "bundled_gltf")
# What only the seam may touch: the add-on's package and the internals we reach for.
# (The core's own file object has an accessor_cache too: that name is not a sign.)
INTERNALS = re.compile(r"io_scene_gltf2|gltf2_io\b|\bvtree\b|\bvnodes?\b|needs_stash"
                       r"|export_settings\[|UserExtension\b")


def _addon_modules():
    yield ROOT / "__init__.py"
    for folder in ADDON_FOLDERS:
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_only_the_seam_names_the_bundled_addon_and_its_internals():
    outside = {str(path.relative_to(ROOT)) for path in _addon_modules()
               if "bundled_gltf" not in path.parts and INTERNALS.search(path.read_text())}
    inside = {str(path.relative_to(ROOT)) for path in _addon_modules()
              if "bundled_gltf" in path.parts and INTERNALS.search(path.read_text())}
    assert outside == {"__init__.py"}  # its forwarding table names the two hook classes only
    assert "io_scene_gltf2" not in (ROOT / "__init__.py").read_text()
    assert {"bundled_gltf/export_accessors.py", "bundled_gltf/import_hooks.py",
            "bundled_gltf/exported.py", "bundled_gltf/imported.py"} <= inside  # the check sees


def test_the_version_table_names_every_blender_of_the_test_matrix():
    """dev.py's matrix (what CI runs) and the table's TESTED list are the same versions."""
    dev = (ROOT / "dev.py").read_text()
    pinned = {tuple(int(p) for p in v.split(".")[:2]) for v in re.findall(r"bpy==(\d+\.\d+)", dev)}
    for requirements in ROOT.glob("requirements*.txt"):
        pinned |= {tuple(int(p) for p in v.split(".")[:2])
                   for v in re.findall(r"bpy==(\d+\.\d+)", requirements.read_text())}
    source = (ROOT / "bundled_gltf" / "versions.py").read_text()
    tested = {tuple(int(n) for n in pair.split(",")) for pair in
              re.findall(r"\((\d+, \d+)\)", source.split("TESTED = ")[1].split("\n")[0])}
    assert pinned == tested


def _source(bundled, folder):
    """All Python source of one folder of the bundled add-on (file names moved in 4.3)."""
    return "\n".join(path.read_text() for path in sorted((bundled / folder).rglob("*.py")))


def _probes(bpy, bundled):
    """Per row of the table, whether this Blender's bundled add-on has the change, read from its
    sources and classes (never from the table)."""
    imp, exp, com = (_source(bundled, f) for f in ("blender/imp", "blender/exp", "io/com"))
    reader = _source(bundled, "io/imp")
    root = (bundled / "__init__.py").read_text()
    return {
        "bone_children_misplaced": "bone_length / max(" in imp and "-parent_vnode.bone_length" in imp,
        "draft_channel_rejected": "from ..com.gltf2_io import gltf_from_dict" in reader
                                  and "assert isinstance(x, int) and not isinstance(x, bool)" in com,
        "hook_errors_crash_logger": 'gltf.log.error(hook_name, "fails on", extension)' in reader,
        "binary_data_moved": importlib.util.find_spec("io_scene_gltf2.io.exp.binary_data") is not None,
        "slotted_actions": hasattr(bpy.types, "ActionSlot"),
        "export_panel_table": "exporter_extension_layout_draw[addon_name]" not in root,
        "decode_accessor_hook": "'decode_accessor_before_hook'" in reader,
        "iridescence_cleanup": "__check_iridescence" in exp,
        "meshopt_export": "gltf_meshopt_compression" in root,
        "critical_hooks": "is_critical" in reader,
        "passthrough_extension_data": "passthrough_extension_data" in exp,
        "natural_node_order": "_natural_sort_key" in exp,
        "codec_library_lines": (bundled / "io" / "com" / "library.py").exists(),
        "extras_pointer_slot": "'EXTRAS'" in imp,
        "extensions_hook_after_buffer": _after(exp, "buffer = __create_buffer(exporter",
                                               "export_user_extensions('gather_gltf_extensions_hook'"),
    }


def _after(source, first, then):
    """Whether ``source`` has ``then`` after ``first`` (both there)."""
    return 0 <= source.find(first) < source.find(then)


# Rows read off the sources by hand and not probed here: none changes what this add-on does
# (their responses are "nothing"), and no short text marks them in every version.
UNPROBED = {"ranges_of_materials", "edit_bone_roll_normalized", "pointer_in_actions_mode"}


@pytest.mark.blender
def test_the_version_table_matches_this_blenders_bundled_addon(addon):
    import bpy
    from gltf_sqlerp.bundled_gltf import versions
    # Blender's add-ons (scripts/addons_core) are on the path at run time only, by name here.
    bundled = importlib.import_module("io_scene_gltf2").__file__
    assert bundled is not None
    probes = _probes(bpy, Path(bundled).parent)
    assert set(probes) | set(UNPROBED) == {change.name for change in versions.CHANGES}
    found = {name: versions.applies(name) for name in probes}
    assert found == probes, f"Blender {bpy.app.version_string}"


def test_applies_reads_first_and_last_versions():
    """The rule by hand: a change counts from its first Blender up to its last (None: open)."""
    from gltf_sqlerp.bundled_gltf import versions
    assert versions.applies("decode_accessor_hook", (5, 2, 3))
    assert versions.applies("decode_accessor_hook", (5, 3))
    assert not versions.applies("decode_accessor_hook", (5, 1, 9))
    assert not versions.applies("binary_data_moved", (4, 2))
    assert versions.applies("binary_data_moved", (4, 3))


SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"


@pytest.mark.blender
def test_placeholder_keys_take_the_decode_hook_where_blender_has_one(fidelity, monkeypatch):
    """From 5.2 the importer's decode hook answers the animation's reads with the placeholder keys
    and its accessor cache is left alone; before 5.2 the cache holds them. The keys the import
    writes are exact either way (tests/operators/test_import_fidelity.py)."""
    import bpy
    from gltf_sqlerp.bundled_gltf import import_hooks, versions
    cls = import_hooks.glTF2ImportUserExtension
    after, decode = cls.gather_import_animation_after_hook, cls.decode_accessor_before_hook
    cached, served = [], []

    def counted_after(self, *args):
        gltf = args[-1]
        samplers = gltf.data.animations[args[0]].samplers
        used = {s.input for s in samplers} | {s.output for s in samplers}
        cached.append(len(used & set(gltf.accessor_cache)))
        after(self, *args)

    def counted_decode(self, accessor, array, gltf):
        decode(self, accessor, array, gltf)
        served.append(array.value is not None)

    monkeypatch.setattr(cls, "gather_import_animation_after_hook", counted_after)
    monkeypatch.setattr(cls, "decode_accessor_before_hook", counted_decode)
    assert fidelity.import_gltf(str(SAMPLE)) == {'FINISHED'}
    assert cached, "no animation was imported"
    if versions.applies("decode_accessor_hook"):
        assert any(served) and not any(cached), bpy.app.version_string
    else:
        assert not served and all(cached), bpy.app.version_string
