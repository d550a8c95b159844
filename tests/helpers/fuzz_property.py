"""The fuzzer's property (tests/core/test_fuzz_core.py, bench/fuzz_campaign.py): ``run_case``
loads an input with ``core.load`` and does with the document what callers do, within a time and
memory bound; anything but a well-formed GltfError is an ``Escape``.
"""


class Escape(AssertionError):
    """The core broke its contract on an input: ``kind`` is 'exception', 'hang', 'memory' or
    'error-shape' (a GltfError without a usable code, pointer or message)."""

    def __init__(self, kind, detail, case):
        self.kind, self.detail, self.case = kind, detail, case
        super().__init__(f"{kind}: {detail}\n  input: {case!r}")


class _Hang(BaseException):
    """Raised by the interval timer; a BaseException, so no `except Exception` in the core eats it."""


MAX_POSED_ANIMATIONS = 8
EVAL_TIMES = (-1.0, 0.0, 0.25, 0.5, 1.0, 2.5, 1e6)


def exercise(document):
    """What callers do with a loaded file: every channel at a few times, with and without the
    fallback; poses and global matrices of every animation and of the rest pose; meshes of a few nodes."""
    for a, animation in enumerate(document.animations):
        duration = animation.duration
        times = list(EVAL_TIMES) + [duration, duration / 3]
        for channel in animation.channels:
            channel.evaluate(times)
            channel.evaluate(times, use_fallback=True)
        if a >= MAX_POSED_ANIMATIONS:
            continue  # a file of 2,500 copies of one clip: posing each is the harness's cost, not the core's
        for time in (0.0, duration / 2, duration + 1):
            document.pose(animation, time)
            document.node_matrices(animation, time, use_fallback=True)
    document.node_matrices(None, 0)
    nodes = document.json.get("nodes") if isinstance(document.json.get("nodes"), list) else []
    meshed = [i for i, node in enumerate(nodes) if isinstance(node, dict) and "mesh" in node][:3]
    for node in meshed:
        document.mesh_positions(node, 0 if document.animations else None, 0.5)


# Per input MB (main file and buffers), on top of the fixed limits: parsing JSON into Python
# objects takes up to ~15x the text (tracemalloc counts it), and tracing slows allocation-heavy
# validation up to ~7x (a 14 MB file of 250,000 channels: 3.4 s untraced, 23 s traced). So "bounded"
# means: a fixed amount plus a multiple of the input's own size, never of a length the file declares.
MEMORY_PER_INPUT_BYTE = 32
SECONDS_PER_INPUT_MB = 4.0


def run_case(core, case, folder, memory_limit_mb=256, time_limit_s=10.0):
    """Load ``case`` with ``core.load`` and exercise the document.

    Returns (outcome, peak_bytes, seconds): outcome is "ok", "GltfError:<code>" (load) or
    "eval:<code>" (GltfError while evaluating). Raises Escape when the contract is broken: another
    exception, more than ``time_limit_s`` (+ SECONDS_PER_INPUT_MB), a tracemalloc peak over
    ``memory_limit_mb`` (or MEMORY_PER_INPUT_BYTE x the input size, if larger)."""
    import signal
    import time
    import tracemalloc

    import shutil
    import tempfile

    # A fresh folder per input: a mutated URI must not find another input's leftover files.
    folder = tempfile.mkdtemp(dir=folder)
    path = case.write(folder)
    size = path.stat().st_size + sum(len(blob) for blob in case.files.values())
    time_limit_s += SECONDS_PER_INPUT_MB * size / 2**20
    memory_limit = max(memory_limit_mb * 2**20, MEMORY_PER_INPUT_BYTE * size)
    use_timer = hasattr(signal, "setitimer")
    alarm = []

    def on_alarm(signum, frame):
        alarm.append(True)  # raised inside a gc callback, _Hang is only printed: the flag stays
        raise _Hang()

    if use_timer:
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit_s)
    tracemalloc.start()
    started = time.perf_counter()
    stage = "load"
    try:
        try:
            document = core.load(path)
            stage = "eval"
            exercise(document)
            outcome = "ok"
        except core.GltfError as error:
            if not (isinstance(error.code, str) and error.code and isinstance(error.pointer, str)
                    and (error.pointer == "" or error.pointer.startswith("/"))
                    and isinstance(error.message, str) and error.message and str(error)):
                raise Escape("error-shape", f"{error.code!r} {error.pointer!r} {error.message!r}",
                             case) from error
            outcome = f"{'GltfError' if stage == 'load' else 'eval'}:{error.code}"
        except _Hang:
            raise Escape("hang", f"over {time_limit_s:.1f} s in {stage}", case) from None
        except Escape:
            raise
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            raise Escape("exception", f"{type(error).__name__} in {stage}: {error}"[:500], case) from error
    finally:
        seconds = time.perf_counter() - started
        if use_timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        shutil.rmtree(folder, ignore_errors=True)
    if alarm:
        raise Escape("hang", f"over {time_limit_s:.1f} s in {stage}", case)
    if peak > memory_limit:
        raise Escape("memory", f"peak {peak / 2**20:.1f} MB > {memory_limit / 2**20:.0f} MB "
                               f"({size} input bytes) in {stage}", case)
    return outcome, peak, seconds
