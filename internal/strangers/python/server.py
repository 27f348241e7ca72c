"""A stranger's server for boundlab's auditor: the official Python MCP SDK
(the `mcp` package, 2.x's MCPServer, else 1.x's FastMCP) with two read-only
tools, over stdio or streamable HTTP on 127.0.0.1.

    python server.py stdio
    python server.py http PORT

Over HTTP it prints its URL as the first line on stdout ("stranger: MCP
streamable HTTP at URL") before the SDK starts listening; the caller waits
for the port to answer. Loopback only: the host is fixed.
"""

import sys

from mcp.types import ToolAnnotations

try:  # the SDK 2.x
    from mcp.server.mcpserver import MCPServer as Server

    V2 = True
except ImportError:  # the SDK 1.x
    from mcp.server.fastmcp import FastMCP as Server

    V2 = False

READ_ONLY = ToolAnnotations(readOnlyHint=True)


def build(port=None):
    if V2 or port is None:
        server = Server("stranger-python")
    else:
        server = Server("stranger-python", host="127.0.0.1", port=port)

    @server.tool(annotations=READ_ONLY)
    def lookup(key: str) -> str:
        """look a key up"""
        return "found nothing"

    @server.tool(annotations=READ_ONLY)
    def count(n: int, label: str = "") -> str:
        """count to n"""
        return "counted"

    return server


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "stdio":
        build().run("stdio")
        return
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        port = int(sys.argv[2])
        server = build(port)
        print(f"stranger: MCP streamable HTTP at http://127.0.0.1:{port}/mcp", flush=True)
        if V2:
            server.run("streamable-http", host="127.0.0.1", port=port)
        else:
            server.run("streamable-http")
        return
    print("usage: server.py stdio | server.py http PORT", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
