#!/usr/bin/env python3
"""Time from start to a ready prompt of an interactive program in a pseudo-terminal.

usage: tty_ready.py MARKER -- COMMAND...   (environment passed through)

Starts COMMAND on a 40x120 pseudo-terminal read through a terminal emulator (pyte: a program
that redraws only the cells that changed writes a token a letter at a time), waits until MARKER
(the program's footer) is on the screen, then types a unique token and waits until the program
itself has drawn it (by
then it reads keys in raw mode: a terminal's own echo of early keys is not counted, since the
token is typed only after the marker, and again every 0.2 s until it is drawn). Cursor position queries are answered as a terminal
would. Prints one JSON line: seconds to the marker, seconds to
the token, and the program's peak resident memory (from /proc while it runs). Kills the program.
"""
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import fcntl
import time

import pyte

TOKEN = "zq7zq"


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    marker = sys.argv[1].encode()
    command = sys.argv[sys.argv.index("--") + 1:]
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    screen = pyte.Screen(120, 40)
    stream = pyte.ByteStream(screen)
    marker_at = token_at = None
    raw = b""
    peak = 0
    deadline = started + 120
    typed_at = None
    while time.monotonic() < deadline and token_at is None:
        ready, _, _ = select.select([fd], [], [], 0.02)
        peak = max(peak, peak_rss_kib(pid))
        # A program may drop keys typed before it reads them (raw mode flushes the input):
        # the token is typed again until it is drawn.
        if typed_at is not None and time.monotonic() - typed_at > 0.2:
            os.write(fd, TOKEN.encode())
            typed_at = time.monotonic()
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        # A terminal answers a cursor position query (an inline view asks where it starts).
        for _ in range(chunk.count(b"\x1b[6n")):
            os.write(fd, b"\x1b[1;1R")
        now = time.monotonic()
        if marker_at is None:
            # The footer is found in the raw bytes (an emulator in Python would add its own
            # time to the program's); the screen is emulated only from then on, which is
            # enough to see the token a redraw places letter by letter.
            raw = (raw + chunk)[-65536:]
            if marker in raw:
                marker_at = now - started
                os.write(fd, TOKEN.encode())
                typed_at = now
        else:
            stream.feed(chunk)
            if TOKEN in "\n".join(screen.display):
                token_at = now - started
    if os.environ.get("TTY_READY_DEBUG"):
        sys.stderr.write("\n".join(screen.display) + "\n")
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    print(json.dumps({"marker_s": marker_at, "ready_s": token_at, "peak_mib": peak / 1024}))


main()
