"""Judges our wire traffic with the official SDKs' own types.

Usage: sdk_check.py WIRE REQUESTS.json STREAM.sse [STREAM.sse ...]

- every request body we sent (a JSON array in REQUESTS.json) must validate as the SDK's request
  type for WIRE, and validation must keep every key we sent (a key the SDK type does not know is
  reported, although pydantic would silently ignore it);
- every event of each fake stream must validate as the SDK's stream event type, so the fakes
  our tests replay are streams the SDK itself reads.

WIRE: openai | openai-responses | anthropic | gemini. Prints one line per problem, then a
summary; exits 1 on any problem.
"""

import json
import sys

from pydantic import TypeAdapter


def unknown_keys(sent, kept, path="$"):
    """Keys present in `sent` that validation dropped from `kept`."""
    if isinstance(sent, dict) and isinstance(kept, dict):
        for key, value in sent.items():
            if key not in kept:
                yield f"{path}.{key}"
            else:
                yield from unknown_keys(value, kept[key], f"{path}.{key}")
    elif isinstance(sent, list) and isinstance(kept, list):
        for index, (a, b) in enumerate(zip(sent, kept)):
            yield from unknown_keys(a, b, f"{path}[{index}]")


def as_plain(value):
    """Pydantic models (Gemini's types) as dicts with the wire's camelCase keys."""
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    return value


def item_types(wire):
    """The request type, and the item type of each field the SDK types as an `Iterable`:
    pydantic validates those lazily (not at all here), so each item is validated on its own."""
    if wire == "openai":
        from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam
        from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming

        return CompletionCreateParamsStreaming, {
            "messages": ChatCompletionMessageParam,
            "tools": ChatCompletionToolUnionParam,
        }
    if wire == "openai-responses":
        from openai.types.responses import ToolParam
        from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

        return ResponseCreateParamsStreaming, {"tools": ToolParam}
    if wire == "anthropic":
        from anthropic.types import MessageParam, ToolUnionParam
        from anthropic.types.message_create_params import MessageCreateParamsStreaming

        return MessageCreateParamsStreaming, {"messages": MessageParam, "tools": ToolUnionParam}
    raise SystemExit(f"unknown wire {wire}")


def check_request(wire, body):
    if wire == "gemini":
        return list(check_gemini_request(body))
    params, items = item_types(wire)
    kept = TypeAdapter(params).validate_python(body)
    problems = [f"unknown key {key}" for key in unknown_keys(body, kept) if key.split(".")[1] not in items]
    for field, item_type in items.items():
        adapter = TypeAdapter(item_type)
        for index, item in enumerate(body.get(field, [])):
            kept_item = adapter.validate_python(item)
            problems.extend(
                f"unknown key {key}" for key in unknown_keys(item, kept_item, f"$.{field}[{index}]")
            )
    return problems


def check_gemini_request(body):
    from google.genai import types

    parts = {
        "systemInstruction": types.Content,
        "toolConfig": types.ToolConfig,
        "generationConfig": types.GenerationConfig,
    }
    for key, value in body.items():
        if key == "contents":
            for index, content in enumerate(value):
                kept = as_plain(types.Content.model_validate(content))
                for path in unknown_keys(content, kept, f"$.contents[{index}]"):
                    yield f"unknown key {path}"
        elif key == "tools":
            for index, tool in enumerate(value):
                kept = as_plain(types.Tool.model_validate(tool))
                for path in unknown_keys(tool, kept, f"$.tools[{index}]"):
                    yield f"unknown key {path}"
        elif key in parts:
            kept = as_plain(parts[key].model_validate(value))
            for path in unknown_keys(value, kept, f"$.{key}"):
                yield f"unknown key {path}"
        else:
            yield f"unknown key $.{key}"


def stream_events(path):
    """(event name, data) of each SSE event in a file written as the reference writes them."""
    name = None
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            line = line.rstrip("\n")
            if line.startswith("event:"):
                name = line[len("event:"):].strip()
            elif line.startswith("data:"):
                data = line[len("data:"):].strip()
                yield name, data
                name = None


def check_event(wire, name, data):
    if data == "[DONE]":
        return
    value = json.loads(data)
    if wire == "openai":
        from openai.types.chat import ChatCompletionChunk

        ChatCompletionChunk.model_validate(value)
    elif wire == "openai-responses":
        from openai.types.responses import ResponseStreamEvent

        TypeAdapter(ResponseStreamEvent).validate_python(value)
        if name is not None and name != value.get("type"):
            raise ValueError(f"event name {name} differs from type {value.get('type')}")
    elif wire == "anthropic":
        from anthropic.types import RawMessageStreamEvent

        if value.get("type") in ("ping", "error"):
            return
        if name is None:
            raise ValueError("the Anthropic SDK drops events without an `event:` line")
        TypeAdapter(RawMessageStreamEvent).validate_python(value)
    elif wire == "gemini":
        from google.genai import types

        types.GenerateContentResponse.model_validate(value)


def main():
    wire, requests_path, *streams = sys.argv[1:]
    problems = []
    with open(requests_path, encoding="utf-8") as handle:
        bodies = json.load(handle)
    for index, body in enumerate(bodies):
        try:
            for problem in check_request(wire, body):
                problems.append(f"request {index}: {problem}")
        except Exception as error:  # noqa: BLE001 - every failure is a finding
            problems.append(f"request {index}: {error}")
    events = 0
    for path in streams:
        for name, data in stream_events(path):
            events += 1
            try:
                check_event(wire, name, data)
            except Exception as error:  # noqa: BLE001
                problems.append(f"{path}: event {events}: {error}")
    for problem in problems:
        print(problem)
    print(f"{wire}: {len(bodies)} requests, {events} events, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
