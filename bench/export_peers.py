"""The pinned peers of the export benchmarks (bench/bench_real_export.py, bench/bench_export.py):
gltfpack and glTF-Transform, pinned by bench/peers/package.json and its lock file and installed on
first use into .node-peers/ with `npm ci` (Node.js 18+ and npm on PATH). No bpy needed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PEERS_SPEC = [ROOT / "bench" / "peers" / name for name in ("package.json", "package-lock.json")]
PEERS_FOLDER = ROOT / ".node-peers"
PEERS = {  # row label -> (executable in node_modules/.bin, arguments given input and output)
    "gltfpack": ("gltfpack", lambda src, dst: ["-i", src, "-o", dst]),
    "glTF-Transform": ("gltf-transform", lambda src, dst: ["resample", src, dst]),
}
PEER_TIMEOUT = 600


def ensure_peers() -> Path:
    """Install the pinned peers into .node-peers/ unless there already (a hash stamp of the spec
    files, as dev.py does for the validator); return its node_modules/.bin. Raises RuntimeError."""
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        raise RuntimeError("Node.js and npm are not on PATH")
    digest = hashlib.sha256()
    for path in PEERS_SPEC:
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
    stamp, modules = PEERS_FOLDER / "peers.sha256", PEERS_FOLDER / "node_modules"
    if stamp.exists() and stamp.read_text().strip() == digest.hexdigest():
        return modules / ".bin"
    print(f"installing the pinned peers into {PEERS_FOLDER.name}/ with npm ci ...", flush=True)
    stamp.unlink(missing_ok=True)  # written only after a complete install
    PEERS_FOLDER.mkdir(exist_ok=True)
    for path in PEERS_SPEC:
        (PEERS_FOLDER / path.name).write_bytes(path.read_bytes())
    done = subprocess.run([npm, "ci", "--prefix", str(PEERS_FOLDER), "--no-audit", "--no-fund"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"npm ci failed: {(done.stderr or done.stdout).strip()[-300:]}")
    stamp.write_text(digest.hexdigest() + "\n")
    return modules / ".bin"


def run_peer(bin_dir: Path, label: str, source: Path, output: Path) -> None:
    """One peer on one file; raises RuntimeError with the peer's own message."""
    executable, arguments = PEERS[label]
    found = shutil.which(executable, path=str(bin_dir))  # .cmd on Windows
    if found is None:
        raise RuntimeError(f"{executable} is not in {bin_dir}")
    done = subprocess.run([found, *arguments(str(source), str(output))], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=PEER_TIMEOUT)
    if done.returncode != 0 or not output.is_file():
        message = " ".join((done.stderr or done.stdout).split())[-300:]
        raise RuntimeError(f"exit code {done.returncode}: {message}")



def pinned_peers() -> str:
    pins = json.loads(PEERS_SPEC[0].read_text())["dependencies"]
    return ", ".join(f"{name} {version}" for name, version in pins.items())



def ensure_peers_or_reason() -> Path | str:
    """The peers' bin folder, or why they cannot run (every peer row then says so)."""
    try:
        return ensure_peers()
    except (OSError, RuntimeError) as error:
        print(f"peers unavailable: {error}", flush=True)
        return f"peers unavailable: {error}"

