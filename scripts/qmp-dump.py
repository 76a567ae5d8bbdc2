#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""qmp-dump.py SOCKET FILE: dump a QEMU guest's memory to FILE.

Through QEMU's monitor (QMP) on the Unix SOCKET: dump-guest-memory, an
ELF core of all the guest's RAM with its VMCOREINFO note, as drgn and
crash read it.  The guest is stopped while QEMU writes, and goes on after.
"""

import json
import os
import socket
import sys


def command(sock, reader, name, **arguments):
    """Send one QMP command and return its answer; events are skipped."""
    msg = {"execute": name}
    if arguments:
        msg["arguments"] = arguments
    sock.sendall(json.dumps(msg).encode() + b"\n")
    for line in reader:
        answer = json.loads(line)
        if "error" in answer:
            sys.exit(f"qmp-dump: {name}: {answer['error'].get('desc')}")
        if "return" in answer:
            return answer["return"]
    sys.exit(f"qmp-dump: QEMU closed the monitor during {name}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[0])
    path, out = sys.argv[1], os.path.abspath(sys.argv[2])
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        reader = sock.makefile("r")
        json.loads(reader.readline())  # the greeting
        command(sock, reader, "qmp_capabilities")
        command(sock, reader, "dump-guest-memory", paging=True,
                protocol="file:" + out)


if __name__ == "__main__":
    main()
