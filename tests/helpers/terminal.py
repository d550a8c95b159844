"""Running a command with its stderr on a pseudo-terminal, for tests of progress bars (not a test
module). POSIX only, as CI is."""

import os
import re
import subprocess
import sys


def on_a_terminal(launcher, *args):
    """Run ``launcher`` (pipeline_run.py) with stderr on a pseudo-terminal, as in a shell:
    (exit code, what the terminal showed)."""
    import pty
    main, side = pty.openpty()
    child = subprocess.Popen([sys.executable, str(launcher), *map(str, args)], stdout=subprocess.PIPE,
                             stderr=side, stdin=subprocess.DEVNULL)
    os.close(side)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    child.wait(timeout=300)
    os.close(main)
    return child.returncode, b"".join(chunks).decode("utf-8", "replace")


def bar_states(text):
    """The bar's fills, in the order drawn."""
    return [len(fill) for fill in re.findall(r"\[(#*)\.*\]", text)]
