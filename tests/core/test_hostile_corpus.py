"""The hostile corpus (tools/hostile_corpus.py) through the core, without Blender.

For every case ``core.load`` must raise ``GltfError`` and nothing else (no IndexError, KeyError,
MemoryError, RecursionError, and no numpy RuntimeWarning either: those are turned into errors
here), within a time and memory bound, and the case's expected (code, JSON pointer) must be one of
the errors in ``error.findings``. "One of", not "the first": a broken file often has knock-on
errors (a NaN key time also breaks the declared max), and the order of findings follows the
validator's passes, which is not what a case is about.

The corpus is written once per module into a temporary folder; every case in its own sub-folder
(side files such as '../outside.bin' land beside them).
"""

import json
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import pytest
from helpers import tool

from gltf_sqlerp import core

ROOT = Path(__file__).resolve().parents[2]
TIME_LIMIT_S = 2.0
MEMORY_LIMIT_BYTES = 64 * 1024 * 1024


corpus = tool("tools/hostile_corpus.py")
CASES = corpus.CASES


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("hostile")


def _write(case, folder):
    try:
        return corpus.write_case(case, folder / case.name)
    except (OSError, NotImplementedError) as error:  # symlinks need privileges on Windows
        if corpus.has_symlink(case):
            pytest.skip(f"cannot create a symlink here: {error}")
        raise


def test_corpus_is_large_and_covers_every_area():
    assert len(CASES) >= 60
    assert len({c.name for c in CASES}) == len(CASES)
    tags = {t for c in CASES for t in c.tags}
    assert {"glb", "json", "types", "index", "size", "huge", "sparse", "times", "count", "sqlerp",
            "extensions", "nodes", "uri"} <= tags
    assert sum("huge" in c.tags for c in CASES) >= 5
    for c in CASES:
        assert c.code and c.code.upper() == c.code, c.name
        assert c.pointer == "" or c.pointer.startswith("/"), c.name


@pytest.mark.parametrize("kind", ["gltf", "glb"])
def test_the_base_file_is_valid(tmp_path, kind):
    """Control: every case is this file plus one defect, so the defect is what fails it."""
    document = core.load(corpus.write_base(tmp_path, kind))
    assert not document.warnings
    first = document.animations[0].channels[0]
    assert first.fallback is not None
    assert [first.sampler.interpolation, first.fallback.interpolation] == ["CUBICSLERP", "LINEAR"]
    assert len(document.animations[0].channels) == 4


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_file_fails_with_its_code_and_pointer(corpus_dir, case):
    path = _write(case, corpus_dir)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises(core.GltfError) as raised:
                core.load(path)
    finally:
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    error = raised.value
    found = [(f.code, f.pointer) for f in error.findings]
    assert (case.code, case.pointer) in found, f"{case.description}: {found[:8]}"
    assert seconds < TIME_LIMIT_S, f"{case.name} took {seconds:.2f} s"
    assert peak < MEMORY_LIMIT_BYTES, f"{case.name} allocated {peak / 1e6:.0f} MB"


@pytest.mark.parametrize("case", [c for c in CASES if "huge" in c.tags],
                         ids=[c.name for c in CASES if "huge" in c.tags])
def test_gigabyte_requests_fail_before_allocating(corpus_dir, case):
    """A few hundred bytes that ask for gigabytes: refused with well under a megabyte allocated."""
    path = _write(case, corpus_dir)
    assert path.stat().st_size < 4096
    tracemalloc.start()
    try:
        with pytest.raises(core.GltfError):
            core.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1024 * 1024, f"{case.name} allocated {peak / 1e6:.1f} MB"


def test_escaping_uris_point_at_files_that_exist(corpus_dir):
    """The '../' and symlink cases are refused for where they lead, not because nothing is there."""
    for name in ("uri_parent_folder", "uri_symlink_out", "uri_symlink_dir_out"):
        case = next(c for c in CASES if c.name == name)
        path = _write(case, corpus_dir)
        document = json.loads(path.read_text(encoding="utf-8"))
        target = path.parent / document["buffers"][0]["uri"]
        assert target.is_file(), name


def test_command_line_writes_every_case(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "hostile_corpus.py"), str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    expected = json.loads((tmp_path / "expected.json").read_text(encoding="utf-8"))
    assert list(expected) == [c.name for c in CASES + corpus.IMPORTER_CASES]
    for name, entry in expected.items():
        assert (tmp_path / entry["file"]).is_file() or (tmp_path / entry["file"]).is_symlink(), name
    assert (tmp_path / "_valid_base" / "base.gltf").is_file()
