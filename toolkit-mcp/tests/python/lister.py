"""An MCP client on the official Python SDK that only lists the server's tools, driven by
toolkit-mcp's annotation tests.

    lister.py URL MODE

MODE is the SDK's (`legacy` for 2025-11-25 with a session, `2026-07-28` for the stateless
revision). The client declares form elicitation (declining any form), so a server with writers
offers them. Reads nothing useful from stdin. Prints one JSON document: `{"protocol_version",
"tools": [{"name", "title", "annotations"}]}`, the annotations as the server sent them (camelCase,
absent ones left out), `null` when there are none.
"""

import asyncio
import json
import sys

from mcp import Client, types


async def main():
    url, mode = sys.argv[1], sys.argv[2]
    json.load(sys.stdin)

    async def decline(context, params):
        return types.ElicitResult(action="decline")

    async with Client(url, mode=mode, elicitation_callback=decline) as client:
        listed = await client.list_tools()
        version = client.protocol_version
    tools = [
        {
            "name": tool.name,
            "title": tool.title,
            "annotations": None
            if tool.annotations is None
            else tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        for tool in listed.tools
    ]
    json.dump({"protocol_version": version, "tools": tools}, sys.stdout, indent=1, sort_keys=True)


asyncio.run(main())
