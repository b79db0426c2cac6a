"""What the CI scripts share: a free loopback port, waiting for a process to listen,
stopping a process group, and scratch directories that go when the script does."""

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    """A port nothing listens on now, on 127.0.0.1."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for_port(port, proc, what, seconds=30):
    """Returns once something listens on 127.0.0.1:`port`; ends the script, saying so, when
    `proc` exits first or `seconds` pass."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc.poll() is not None:
            sys.exit(f"{what} exited ({proc.returncode}) before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"{what} is not listening on {port} after {seconds} s")


def stop(proc):
    """Ends a process started with start_new_session=True, and its children."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def scratch_dir(prefix):
    """A new directory under the system's temporary one, removed with all it holds when the
    script exits (a run leaves no databases or records behind in /tmp)."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
