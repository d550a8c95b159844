"""Child process of tests/operators/test_export_views.py (not a test module itself).

``python view_merge_job.py FOLDER [SCENE ...]`` builds each scene (``a1``: tools/keyed_rig.py
build(); ``tree``: build_tree(); ``skinned``: the a1 rig with a skinned mesh that has a shape key,
an image texture and a keyed shape-key value; ``twins``: see twins()) and exports it with
``export_scene.gltf_sqlerp`` to .glb and .gltf three times: with the add-on's animation data as
the bundled exporter lays it out (bundled_gltf.export_views switched off: "plain"), with equal
key-time inputs shared only ("shared"), and with views merged too ("merged"), each into
FOLDER/<variant>/<scene>.<format>.
For a1 also "broken": views merged by a plan that fails half-way (the export must come out as
"shared"); twins and skinned: "imported", the result of importing the merged .glb with the
add-on. Prints one JSON line: {scene: {variant: {format: path}}}. Ends with os._exit (child_job.finish):
Blender 4.2's bpy crashes at exit after an export.
"""

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import current_scene, operator
from helpers.child_job import finish, tool

VARIANTS = {"plain": (False, False), "shared": (True, False), "merged": (True, True)}
FORMATS = ("glb", "gltf")


def skinned(rig_module):
    """The a1 rig with a mesh along its bone chain, weighted to the bones (a skin), a shape key
    whose value is keyed (morph targets and a weights channel) and an image texture."""
    import bmesh
    import bpy
    rig, _ = rig_module.build()
    mesh = bpy.data.meshes.new("Body")
    shape = bmesh.new()
    shape.loops.layers.uv.new("UVMap")  # create_cube fills it: the image texture needs a UV map
    bmesh.ops.create_cube(shape, size=1.0, calc_uvs=True)
    bmesh.ops.subdivide_edges(shape, edges=shape.edges[:], cuts=3, use_grid_fill=True)
    shape.to_mesh(mesh)
    shape.free()
    mesh.transform(np.diag([0.5, 0.5, 4.0, 1.0]).tolist())
    body = bpy.data.objects.new("Body", mesh)
    current_scene().collection.objects.link(body)
    body.location.z = 2.0  # at the root: glTF wants skinned meshes there (the skin places it)
    cast(bpy.types.ArmatureModifier, body.modifiers.new("Armature", 'ARMATURE')).object = rig
    for v in mesh.vertices:
        height = min(3, max(0, int(v.co.z + 2.0)))
        group = body.vertex_groups.get(f"bone{height}") or body.vertex_groups.new(name=f"bone{height}")
        group.add([v.index], 1.0, 'REPLACE')
    body.shape_key_add(name="Basis")
    bulge = body.shape_key_add(name="Bulge")
    bulge.data.foreach_set("co", (np.array([v.co for v in mesh.vertices]) * (1.3, 1.3, 1.0)).ravel())
    bulge.value = 0.0
    bulge.keyframe_insert("value", frame=1)
    bulge.value = 1.0
    bulge.keyframe_insert("value", frame=20)
    image = bpy.data.images.new("Checker", 8, 8)
    # Any: the stubs type Image.pixels as a float, while it is a collection of floats.
    pixels: Any = image.pixels
    pixels.foreach_set(np.tile([1.0, 0.5, 0.0, 1.0, 0.0, 0.2, 1.0, 1.0], 32).astype(np.float32))
    image.pack()
    material = bpy.data.materials.new("Checker")
    material.use_nodes = True
    tree = material.node_tree
    assert tree is not None
    texture = tree.nodes.new("ShaderNodeTexImage")
    texture.image = image  # pyright: ignore[reportAttributeAccessIssue] - an Image Texture node
    tree.links.new(texture.outputs["Color"], tree.nodes["Principled BSDF"].inputs["Base Color"])
    mesh.materials.append(material)


def twins():
    """Two empties, each with its own action keyed at the same frames: two animations whose
    samplers have equal key times."""
    import bpy
    for n in range(2):
        empty = bpy.data.objects.new(f"Twin{n}", None)
        current_scene().collection.objects.link(empty)
        for frame, turn in ((1, 0.0), (12, 1.0 + n), (24, -0.5)):
            empty.rotation_euler = (turn, 0.3 * turn, 0.0)
            empty.location = (n, turn, 0.0)
            empty.keyframe_insert("rotation_euler", frame=frame)
            empty.keyframe_insert("location", frame=frame)
    current_scene().frame_start, current_scene().frame_end = 1, 24


def main(folder: Path, scenes: list[str]) -> None:
    fidelity = tool("tools/fidelity.py")
    rig = tool("tools/keyed_rig.py")
    from gltf_sqlerp.bundled_gltf import export_views
    builders = {"a1": lambda: rig.build(), "tree": lambda: rig.build_tree(), "skinned": lambda: skinned(rig),
                "twins": twins}
    fidelity.enable_addon()
    written: dict = {}
    for scene in scenes:
        fidelity.reset_scene()
        builders[scene]()
        for variant, (share, merge) in VARIANTS.items():
            export_views.SHARE_INPUTS, export_views.MERGE_VIEWS = share, merge
            for file_format in FORMATS:
                path = folder / variant / f"{scene}.{file_format}"
                path.parent.mkdir(parents=True, exist_ok=True)
                result = operator("export_scene.gltf_sqlerp")(filepath=str(path))
                assert result == {'FINISHED'}, (scene, variant, result)
                written.setdefault(scene, {}).setdefault(variant, {})[file_format] = str(path)
        if scene == "a1":
            written[scene]["broken"] = broken(export_views, folder / "broken")
    for scene in ("twins", "skinned"):
        if scene in written:  # the add-on's importer reads merged views and shared inputs
            result = fidelity.import_gltf(written[scene]["merged"]["glb"])
            written[scene]["imported"] = sorted(result)
    fidelity.disable_addon()
    print(json.dumps(written))


def broken(export_views, folder):
    """Exports whose view merge fails half-way through renumbering (a plan whose view map is
    cut short): the views must come back as the exporter made them."""
    plan = export_views.plan_merge

    def cut_short(*args, **kwargs):
        merge = plan(*args, **kwargs)
        return replace(merge, view_map=merge.view_map[:len(merge.view_map) // 2])
    export_views.plan_merge = cut_short
    paths = {}
    try:
        for file_format in FORMATS:
            path = folder / f"a1.{file_format}"
            path.parent.mkdir(parents=True, exist_ok=True)
            assert operator("export_scene.gltf_sqlerp")(filepath=str(path)) == {'FINISHED'}
            paths[file_format] = str(path)
    finally:
        export_views.plan_merge = plan
    return paths


if __name__ == "__main__":
    finish(lambda: main(Path(sys.argv[1]), sys.argv[2:] or ["a1", "tree", "skinned", "twins"]))
