#!/usr/bin/env python3
"""Peak memory of `pi-tool agent` against hostile model streams (issue 20, item 5).

A fake OpenAI-compatible server on 127.0.0.1 answers the first request of each scenario with an
attack and every later one with a short final answer; `pi-tool agent` runs against it, and the
peak RSS of the agent process (from wait4's rusage) and how the run ended are printed as a
Markdown table. Every loop of the server is bounded (bytes and seconds) and also stops when the
agent hangs up. Usage: scripts/memory-bounds.py PATH/TO/pi-tool  (scripts/memory-bounds.sh
builds the release binary and runs this).
"""

import glob
import json
import os
import re
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
    lines = outcome_lines(stderr)
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
    run(pi_tool, "(a) endless text, 16 KiB chunks", endless_text, [], 32 * MIB, session=True)
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
        ["--unconfined-file-tools", "--allow", "edit(/dev/zero)"])
    with_tools(pi_tool, "(g) `bash` writing 1 GB fast, then a last line", one_call(
        "bash", {"command": "yes 0123456789 | head -c 1000000000; echo THE-LAST-LINE"}),
        ["--keep-output-files"], check=full_output)
    # Issue 42: a response of 200,000 tiny calls (3 MB) took 273 s and 1.6 GB, quadratic.
    run(pi_tool, "(h) 200,000 tool calls in one 3 MB response", many_calls(200000, 0), [], 0)
    # A blocking read cut off by the time limit: the process exits, its transcript written.
    with_tools(pi_tool, "(i) `read` of a 1 TB sparse file", one_call(
        "read", {"path": "huge.log"}), ["--tool-timeout", "3"],
        prepare=lambda directory: sparse_file(directory, 1 << 40))
    sessions_and_tools(pi_tool)


def command_row(name, command, kept=0, env=None):
    """A scenario that is one `pi-tool` command (no model): its peak RSS, time and outcome."""
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env={**os.environ, **(env or {})})
    out = []
    err = []
    readers = [threading.Thread(target=lambda: out.append(count_bytes(child.stdout)), daemon=True),
               threading.Thread(target=lambda: err.append(child.stderr.read()), daemon=True)]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    for reader in readers:
        reader.join(5)
    peak = usage.ru_maxrss * 1024
    code = os.waitstatus_to_exitcode(status)
    lines = outcome_lines(err)
    said = lines[-1] if lines else "completed"
    said = re.sub(re.escape(tempfile.gettempdir()) + r"/pi-memory-bounds-[^ :]*", "FILE", said)
    if len(said) > 140:
        said = said[:137] + "..."
    size, tail = out[0] if out else (0, b"")
    said = f"{said}; {size:,} bytes on stdout"
    if size < 4096:
        said += ", ending " + repr(tail.decode(errors="replace").strip()[-110:])
    ratio = f"{peak / kept:.1f}x" if kept else "-"
    shown = " ".join("FILE" if part.startswith(tempfile.gettempdir()) else part
                     for part in command[1:])
    print(f"| {name} | `{shown}` | {peak / MIB:.0f} MiB | {ratio} | {seconds:.1f} s "
          f"| exit {code}, {said.replace('|', '/')} |", flush=True)


def count_bytes(stream):
    """How many bytes `stream` gave, and its last few."""
    total, tail = 0, b""
    while True:
        piece = stream.read(1 << 20)
        if not piece:
            return total, tail
        total += len(piece)
        tail = (tail + piece)[-512:]


def outcome_lines(chunks):
    """stderr's lines, less the start-up warning that bubblewrap is missing (said once on a
    machine without it, not an outcome)."""
    lines = b"".join(chunks).decode(errors="replace").strip().splitlines()
    return [line for line in lines if not line.startswith("pi-tool: bubblewrap is not installed")]


SESSION_HEADER = ('{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z",'
                  '"cwd":"/w"}\n')


def message_line(entry_id, parent):
    parent = "null" if parent is None else f'"{parent}"'
    return (f'{{"type":"message","id":"{entry_id}","parentId":{parent},'
            f'"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user",'
            f'"content":"branch {entry_id} {"x" * 200}","timestamp":1}}}}\n')


def nested_branches(path, count):
    """`count` levels, each with a branch that ends there and one that goes on (~12 MB at
    20,000): `session tree` printed 801 MB of indentation for it before depth was shown."""
    with open(path, "w") as file:
        file.write(SESSION_HEADER)
        parent = None
        for level in range(count):
            file.write(message_line(f"s{level}", parent))
            file.write(message_line(f"n{level}", parent))
            parent = f"n{level}"


def long_session_line(path, size):
    """A session whose second entry is one line of `size` bytes (a hole of zero bytes: no disk
    used) then a last entry."""
    with open(path, "wb") as file:
        file.write(SESSION_HEADER.encode())
        file.write(message_line("a", None).encode())
        start = file.tell()
        file.truncate(start + size)
        file.seek(start + size)
        file.write(b"\n" + message_line("b", "a").encode())


def one_line_file(directory, size=1 << 30):
    """`size` bytes of text on one line, a match at its end."""
    piece = b"a" * (1 << 20)
    with open(os.path.join(directory, "one-line.txt"), "wb") as file:
        for _ in range(size >> 20):
            file.write(piece)
        file.write(b" needle\n")


def sessions_and_tools(pi_tool):
    """The rows of issue 42 that are not a model's stream: a session's line and tree, grep."""
    with tempfile.TemporaryDirectory(prefix="pi-memory-bounds-") as directory:
        tree = os.path.join(directory, "nested.jsonl")
        nested_branches(tree, 20000)
        command_row(f"(k) `session tree` of 20,000 nested branches "
                    f"({os.path.getsize(tree) / 1e6:.0f} MB)",
                    [pi_tool, "session", "tree", tree], kept=os.path.getsize(tree))
        agent = os.path.join(directory, "agent")
        os.makedirs(os.path.join(agent, "sessions", "--w--"))
        long_line = os.path.join(agent, "sessions", "--w--", "long-line.jsonl")
        long_session_line(long_line, 1 << 30)
        command_row("(l) `session tree` of a session with a 1 GiB line",
                    [pi_tool, "session", "tree", long_line])
        command_row("(l) `session list --all` with that session among them",
                    [pi_tool, "session", "list", "--all"], env={"PI_CODING_AGENT_DIR": agent})
    with tempfile.TemporaryDirectory(prefix="pi-memory-bounds-") as directory:
        one_line_file(directory)
        command_row("(m) `grep` of a 1 GiB one-line file",
                    [pi_tool, "--coding-tools", directory, "call", "grep",
                     json.dumps({"pattern": "needle"})])


def sparse_file(directory, size=2 << 30):
    with open(os.path.join(directory, "huge.log"), "wb") as file:
        file.write(b"first line\n")
        file.truncate(size)


def full_output(directory, body):
    """Whether the model was shown the real last line, and the newest full-output file's size
    (every byte kept?); the file is removed."""
    # In the temporary directory, or in the shell's private one kept there (pi-bash-tmp-*).
    logs = glob.glob(os.path.join(tempfile.gettempdir(), "pi-bash-*.log")) + glob.glob(
        os.path.join(tempfile.gettempdir(), "pi-bash-tmp-*", "pi-bash-*.log"))
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
