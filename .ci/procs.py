"""What the CI scripts share: a free loopback port, stopping a process group, and scratch
directories that go when the script does."""

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile


def free_port():
    """A port nothing listens on now, on 127.0.0.1."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


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
