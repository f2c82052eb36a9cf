"""An MCP client on the official Python SDK that answers the server's elicitation forms, driven by
toolkit-mcp's approval tests.

    approver.py URL MODE

MODE is the SDK's (`legacy` for 2025-11-25 with a session, `2026-07-28` for the stateless
revision). Reads `{"calls": [{"name", "arguments"}], "answers": [...]}` from stdin. The client
declares form elicitation; each form the server sends is answered with the next answer, in order:
`{"action": "accept", "content": {...}}`, `{"action": "decline"}`, `{"action": "cancel"}`,
`{"sleep": SECONDS, "then": ANSWER}` to answer only after that long, or `{"call": {"name",
"arguments"}, "then": ANSWER}` to make that call in the same session while the form is open (what
the model may do meanwhile), then answer; its reply is in `"meanwhile"`; or `{"write": {"path",
"text"}, "then": ANSWER}` to write that file while the form is open (another writer), then answer. Lists the tools, makes the
calls in order, and prints one JSON document: `{"protocol_version", "tools": [names], "forms":
[{"message", "schema"}], "calls": [{"name", "content", "is_error"}], "meanwhile": [...]}`.
"""

import asyncio
import json
import sys

from mcp import Client, types


async def main():
    url, mode = sys.argv[1], sys.argv[2]
    script = json.load(sys.stdin)
    answers = list(script["answers"])
    forms = []
    meanwhile = []
    session = []

    async def answer(context, params):
        forms.append(
            {
                "message": params.message,
                "schema": params.requested_schema,
            }
        )
        if not answers:
            return types.ElicitResult(action="cancel")
        given = answers.pop(0)
        if "sleep" in given:
            await asyncio.sleep(given["sleep"])
            given = given["then"]
        if "write" in given:
            with open(given["write"]["path"], "w", encoding="utf-8") as file:
                file.write(given["write"]["text"])
            given = given["then"]
        if "call" in given:
            result = await session[0].call_tool(given["call"]["name"], given["call"]["arguments"])
            meanwhile.append(reply(given["call"]["name"], result))
            given = given["then"]
        return types.ElicitResult(action=given["action"], content=given.get("content"))

    def reply(name, result):
        return {
            "name": name,
            "content": [block.model_dump(mode="json", exclude_none=True) for block in result.content],
            "is_error": result.is_error,
        }

    async with Client(url, mode=mode, elicitation_callback=answer) as client:
        session.append(client)
        listed = await client.list_tools()
        calls = []
        for call in script["calls"]:
            result = await client.call_tool(call["name"], call["arguments"])
            calls.append(reply(call["name"], result))
        version = client.protocol_version
    json.dump(
        {
            "protocol_version": version,
            "tools": [tool.name for tool in listed.tools],
            "forms": forms,
            "calls": calls,
            "meanwhile": meanwhile,
        },
        sys.stdout,
        indent=1,
        sort_keys=True,
    )


asyncio.run(main())
