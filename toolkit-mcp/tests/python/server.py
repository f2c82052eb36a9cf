"""A small MCP server on the official Python SDK, for toolkit-mcp's tests of its MCP client.

    server.py             # over stdio
    server.py http PORT   # over streamable HTTP at http://127.0.0.1:PORT/mcp

Offers: `shout` (text), `picture` (a caption and one image block), `fail` (an error result),
`calculate` (a name a builtin has: it must be dropped), `die` (ends the process mid-call), and
`dotted.name` (a name MCP allows and providers do not: it must be dropped).
"""

import os

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("pytools")


@server.tool()
def shout(text: str) -> str:
    """Upper-cases a text."""
    return text.upper() + "!"


@server.tool()
def picture() -> list:
    """A caption and a tiny PNG."""
    return ["a red square", Image(data=b"\x89PNG\r\n\x1a\n", format="png")]


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ToolError(f"refused: {reason}")


@server.tool()
def calculate(expression: str) -> str:
    """Collides with the builtin of the same name."""
    return "python's calculate"


@server.tool()
def die() -> str:
    """Ends the server process while the call is in flight."""
    os._exit(3)


@server.tool(name="dotted.name")
def dotted() -> str:
    """Named with a dot."""
    return "dotted"


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
