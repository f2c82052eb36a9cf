"""An MCP server of the revisions before 2026-07-28, over stdio, written without an SDK: it knows
the initialize handshake and nothing of `server/discover`, as servers built on older SDKs do.

Answers `initialize` with 2025-11-25, `tools/list` with one tool, `legacy_echo` (its `text`
back), `tools/call` of it, and `ping`; any other request gets the JSON-RPC error -32601.
"""

import json
import sys

TOOL = {
    "name": "legacy_echo",
    "description": "Says the text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}


def answer(message):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "legacy", "version": "1"},
            }
        }
    if method == "tools/list":
        return {"result": {"tools": [TOOL]}}
    if method == "tools/call" and params.get("name") == "legacy_echo":
        text = (params.get("arguments") or {}).get("text", "")
        return {"result": {"content": [{"type": "text", "text": f"legacy: {text}"}]}}
    if method == "ping":
        return {"result": {}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue  # a notification
    reply = {"jsonrpc": "2.0", "id": message["id"], **answer(message)}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
