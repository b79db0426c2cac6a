"""What the CI scripts share: a free loopback port, and stopping a process group."""

import os
import signal
import socket
import subprocess


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
