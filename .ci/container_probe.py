"""Runs the image's own command in its own filesystem, as its own user, and talks to it.

Usage: container_probe.py ROOT USER WORKDIR COMMAND...

`podman run` cannot start a container on every machine CI runs on (where root may not
raise a process's limits, crun refuses), so .ci/container runs what `docker run IMAGE`
would: the image's entrypoint and command, chrooted into a copy of the image's root, as
the image's user, from its working directory. .ci/container calls this inside a network
namespace of its own, so the image's 0.0.0.0 ports are reachable from here alone.

Checks: the CSA port answers a login, the HTTP API answers GET /api/health, SIGTERM stops
the server cleanly (exit 0) within 30 s, and the database was written in the data
directory, owned by the image's user.
"""

import json
import os
import signal
import socket
import subprocess
import sys

from procs import wait_for_port

ROOT, USER, WORKDIR, *COMMAND = sys.argv[1:]
DEADLINE_S = 60


def read_until(sock, marker):
    """What the server sent, up to and including `marker` (bounded)."""
    got = b""
    while marker.encode() not in got:
        chunk = sock.recv(4096)
        if not chunk or len(got) > 1 << 20:
            sys.exit(f"no {marker!r} from the server; it said {got!r}")
        got += chunk
    return got.decode()


uid, gid = USER.split(":")
server = subprocess.Popen(
    ["chroot", f"--userspec={uid}:{gid}", ROOT, "/bin/sh", "-c", 'cd "$0" && exec "$@"', WORKDIR, *COMMAND]
)
try:
    wait_for_port(4081, server, "the image's server", DEADLINE_S)
    csa = socket.create_connection(("127.0.0.1", 4081), timeout=10)
    csa.sendall(b"LOGIN probe secret\n")
    said = read_until(csa, "\n")
    assert said.startswith("LOGIN:probe OK"), said
    csa.sendall(b"LOGOUT\n")
    csa.close()
    print("the CSA port (4081):", said.strip())

    wait_for_port(8080, server, "the image's server", DEADLINE_S)
    http = socket.create_connection(("127.0.0.1", 8080), timeout=10)
    http.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: close\r\n\r\n")
    answer = b""
    while chunk := http.recv(65536):
        answer += chunk
    head, _, body = answer.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 200"), head
    print("the HTTP API (8080): GET /api/health ->", json.dumps(json.loads(body))[:120])
finally:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        code = server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        sys.exit("the server did not stop within 30 s of SIGTERM")
assert code == 0, f"the server exited {code} on SIGTERM"
print("SIGTERM: the server stopped, exit 0")

data = os.path.join(ROOT, WORKDIR.lstrip("/"))
files = sorted(os.listdir(data))
db = os.path.join(data, "gyoku.sqlite3")
assert os.path.isfile(db), f"no database in {WORKDIR}: {files}"
st = os.stat(db)
assert (str(st.st_uid), str(st.st_gid)) == (uid, gid), (st.st_uid, st.st_gid)
print(f"{WORKDIR}: {', '.join(files)} (owned by {uid}:{gid})")
