"""Scripts the pipeline tests run in a child process with the bpy module (``python -c SCRIPT
ARGS``, or written to a file): a .blend with a keyed empty, a .blend with CesiumMan imported as the
rig clips are added to, and what such a rig holds afterwards (tests/pipeline/test_pipeline_blender.py,
test_pipeline_dask.py)."""


# Saves a .blend with one empty keyed in Euler XYZ (Blender's own keyframes), then os._exit.
MAKE_BLEND = """
import os, sys
import bpy
bpy.ops.wm.read_homefile(use_empty=True)
obj = bpy.data.objects.new("Spinner", None)
bpy.context.scene.collection.objects.link(obj)
for frame, angles in ((1, (0, 0, 0)), (10, (0.5, 0.2, 1.0)), (24, (1.2, -0.3, 2.0))):
    obj.rotation_euler = angles
    obj.keyframe_insert("rotation_euler", frame=frame)
obj.animation_data.action.name = "Spin"
obj.animation_data.action.use_fake_user = True
obj.animation_data.action = None
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[1])
sys.stdout.flush()
os._exit(0)
"""


# Saves CesiumMan imported by the bundled importer, its clips removed (the rig), then os._exit.
MAKE_RIG = """
import os, sys
import bpy
bpy.ops.wm.read_homefile(use_empty=True)
bpy.ops.import_scene.gltf(filepath=sys.argv[1])
for obj in bpy.data.objects:
    obj.animation_data_clear()
for action in list(bpy.data.actions):
    bpy.data.actions.remove(action)
bpy.ops.wm.save_as_mainfile(filepath=sys.argv[2])
sys.stdout.flush()
os._exit(0)
"""

# Prints the saved .blend's NLA tracks of the armature and its clip records as JSON, then os._exit.
READ_RIG = """
import json, os, sys
import bpy
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
rig = next(o for o in bpy.data.objects if o.type == 'ARMATURE')
tracks = rig.animation_data.nla_tracks if rig.animation_data else []
print(json.dumps({"tracks": sorted(t.name for t in tracks),
                  "objects": len(bpy.data.objects),
                  "records": sorted(a["gltf_sqlerp"]["name"] for a in bpy.data.actions if a.get("gltf_sqlerp"))}))
sys.stdout.flush()
os._exit(0)
"""
