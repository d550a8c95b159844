"""The hostile corpus (tools/hostile_corpus.py) through ``import_scene.gltf_sqlerp`` in the real Blender.

Every case is imported into a scene that already holds objects, a mesh with shape keys and a
material, an armature, a camera, a light, an image, a texture, a node group, a collection and an
action played by an NLA track. The import must fail (RuntimeError from the operator's ERROR report,
naming the case's code and pointer), and the whole .blend must be as before: every data-block of
every ``bpy.data`` collection, its user count, and the animation data and NLA tracks of the
existing objects.

``IMPORTER_CASES`` are files the core accepts (it does not check extension objects) on which Blender's
bundled importer fails after building some data-blocks: they make the operator's rollback do real
work, where the core-refused cases stop before Blender is touched, and its report must be one line
naming Blender's error and the file, never a traceback.

The inventory here is written independently of operators/transaction.py (the code under test):
it walks ``bpy.data``'s collections by name, not ``user_map``.
"""

import re

import pytest
from helpers.bpy_access import operator, settings
from helpers import tool

pytestmark = pytest.mark.blender


corpus = tool("tools/hostile_corpus.py")
CASES = corpus.CASES
# Collections the brief names, which must exist in every Blender we test (the rest are found by
# walking bpy.data).
NAMED = ("objects", "meshes", "armatures", "actions", "images", "materials", "textures",
         "node_groups", "collections", "cameras", "lights", "shape_keys", "scenes")


def inventory(bpy):
    """Everything a failed import could leave behind or change, as plain comparable data."""
    data = {}
    names: set[str] = set(NAMED)
    for attribute in dir(bpy.data):
        if attribute.startswith("_"):
            continue
        value = getattr(bpy.data, attribute, None)
        if isinstance(value, bpy.types.bpy_prop_collection):
            names.add(attribute)
    for attribute in sorted(names):
        collection = getattr(bpy.data, attribute)
        data[attribute] = sorted((block.name, getattr(block, "library", None) is not None,
                                  block.users, block.as_pointer())
                                 for block in collection if isinstance(block, bpy.types.ID))
    objects = {}
    for obj in bpy.data.objects:
        animation = obj.animation_data
        objects[obj.name] = {
            "parent": obj.parent.name if obj.parent else None,
            "collections": sorted(c.name for c in obj.users_collection),
            "action": animation.action.name if animation and animation.action else None,
            "nla": [(track.name, track.mute, [(s.name, s.action.name if s.action else None,
                                               s.frame_start, s.frame_end) for s in track.strips])
                    for track in animation.nla_tracks] if animation else None,
            "matrix": [tuple(row) for row in obj.matrix_basis],
        }
    data["object details"] = objects
    data["scene objects"] = sorted(o.name for o in bpy.context.scene.objects)
    data["shape key blocks"] = {key.name: [b.name for b in key.key_blocks]
                                for key in bpy.data.shape_keys}
    data["frame"] = (bpy.context.scene.frame_start, bpy.context.scene.frame_end,
                     bpy.context.scene.frame_current)
    return data


def _populate(bpy):
    """A scene with something in every collection the inventory names."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    mesh = bpy.data.meshes.new("Existing mesh")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
    cube = bpy.data.objects.new("Existing object", mesh)
    scene.collection.objects.link(cube)
    cube.shape_key_add(name="Basis")
    cube.shape_key_add(name="Raised")
    material = bpy.data.materials.new("Existing material")
    mesh.materials.append(material)
    bpy.data.images.new("Existing image", 4, 4)
    bpy.data.textures.new("Existing texture", 'IMAGE')
    bpy.data.node_groups.new("Existing node group", 'GeometryNodeTree')
    collection = bpy.data.collections.new("Existing collection")
    scene.collection.children.link(collection)
    camera = bpy.data.objects.new("Existing camera", bpy.data.cameras.new("Existing camera"))
    collection.objects.link(camera)
    light = bpy.data.objects.new("Existing light", bpy.data.lights.new("Existing light", 'POINT'))
    collection.objects.link(light)
    rig = bpy.data.objects.new("Existing rig", bpy.data.armatures.new("Existing armature"))
    collection.objects.link(rig)
    cube.parent = rig
    cube.location = (1.0, 2.0, 3.0)
    cube.keyframe_insert("location", frame=1)
    cube.location = (2.0, 2.0, 3.0)
    cube.keyframe_insert("location", frame=10)
    stashed = bpy.data.actions.new("Existing stashed action")
    stashed.use_fake_user = True
    track = cube.animation_data.nla_tracks.new()
    track.name = "Existing track"
    track.strips.new("Existing strip", 1, stashed)
    # Evaluated now, so that the location an import's depsgraph update writes back is this one.
    scene.frame_set(5)
    return inventory(bpy)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile_import")


_POPULATED = {}  # "state": the inventory of the populated scene, kept across the module's tests


@pytest.fixture
def populated(fidelity):
    """The populated scene, rebuilt only when a test changed it (imports that fail do not)."""
    bpy = fidelity.bpy
    state = _POPULATED.get("state")
    if state is None or inventory(bpy) != state:
        _POPULATED["state"] = _populate(bpy)
    return bpy


def test_inventory_sees_an_import(populated, tmp_path):
    """Control: the valid base file imports, and the inventory shows what it added."""
    bpy = populated
    before = inventory(bpy)
    assert {"Existing object", "Existing rig"} <= {name for name, *_ in before["objects"]}
    path = corpus.write_base(tmp_path, "glb")
    assert operator("import_scene.gltf_sqlerp")(filepath=str(path)) == {'FINISHED'}
    after = inventory(bpy)
    assert len(after["objects"]) == len(before["objects"]) + 2
    assert len(after["actions"]) > len(before["actions"])
    assert after["object details"]["Existing object"] == before["object details"]["Existing object"]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_import_fails_and_changes_nothing(populated, corpus_dir, case):
    bpy = populated
    try:
        path = corpus.write_case(case, corpus_dir / case.name)
    except (OSError, NotImplementedError) as error:  # symlinks need privileges on Windows
        if corpus.has_symlink(case):
            pytest.skip(f"cannot create a symlink here: {error}")
        raise
    before = inventory(bpy)
    with pytest.raises(RuntimeError) as raised:
        operator("import_scene.gltf_sqlerp")(filepath=str(path))
    # Reports are C strings: the operator shows a NUL (from a URI or a property name) as \\0.
    expected = f"[{case.code} at {case.pointer or '/'}]".replace("\0", "\\0")
    assert expected in str(raised.value), str(raised.value)[:2000]
    assert inventory(bpy) == before


@pytest.mark.parametrize("case", corpus.IMPORTER_CASES, ids=[c.name for c in corpus.IMPORTER_CASES])
def test_importer_failure_half_way_is_rolled_back(populated, corpus_dir, case):
    bpy = populated
    path = corpus.write_case(case, corpus_dir / case.name)
    before = inventory(bpy)
    with pytest.raises(RuntimeError) as raised:
        operator("import_scene.gltf_sqlerp")(filepath=str(path))
    message = str(raised.value).strip()
    assert "the scene is unchanged" in message, message[-2000:]
    assert "\n" not in message and "Traceback" not in message and f"({path.name})" in message, message
    assert "TypeError" in message  # Blender's own error, named
    assert inventory(bpy) == before


def test_rollback_removes_what_the_bundled_importer_built(populated, corpus_dir):
    """The control for the case above: the importer did build data-blocks before failing (so the
    unchanged inventory is the rollback's work), and without the rollback they would stay."""
    bpy = populated
    case = next(c for c in corpus.IMPORTER_CASES if c.name == "importer_emissive_strength_string")
    path = corpus.write_case(case, corpus_dir / case.name)
    before = inventory(bpy)
    with pytest.raises(RuntimeError) as raised:
        operator("import_scene.gltf_sqlerp")(filepath=str(path))
    removed = re.search(r"the scene is unchanged \((\d+) data-blocks removed\)", str(raised.value))
    assert removed and int(removed.group(1)) > 0, str(raised.value)[-2000:]
    assert inventory(bpy) == before
    import_settings = settings(bpy.context.scene, "gltf_sqlerp_import")
    import_settings.exact_animation = False
    try:
        with pytest.raises(RuntimeError):
            bpy.ops.import_scene.gltf(filepath=str(path))
    finally:
        import_settings.exact_animation = True
    left = inventory(bpy)
    assert len(left["meshes"]) > len(before["meshes"])
