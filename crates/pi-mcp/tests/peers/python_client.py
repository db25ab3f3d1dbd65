"""The official MCP Python SDK as a client of `pi-tool serve --test-tools`.

Usage: python_client.py --stdio PI_TOOL_BINARY | --url http://127.0.0.1:PORT/mcp

Checks listing, calls, argument errors, unknown tools, progress, cancellation, a panicking tool
and many concurrent calls; prints one line per check and a closing "N passed, M failed" line;
exits non-zero if any check failed.
"""

import argparse
import sys

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

results: list[tuple[str, bool, str]] = []


def check(name: str, ok: bool, detail: str = "") -> None:
    results.append((name, ok, detail))
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}", flush=True)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def run_checks(session: ClientSession) -> None:
    await session.initialize()

    listed = await session.list_tools()
    names = [tool.name for tool in listed.tools]
    check("tools/list in registration order", names == ["echo", "uppercase", "slow", "explode", "pixel", "hang"], str(names))
    echo = listed.tools[0]
    check(
        "echo's inputSchema is the spec's",
        echo.input_schema
        == {
            "type": "object",
            "properties": {"value": {"type": "string"}},
            "required": ["value"],
            "additionalProperties": False,
        },
        str(echo.input_schema),
    )

    result = await session.call_tool("echo", {"value": "Pi", "ignored": "drop me"})
    check(
        "echo returns the spec's result",
        text_of(result) == "Pi" and not result.is_error and result.structured_content == {"source": "echo"},
        repr(result),
    )

    bad = await session.call_tool("echo", {"value": 1})
    check(
        "bad arguments are an isError result with the spec's text",
        bad.is_error and text_of(bad) == "Tool echo failed: 必须是 string",
        repr(bad),
    )

    try:
        await session.call_tool("missing", {})
        check("an unknown tool is a protocol error", False, "no error raised")
    except MCPError as error:
        check("an unknown tool is a protocol error", error.error.code == -32602, str(error))

    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    slow = await session.call_tool("slow", {"steps": 5}, progress_callback=on_progress)
    await anyio.sleep(0.2)
    check(
        "progress notifications arrive while a tool works",
        text_of(slow) == "done after 5 steps" and len(seen) >= 3 and seen == sorted(seen),
        f"{seen} {text_of(slow)!r}",
    )

    with anyio.move_on_after(0.3):
        await session.call_tool("slow", {"steps": 100000})
    after = await session.call_tool("uppercase", {"value": "still here"})
    check("a cancelled call leaves the server responsive", text_of(after) == "STILL HERE", repr(after))

    picture = await session.call_tool("pixel", {"value": "a pixel"})
    images = [block for block in picture.content if isinstance(block, types.ImageContent)]
    check(
        "image content arrives as MCP image content",
        text_of(picture) == "a pixel" and len(images) == 1 and images[0].mime_type == "image/png",
        repr(picture)[:200],
    )

    boom = await session.call_tool("explode", {"value": "exploded"})
    check(
        "a panicking tool is an isError result",
        boom.is_error and text_of(boom) == "Tool explode failed: exploded",
        repr(boom),
    )

    answers: dict[int, str] = {}

    async def one(index: int) -> None:
        reply = await session.call_tool("echo", {"value": f"v{index}"})
        answers[index] = text_of(reply)

    async with anyio.create_task_group() as group:
        for index in range(200):
            group.start_soon(one, index)
    check(
        "200 concurrent calls each get their own answer",
        all(answers.get(index) == f"v{index}" for index in range(200)),
        f"{len(answers)} answers",
    )


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stdio", help="the pi-tool binary to run as `serve --test-tools`")
    parser.add_argument("--url", help="a streamable HTTP endpoint")
    parser.add_argument("--token", help="the bearer token the endpoint wants")
    args = parser.parse_args()
    if args.stdio:
        server = StdioServerParameters(command=args.stdio, args=["serve", "--test-tools"])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await run_checks(session)
    elif args.url:
        import httpx2

        headers = {"Authorization": f"Bearer {args.token}"} if args.token else None
        http_client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0))
        async with http_client, streamable_http_client(args.url, http_client=http_client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await run_checks(session)
    else:
        parser.error("give --stdio or --url")
    failed = sum(1 for _, ok, _ in results if not ok)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
