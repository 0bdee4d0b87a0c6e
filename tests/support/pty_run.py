"""Run a command in a pseudo-terminal of a given size and render what it
printed with pyte (a VT100 emulator), as a user's terminal would show it.

Usage: python3 pty_run.py ROWS COLS COMMAND [ARGS...]
Prints JSON: {"status": exit code, "raw": the bytes as latin-1 text,
"lines": the history then the screen, each row as shown,
"margins": the scroll region left set at the end, or null}.
"""

import json
import os
import pty
import struct
import fcntl
import termios
import sys

import pyte


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    command = sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    raw = b""
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        raw += chunk
    _, status = os.waitpid(pid, 0)
    screen = pyte.HistoryScreen(cols, rows, history=100000)
    stream = pyte.ByteStream(screen)
    stream.feed(raw)
    history = ["".join(line[x].data for x in range(cols)) for line in screen.history.top]
    lines = [l.rstrip() for l in history] + [l.rstrip() for l in screen.display]
    json.dump(
        {
            "status": os.waitstatus_to_exitcode(status),
            "raw": raw.decode("latin-1"),
            "lines": lines,
            "margins": list(screen.margins) if screen.margins else None,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
