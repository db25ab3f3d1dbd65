"""A small server on the official MCP Python SDK, the peer of our MCP client.

Usage: python_server.py            (stdio)
       python_server.py --http PORT (streamable HTTP on 127.0.0.1:PORT, endpoint /mcp)
"""

import asyncio
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("python-peer")
calls = {"count": 0}


def counted() -> None:
    calls["count"] += 1


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    counted()
    return a + b


@server.tool()
def echo(value: str) -> str:
    """Echo one value (the load benchmark's tool)."""
    return value


@server.tool()
def greet(name: str, title: str = None, loud: bool = "false", times: int = 1) -> str:  # type: ignore[assignment]
    """Greet someone. The defaults are written as real servers write them: the SDK advertises
    `"title": {"default": null, "type": "string"}` and `"loud": {"default": "false", "type":
    "boolean"}`, defaults that break their own schema."""
    counted()
    greeting = " ".join(part for part in ["Hello", title, name] if part)
    if loud is True:
        greeting = greeting.upper()
    return ", ".join([greeting] * times)


@server.tool()
def shout(text: str) -> str:
    """Upper-case a text."""
    counted()
    return text.upper()


@server.tool()
def fail(message: str) -> str:
    """Always fails with the given message."""
    counted()
    raise ToolError(message)


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Report progress `steps` times."""
    counted()
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await asyncio.sleep(0.01)
    return f"{steps} steps"


@server.tool()
async def hang() -> str:
    """Never answers."""
    counted()
    await asyncio.sleep(3600)
    return "unreachable"


@server.tool()
def die() -> str:
    """Exits the server process at once."""
    os._exit(3)


@server.tool()
def call_count() -> int:
    """How many calls reached this server (die and call_count excluded)."""
    return calls["count"]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
