"""An MCP client on the official Python SDK that leaves calls waiting for a person: it opens
SESSIONS sessions (2025-11-25) to URL, and in each makes CALLS `edit_file` calls at once whose
arguments take about BYTES bytes, declares form elicitation, and answers no form while the test
measures the server. Driven by toolkit-mcp-cli's waiting test (tests/waiting.rs).

    waiting.py URL SESSIONS CALLS BYTES

Once every call either waits on a form or was answered (refused), prints one line of JSON,
`{"forms": N, "answered": [{"text", "is_error"}]}`, then waits for a line on stdin and leaves,
which closes the sessions.
"""

import asyncio
import json
import sys

from mcp import Client


async def session(url, calls, size, forms, answered, settled):
    async def answer(context, params):
        forms.append(len(params.message))
        settled.release()
        # Nobody answers: the form stays open until the client leaves.
        await asyncio.Event().wait()

    async with Client(url, mode="legacy", elicitation_callback=answer) as client:

        async def one(number):
            arguments = {
                "path": "notes.txt",
                "edits": [{"old_text": "one", "new_text": f"{number}:" + "x" * size}],
            }
            result = await client.call_tool("edit_file", arguments)
            answered.append({"text": result.content[0].text, "is_error": result.is_error})
            settled.release()

        tasks = [asyncio.create_task(one(number)) for number in range(calls)]
        await asyncio.Event().wait()
        for task in tasks:
            task.cancel()


async def main():
    url, sessions, calls, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    forms, answered = [], []
    settled = asyncio.Semaphore(0)
    running = [
        asyncio.create_task(session(url, calls, size, forms, answered, settled))
        for _ in range(sessions)
    ]
    for _ in range(sessions * calls):
        await settled.acquire()
    print(json.dumps({"forms": len(forms), "answered": answered}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for task in running:
        task.cancel()


asyncio.run(main())
