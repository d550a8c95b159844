"""Child process of tests/operators/test_export_roundtrip.py's occlusion-material test (not a test module).

Usage: ``python occlusion_export_job.py FOLDER``: writes FOLDER/occluded.gltf (our sample with a
material that has an occlusion texture, which makes Blender's importer build its "glTF Material
Output" group), imports it with the add-on, exports it with ``export_scene.gltf_sqlerp`` to
FOLDER/out.gltf and prints one JSON line with the operator's result. The process ends with
os._exit (child_job.finish): Blender 4.2's bpy crashes at exit after its exporter has run.
"""

import base64
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.bpy_access import operator
from helpers.child_job import ROOT, finish, tool

SAMPLE = ROOT / "samples" / "sqlerp_arm.gltf"
# A 1 x 1 grey PNG.
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNoAAAAggCBd81ytgAAAABJRU5ErkJggg==")


def occluded_sample(folder):
    document = json.loads(SAMPLE.read_text())
    shutil.copy(SAMPLE.with_suffix(".bin"), folder / "sqlerp_arm.bin")
    document["images"] = [{"uri": "data:image/png;base64," + PNG}]
    document["textures"] = [{"source": 0}]
    document["materials"] = [{"name": "Occluded", "occlusionTexture": {"index": 0}}]
    primitive = document["meshes"][0]["primitives"][0]
    primitive["material"] = 0
    # A textured material needs texture coordinates (glTF-Validator: MESH_PRIMITIVE_TOO_FEW_TEXCOORDS).
    count = document["accessors"][primitive["attributes"]["POSITION"]]["count"]
    uv = bytes(8 * count)  # (0, 0) for every vertex
    document["buffers"].append({"byteLength": len(uv),
                                "uri": "data:application/octet-stream;base64," + base64.b64encode(uv).decode()})
    document["bufferViews"].append({"buffer": len(document["buffers"]) - 1, "byteLength": len(uv)})
    document["accessors"].append({"bufferView": len(document["bufferViews"]) - 1, "componentType": 5126,
                                  "count": count, "type": "VEC2"})
    primitive["attributes"]["TEXCOORD_0"] = len(document["accessors"]) - 1
    path = folder / "occluded.gltf"
    path.write_text(json.dumps(document))
    return path


def main(folder):
    fidelity = tool("tools/fidelity.py")
    import bpy
    fidelity.enable_addon()
    assert fidelity.import_gltf(str(occluded_sample(folder))) == {'FINISHED'}
    groups = sorted(g.name for g in bpy.data.node_groups)
    result = operator("export_scene.gltf_sqlerp")(filepath=str(folder / "out.gltf"))
    fidelity.disable_addon()
    print(json.dumps({"result": sorted(result), "node_groups": groups}))


if __name__ == "__main__":
    finish(lambda: main(Path(sys.argv[1])))
