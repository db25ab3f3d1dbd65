"""Drives `pi-tool acp` with the Python `agent-client-protocol` SDK, as an editor would, against
the scripted model the Rust test serves. Usage: python py-client-session.py WORK_DIR, with
PI_TOOL_BIN (our binary) and PI_CODING_AGENT_DIR (its models.json names the fake) set.

The scenario: initialize; a new session; a `write` that asks permission (allowed once), one
that is rejected, a turn cancelled while `bash` runs; then a second process loads the session
and replays it. The SDK parses every message with its pydantic schema models; this script
checks the turns and prints what it saw as one JSON object.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION, text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse
from acp.stdio import spawn_agent_process

WORK = Path(sys.argv[1])
BIN = os.environ["PI_TOOL_BIN"]
# The SDK starts an agent with a minimal environment: ours needs PI_CODING_AGENT_DIR.
ENV = dict(os.environ)


class Editor:
    """The client side: records updates and answers permission requests as scripted."""

    def __init__(self):
        self.updates = []
        self.permissions = []
        self.answers = []
        self.running = asyncio.Event()

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append(
            {"sessionId": session_id, "toolCallId": tool_call.tool_call_id, "kinds": [o.kind for o in options]}
        )
        assert self.answers, f"an unscripted permission request for {tool_call.tool_call_id}"
        option_id = self.answers.pop(0)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))

    async def session_update(self, session_id, update, **kwargs):
        seen = update.model_dump(by_alias=True, exclude_none=True, mode="json")
        self.updates.append(seen)
        if seen.get("sessionUpdate") == "tool_call_update" and seen.get("status") == "in_progress":
            if seen.get("toolCallId") == "call_bash_1":
                self.running.set()


def kinds(updates):
    return [update["sessionUpdate"] for update in updates]


def text(updates, kind):
    return "".join(u["content"]["text"] for u in updates if u["sessionUpdate"] == kind)


async def main():
    editor = Editor()
    async with spawn_agent_process(editor, BIN, "--sandbox", "landlock", "acp", cwd=str(WORK), env=ENV) as (conn, _process):
        init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        assert init.protocol_version == 1
        assert init.agent_capabilities.load_session is True
        session = await conn.new_session(cwd=str(WORK), mcp_servers=[])
        session_id = session.session_id
        assert session.modes.current_mode_id == "ask"

        editor.answers.append("allow_once")
        start = len(editor.updates)
        done = await conn.prompt(session_id=session_id, prompt=[text_block("Write the notes")])
        turn1 = editor.updates[start:]
        assert done.stop_reason == "end_turn", done
        assert (WORK / "notes.txt").read_text() == "milk, eggs, bread"
        assert editor.permissions[0]["toolCallId"] == "call_write_1"
        assert editor.permissions[0]["kinds"] == ["allow_once", "allow_always", "reject_once", "reject_always"]
        call = next(u for u in turn1 if u["sessionUpdate"] == "tool_call")
        assert call["kind"] == "edit" and call["title"] == "Write notes.txt", call
        diff = next(block for block in call["content"] if block["type"] == "diff")
        assert diff["oldText"] == "milk, eggs" and diff["newText"] == "milk, eggs, bread", diff
        assert text(turn1, "agent_message_chunk") == "Written."

        editor.answers.append("reject_once")
        start = len(editor.updates)
        done = await conn.prompt(session_id=session_id, prompt=[text_block("Write it again")])
        turn2 = editor.updates[start:]
        assert done.stop_reason == "end_turn", done
        assert (WORK / "notes.txt").read_text() == "milk, eggs, bread"
        failed = [u for u in turn2 if u.get("status") == "failed"]
        assert [u["toolCallId"] for u in failed] == ["call_write_2"], turn2

        editor.answers.append("allow_once")
        start = len(editor.updates)
        slow = asyncio.create_task(conn.prompt(session_id=session_id, prompt=[text_block("Run the slow thing")]))
        await asyncio.wait_for(editor.running.wait(), 20)
        await conn.cancel(session_id=session_id)
        done = await asyncio.wait_for(slow, 20)
        turn3 = editor.updates[start:]
        assert done.stop_reason == "cancelled", done
        answered = [u for u in turn3 if u.get("toolCallId") == "call_bash_1" and u.get("status") in ("completed", "failed")]
        assert len(answered) == 1, turn3

    replayer = Editor()
    async with spawn_agent_process(replayer, BIN, "--sandbox", "landlock", "acp", cwd=str(WORK), env=ENV) as (conn, _process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        await conn.load_session(cwd=str(WORK), session_id=session_id, mcp_servers=[])
        # Notifications are handled in tasks: give the last ones a moment to land.
        await asyncio.sleep(0.2)
    replayed = replayer.updates
    assert text(replayed, "user_message_chunk") == "Write the notesWrite it againRun the slow thing", replayed
    calls = [u["toolCallId"] for u in replayed if u["sessionUpdate"] == "tool_call"]
    assert calls == ["call_write_1", "call_write_2", "call_bash_1"], calls

    print(
        json.dumps(
            {
                "sessionId": session_id,
                "turn1": kinds(turn1),
                "turn2": kinds(turn2),
                "turn3": kinds(turn3),
                "replay": kinds(replayed),
                "permissions": editor.permissions,
            }
        )
    )


asyncio.run(main())
