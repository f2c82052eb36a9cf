"""An MCP client on the official Python SDK, driven by toolkit-mcp's tests.

    client.py stdio RAW_LOG COMMAND [ARG...]   # start the server, tee its stdout to RAW_LOG
    client.py http URL [MODE]                  # MODE: auto (default), legacy, or a version

MODE is the SDK's: `auto` asks `server/discover` and falls back to the initialize handshake,
`legacy` uses the handshake (2025-11-25 and before), a version such as `2026-07-28` speaks it
without asking.

The stdio server gets the variable TOOLKIT_MCP_TEST_SERVE=stdio (a test binary that is its own
server reads it) and nothing else from the environment but what the SDK passes on.

Lists the server's tools, then makes the calls read as JSON from stdin
(`[{"name": ..., "arguments": {...}}, ...]`), and prints one JSON document:
`{"protocol_version", "tools": [{"name", "description", "input_schema"}], "calls": [{"name",
"content", "is_error", "structured_content", "meta"}]}`, where `content` is the reply's blocks as
sent and `protocol_version` the revision the client and server agreed on.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


def server_for(argv):
    mode = argv[1]
    if mode == "stdio":
        raw_log, command = argv[2], argv[3:]
        # `tee` keeps every byte the server writes to its stdout, for the test to inspect.
        return StdioServerParameters(
            command="sh",
            args=["-c", '"$@" | tee "$0"', raw_log, *command],
            env={"TOOLKIT_MCP_TEST_SERVE": "stdio"},
        )
    if mode == "http":
        return argv[2]
    raise SystemExit(f"unknown mode {mode!r}")


async def main():
    calls = json.load(sys.stdin)
    mode = sys.argv[3] if sys.argv[1] == "http" and len(sys.argv) > 3 else "auto"
    async with Client(server_for(sys.argv), mode=mode) as client:
        listed = await client.list_tools()
        tools = [
            {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.input_schema,
            }
            for tool in listed.tools
        ]
        replies = []
        for call in calls:
            result = await client.call_tool(call["name"], call["arguments"])
            replies.append(
                {
                    "name": call["name"],
                    "content": [block.model_dump(mode="json", exclude_none=True) for block in result.content],
                    "is_error": result.is_error,
                    "structured_content": result.structured_content,
                    "meta": result.meta,
                }
            )
        version = client.protocol_version
    json.dump({"protocol_version": version, "tools": tools, "calls": replies}, sys.stdout, indent=1, sort_keys=True)


asyncio.run(main())
