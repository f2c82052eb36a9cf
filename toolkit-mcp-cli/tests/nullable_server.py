"""A stdio MCP server of one tool whose schema has a nullable type array: the MCP Inspector's
--strict check must warn about it (the control of inspector_strict.rs)."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "nullable", "version": "0"},
        }
    elif message["method"] == "tools/list":
        schema = {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}
        result = {"tools": [{"name": "t", "description": "d", "inputSchema": schema}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
