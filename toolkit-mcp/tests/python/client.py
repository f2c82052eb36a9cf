"""An MCP client on the official Python SDK, driven by toolkit-mcp's tests.

    client.py stdio RAW_LOG COMMAND [ARG...]   # start the server, tee its stdout to RAW_LOG
    client.py http URL [MODE]                  # MODE: auto (default), legacy, or a version

MODE is the SDK's: `auto` asks `server/discover` and falls back to the initialize handshake,
`legacy` uses the handshake (2025-11-25 and before), a version such as `2026-07-28` speaks it
without asking.

The stdio server gets the variable TOOLKIT_MCP_TEST_SERVE=stdio (a test binary that is its own
server reads it) and nothing else from the environment but what the SDK passes on.

Lists the server's tools, then makes the calls read as JSON from stdin
(`[{"name": ..., "arguments": {...}, "progress": true}, ...]`, or `{"log_level": "info", "calls":
[...]}` to ask for log lines at or above a level), and prints one JSON document:
`{"protocol_version", "tools": [{"name", "description", "input_schema"}], "calls": [{"name",
"content", "is_error", "structured_content", "meta", "progress", "logs"}]}`, where `content` is
the reply's blocks as sent, `progress` the progress notifications of a call made with
`"progress": true` (`[progress, total, message]` each), `logs` the log notifications that came
while the call was made (`[level, logger, data]` each), and `protocol_version` the revision the
client and server agreed on.
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
    given = json.load(sys.stdin)
    calls = given["calls"] if isinstance(given, dict) else given
    log_level = given.get("log_level") if isinstance(given, dict) else None
    mode = sys.argv[3] if sys.argv[1] == "http" and len(sys.argv) > 3 else "auto"
    logs = []

    async def logged(params):
        logs.append([params.level, params.logger, params.data])

    async with Client(server_for(sys.argv), mode=mode, logging_callback=logged, log_level=log_level) as client:
        if log_level is not None and client.protocol_version != "2026-07-28":
            # Before 2026-07-28, a session asks for log lines once.
            await client.set_logging_level(log_level)
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
            progress = []

            async def progressed(done, total, message, progress=progress):
                progress.append([done, total, message])

            del logs[:]
            callback = progressed if call.get("progress") else None
            result = await client.call_tool(call["name"], call["arguments"], progress_callback=callback)
            if log_level is not None and client.protocol_version != "2026-07-28":
                # A session's log lines come on its own stream, in no order with the reply.
                await asyncio.sleep(0.3)
            replies.append(
                {
                    "name": call["name"],
                    "content": [block.model_dump(mode="json", exclude_none=True) for block in result.content],
                    "is_error": result.is_error,
                    "structured_content": result.structured_content,
                    "meta": result.meta,
                    "progress": progress,
                    "logs": list(logs),
                }
            )
        version = client.protocol_version
    json.dump({"protocol_version": version, "tools": tools, "calls": replies}, sys.stdout, indent=1, sort_keys=True)


asyncio.run(main())
