"""Child process of the web players' and glTF-Transform's tests (not a test module itself): the
export benchmark's files.

``python three_export_job.py FOLDER [--rigs KEY,...] [CLIP ...]`` writes, with
``export_scene.gltf_sqlerp``, the files bench/bench_export.py measures for its keyed rigs (a1 to
a6, or the keys given: every fallback it exports; the 100-bone rig (c) takes minutes per export
and is checked by the benchmark itself), and the files
bench/bench_real_export.py measures for the named clips of ../shared/assets (imported with
Blender's bundled importer, exported with every fallback). The exports go through the benchmarks'
own code (bench/export_modes.py), so these are the same files. Prints one JSON line: the written
paths. Ends with os._exit (child_job.finish): Blender 4.2's bpy crashes at exit after an export.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers package
from helpers.child_job import finish, tool



def main(folder: Path, clips: list[str], rigs: set[str] | None = None) -> None:
    """The keyed rigs' files (only ``rigs`` when given: bench_export's keys) and the clips'."""
    modes = tool("bench/export_modes.py")
    bench = tool("bench/bench_export.py")
    keyed_rig = tool("tools/keyed_rig.py")
    real = tool("bench/bench_real_export.py")
    modes.rc.fidelity.enable_addon()
    clock, written = modes.FitClock(), []

    def export(name, fallback):
        path = folder / f"{name}_{fallback}.glb"
        modes.export(modes.Mode(f"ours {fallback}", "ours", fallback), path, clock)
        written.append(str(path))

    for rig in (r for r in bench.RIGS if r.keyed and (rigs is None or r.key in rigs)):
        modes.rc.fidelity.reset_scene()
        rig.build(keyed_rig)
        for fallback in rig.fallbacks:
            export(rig.key, fallback)
    sources = {source.name: source for source in modes.rc.find_clips(real.ASSETS)}
    for name in clips:
        modes.rc.import_clip(sources[name])
        for fallback in real.OURS:
            export(name, fallback)
    modes.rc.fidelity.disable_addon()
    print(json.dumps(written))


def _arguments(argv: list[str]) -> tuple[Path, list[str], set[str] | None]:
    folder, rest = Path(argv[0]), argv[1:]
    if rest[:1] == ["--rigs"]:
        return folder, rest[2:], set(rest[1].split(","))
    return folder, rest, None


if __name__ == "__main__":
    finish(lambda: main(*_arguments(sys.argv[1:])))
