#!/usr/bin/env python3
"""Peak memory of `pi-tool agent` against hostile model streams (issue 20, item 5).

A fake OpenAI-compatible server on 127.0.0.1 answers the first request of each scenario with an
attack and every later one with a short final answer; `pi-tool agent` runs against it, and the
peak RSS of the agent process (from wait4's rusage) and how the run ended are printed as a
Markdown table. Every loop of the server is bounded (bytes and seconds) and also stops when the
agent hangs up. Usage: scripts/memory-bounds.py PATH/TO/pi-tool  (scripts/memory-bounds.sh
builds the release binary and runs this).
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MIB = 1 << 20
# No scenario's server loop runs longer than this, whatever the agent does.
SERVER_LIMIT_SECONDS = 120
# Nor sends more than this.
SERVER_LIMIT_BYTES = 8 << 30


def chunk(delta, finish=None):
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return ("data: " + json.dumps({"choices": [choice]}) + "\n\n").encode()


def endless_text(write):
    piece = chunk({"content": "x" * (16 << 10)})
    sent, start = 0, time.monotonic()
    while sent < SERVER_LIMIT_BYTES and time.monotonic() - start < SERVER_LIMIT_SECONDS:
        write(piece)
        sent += len(piece)


def slow_text(write):
    start = time.monotonic()
    while time.monotonic() - start < SERVER_LIMIT_SECONDS:
        write(chunk({"content": "tick "}))
        time.sleep(0.2)


def keepalive_only(write):
    start = time.monotonic()
    while time.monotonic() - start < SERVER_LIMIT_SECONDS:
        write(b": keepalive\n\n")
        time.sleep(0.05)


def many_calls(calls, size):
    def send(write):
        piece = "x" * (64 << 10)
        for index in range(calls):
            start = {"index": index, "id": f"call_{index}", "type": "function",
                     "function": {"name": "echo", "arguments": '{"value":"'}}
            write(chunk({"tool_calls": [start]}))
            for _ in range(size // len(piece)):
                more = {"index": index, "function": {"arguments": piece}}
                write(chunk({"tool_calls": [more]}))
            write(chunk({"tool_calls": [{"index": index, "function": {"arguments": '"}'}}]}))
        write(chunk({}, "tool_calls"))
        write(b"data: [DONE]\n\n")
    return send


def one_call(name, arguments):
    """A response that makes one tool call (items 6 and 7: the tool, not the stream, is the
    attack)."""
    def send(write):
        call = {"index": 0, "id": "call_0", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}
        write(chunk({"tool_calls": [call]}))
        write(chunk({}, "tool_calls"))
        write(b"data: [DONE]\n\n")
    return send


def final_answer(write):
    write(chunk({"content": "done"}))
    write(chunk({}, "stop"))
    write(b"data: [DONE]\n\n")


class Server:
    """Answers request 1 with the attack, the rest with a final answer."""

    def __init__(self, attack):
        self.attack = attack
        self.requests = 0
        # The last request's body (when small): what the model was sent back.
        self.last_body = b""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # the body ends when the connection closes

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                remaining = length
                body = []
                while remaining > 0:
                    piece = self.rfile.read(min(remaining, 4 * MIB))
                    remaining -= len(piece)
                    if length <= 4 * MIB:
                        body.append(piece)
                server.last_body = b"".join(body)
                server.requests += 1
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                answer = server.attack if server.requests == 1 else final_answer
                try:
                    answer(self.wfile.write)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.port = self.http.server_address[1]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


def run(pi_tool, name, attack, flags, kept, session=False):
    """One scenario. The run writes no session unless `session` (then into a temporary
    directory, removed afterwards), so the figures are the agent's own."""
    with tempfile.TemporaryDirectory(prefix="pi-memory-bounds-") as sessions:
        where = ["--session-dir", sessions] if session else ["--no-session"]
        measure(pi_tool, name + (", session recorded" if session else ""), attack,
                flags, where, kept)


def with_tools(pi_tool, name, attack, flags, prepare=None, check=None):
    """A scenario whose model calls Pi's coding tools in a fresh directory: `prepare(dir)` lays
    out the files first, `check(dir)` says what the result looked like."""
    with tempfile.TemporaryDirectory(prefix="pi-memory-bounds-") as directory:
        if prepare:
            prepare(directory)
        # The tools must run as they did before approvals: nobody is there to ask.
        measure(pi_tool, name, attack, ["--coding-tools", directory, *flags],
                ["--no-session", "--approval", "full-auto"], 0,
                check=(lambda body: check(directory, body)) if check else None)


def measure(pi_tool, name, attack, flags, where, kept, check=None):
    server = Server(attack)
    command = [pi_tool, "agent", "--demo-tools", "--provider", "openai", "--model", "fake",
               "--base-url", f"http://127.0.0.1:{server.port}/v1", *where, *flags, "go"]
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = []
    reader = threading.Thread(target=lambda: stderr.append(child.stderr.read()), daemon=True)
    reader.start()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    reader.join(5)
    server.close()
    peak = usage.ru_maxrss * 1024  # KiB on Linux
    code = os.waitstatus_to_exitcode(status)
    lines = b"".join(stderr).decode(errors="replace").strip().splitlines()
    said = (lines[-1] if lines else "completed").replace("pi-tool: the run ended: ", "")
    if len(said) > 140:
        said = said[:137] + "..."
    ratio = f"{peak / kept:.1f}x" if kept else "-"
    if check:
        said = f"{said}; {check(server.last_body)}"
    shown = ["DIR" if flag.startswith(tempfile.gettempdir()) else flag for flag in flags]
    print(f"| {name} | {' '.join(shown) or '(defaults)'} | {peak / MIB:.0f} MiB | {ratio} "
          f"| {seconds:.1f} s | exit {code}, {said.replace('|', '/')} |", flush=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    pi_tool = sys.argv[1]
    print("| attack | flags | peak RSS | / bytes kept | time | outcome |")
    print("|---|---|---|---|---|---|")
    # "Bytes kept": what the run holds on purpose. With the limit raised, (b) runs every call:
    # the transcript then keeps 450 MiB of arguments and echo's 450 MiB of results.
    run(pi_tool, "(a) endless text, 16 KiB chunks", endless_text, [], 32 * MIB)
    run(pi_tool, "(a) endless text, 16 KiB chunks", endless_text,
        ["--max-response-bytes", "256MiB"], 256 * MIB)
    run(pi_tool, "(b) 30 calls x 15 MiB arguments", many_calls(30, 15 * MIB), [], 32 * MIB)
    run(pi_tool, "(b) 30 calls x 15 MiB arguments", many_calls(30, 15 * MIB),
        ["--max-response-bytes", "512MiB"], 900 * MIB)
    run(pi_tool, "(b) 30 calls x 15 MiB arguments", many_calls(30, 15 * MIB), [], 32 * MIB,
        session=True)
    run(pi_tool, "(c) `: keepalive` only, every 50 ms", keepalive_only,
        ["--idle-timeout", "3"], 0)
    run(pi_tool, "(d) one token every 200 ms, forever", slow_text,
        ["--response-timeout", "5"], 0)
    # Items 6 and 7: what a tool holds is what it shows, whatever the file or the output.
    with_tools(pi_tool, "(e) `read` limit 1 of a 2 GiB file", one_call(
        "read", {"path": "huge.log", "limit": 1}), [], prepare=sparse_file)
    with_tools(pi_tool, "(f) `edit` of /dev/zero", one_call(
        "edit", {"path": "/dev/zero", "edits": [{"oldText": "a", "newText": "b"}]}),
        ["--unconfined-file-tools"])
    with_tools(pi_tool, "(g) `bash` writing 1 GB fast, then a last line", one_call(
        "bash", {"command": "yes 0123456789 | head -c 1000000000; echo THE-LAST-LINE"}),
        ["--keep-output-files"], check=full_output)


def sparse_file(directory):
    with open(os.path.join(directory, "huge.log"), "wb") as file:
        file.write(b"first line\n")
        file.truncate(2 << 30)


def full_output(directory, body):
    """Whether the model was shown the real last line, and the newest full-output file's size
    (every byte kept?); the file is removed."""
    logs = [os.path.join(tempfile.gettempdir(), name) for name in os.listdir(tempfile.gettempdir())
            if name.startswith("pi-bash-") and name.endswith(".log")]
    if not logs:
        return "no full-output file"
    newest = max(logs, key=os.path.getmtime)
    size = os.path.getsize(newest)
    with open(newest, "rb") as file:
        file.seek(max(0, size - 14))
        last = file.read().decode(errors="replace").strip()
    os.remove(newest)
    shown = "the model read THE-LAST-LINE" if b"THE-LAST-LINE" in body else "last line NOT shown"
    return f"{shown}; full output {size:,} bytes, ends {last!r}"


if __name__ == "__main__":
    main()
