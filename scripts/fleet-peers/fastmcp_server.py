"""The peer of scripts/fleet-bench: the tool hash_text served by FastMCP (PyPI fastmcp==4.1.6)
the way its docs run a server over HTTP: ``mcp.run(transport="http", host=..., port=...)``,
streamable HTTP on /mcp with FastMCP's defaults (stateful sessions, replies as SSE, Uvicorn's
INFO log). Usage: python fastmcp_server.py PORT
"""

import hashlib
import sys

from fastmcp import FastMCP

mcp = FastMCP("fleet-peer-fastmcp")


@mcp.tool
def hash_text(text: str) -> str:
    """Computes the hex digest of a text's UTF-8 bytes."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


if __name__ == "__main__":
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: python fastmcp_server.py PORT")
    mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]))
