#!/usr/bin/env python3
"""Latency of an interactive program in a pseudo-terminal: keys to screen, and streamed tokens
from a model to screen.

usage: tty_latency.py MARKER MODELS_JSON ROUNDS -- COMMAND...   (environment passed through)

Serves a fake OpenAI Chat Completions endpoint on 127.0.0.1 (MODELS_JSON, Pi's models.json,
written before COMMAND starts: provider `local`, model `local-model` there), starts COMMAND on a 40x120 pseudo-terminal,
waits until MARKER (the footer) is in its output, then ROUNDS times:

- keys: types a unique three-letter word into the editor and times until the program has
  written it back (the key read, the frame drawn and written: an upper bound of one frame's
  time), twenty words a round, then clears the editor (Ctrl+U);
- tokens: sends a prompt; the server streams 12 unique words, 50 ms apart, each flushed at
  a time it records; each word is timed from that moment to its first appearance in the
  program's output (the same clock, one process).

Words are found in the raw bytes the program writes (a redraw of only the changed cells
writes a new word whole); the emulator is fed those bytes only after the round's tokens, so
its own time is not counted. Cursor position queries are answered as a terminal would. Prints one
JSON line: the key and token latencies in milliseconds (every sample) and how many tokens were
never seen. Kills the program.
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
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyte

TOKENS = 12
GAP_S = 0.05
sent = {}  # word -> monotonic time its chunk was flushed
lock = threading.Lock()
rounds_served = [0]


class Model(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        with lock:
            number = rounds_served[0]
            rounds_served[0] += 1
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def chunk(delta, finish=None):
            body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "local-model",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            self.wfile.write(b"data: " + json.dumps(body).encode() + b"\n\n")
            self.wfile.flush()

        chunk({"role": "assistant", "content": ""})
        for index in range(TOKENS):
            word = f"r{number:02d}w{index:02d}"
            # Recorded before the write: a fast program may draw it before a later record.
            with lock:
                sent[word] = time.monotonic()
            chunk({"content": word + " "})
            time.sleep(GAP_S)
        chunk({}, "stop")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def debug(text):
    if os.environ.get("TTY_LATENCY_DEBUG"):
        sys.stderr.write(f"{time.monotonic():.3f} {text}\n")


def main():
    marker = sys.argv[1].encode()
    models_json = sys.argv[2]
    rounds = int(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1:]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(models_json, "w") as out:
        json.dump({"providers": {"local": {
            "baseUrl": f"http://127.0.0.1:{server.server_address[1]}/v1",
            "api": "openai-completions", "apiKey": "none",
            "models": [{"id": "local-model", "contextWindow": 128000}]}}}, out)
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    output = bytearray()
    seen = {}  # word -> monotonic time first read
    screen = pyte.Screen(120, 40)
    stream = pyte.ByteStream(screen)
    emulate = [False]
    deferred = []

    def pump(timeout):
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return False
        try:
            data = os.read(fd, 65536)
        except OSError:
            raise SystemExit("the program ended")
        now = time.monotonic()
        for _ in range(data.count(b"\x1b[6n")):
            os.write(fd, b"\x1b[1;1R")
        # Keep a tail so a word split across two reads is still found.
        start = max(0, len(output) - 16)
        output.extend(data)
        window = bytes(output[start:])
        with lock:
            words = [word for word in sent if word not in seen]
        for word in words:
            if word.encode() in window:
                seen[word] = now
        if emulate[0]:
            stream.feed(data)
        else:
            # Fed after the tokens: emulating in this thread would delay the next read.
            deferred.append(data)
        pump.last = now
        return True

    pump.last = 0.0

    def wait_for(found, limit):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if found():
                return True
            pump(0.02)
        return found()

    if not wait_for(lambda: marker in output, 120):
        raise SystemExit("the footer never showed")
    # From here the screen is emulated (the viewport's cells are addressed absolutely), to
    # see a typed letter drawn: a redraw writes only the cell that changed.
    while pump(0.3):
        pass
    emulate[0] = True
    debug("footer shown")
    del output[:]
    keys_ms = []
    for round_number in range(rounds):
        typed_text = ""
        for index in range(20):
            letter = chr(97 + (index + round_number) % 26)
            typed_text += letter
            # Only the cells that change are drawn: the editor line's "› " was drawn before.
            wanted = " " + typed_text
            typed = time.monotonic()
            os.write(fd, letter.encode())
            if wait_for(lambda: any(line.rstrip().endswith(wanted) for line in screen.display), 10):
                keys_ms.append((pump.last - typed) * 1000)
            else:
                debug("not drawn: " + wanted + "\n" + "\n".join(screen.display))
            # Idle between keys, as a person types.
            time.sleep(0.03)
        debug(f"keys of round {round_number}: {len(keys_ms)}")
        os.write(fd, b"\x15")
        time.sleep(0.1)
        os.write(fd, f"say the words, round {round_number}\r".encode())
        emulate[0] = False
        last = f"r{round_number:02d}w{TOKENS - 1:02d}"
        wait_for(lambda: last in seen, 30)
        debug(f"tokens of round {round_number}: {len(seen)}")
        time.sleep(0.3)
        while pump(0.05):
            pass
        for data in deferred:
            stream.feed(data)
        del deferred[:]
        emulate[0] = True
        del output[:]
    with lock:
        pairs = [(word, at) for word, at in sent.items()]
    tokens_ms = [(seen[word] - at) * 1000 for word, at in pairs if word in seen]
    first_ms = [(seen[word] - at) * 1000 for word, at in pairs if word in seen and word.endswith("w00")]
    missing = sum(1 for word, _ in pairs if word not in seen)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    server.shutdown()
    print(json.dumps({"keys_ms": keys_ms, "tokens_ms": tokens_ms, "first_token_ms": first_ms,
                      "tokens_missing": missing}))


main()
