# boundlab pyserver: the seed's (ADR-0031's) server shape, run for real. An
# MCPServer (the Python MCP SDK, 2.x) behind its own streamable HTTP app under
# uvicorn, on 127.0.0.1, one port the kernel picks, printed on stdout's first
# line. argv: MODE SCHEMA CAP
#   MODE    gate   the seed's ServerMiddleware seat holds the seed's checks in
#                  its order: the node bound, the rendered-character charge
#                  (_rendered_width), then jsonschema over the published schema;
#                  a refusal names the bound, never the value
#           plain  no middleware: the SDK alone
#   SCHEMA  refuse the published knowledge.search schema (query maxLength 2000)
#           accept the same with maxLength lifted (valid bodies render nothing)
#   CAP     max_request_body_size, the transport cap
import asyncio
import json
import socket
import sys

import jsonschema
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

MAX_PARAMS_NODES = 100_000
MAX_PARAMS_RENDERED_CHARS = 12 * 1024 * 1024
CHUNK_CODE_POINTS = 8192  # the seed's _CHUNK_CODE_POINTS
INVALID_PARAMS = -32602

mode, schema_mode, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])

# knowledge-search.input.schema.json with tool-context's projectId inlined.
query = {"type": "string", "minLength": 1}
if schema_mode == "refuse":
    query["maxLength"] = 2000
SCHEMA = {"type": "object", "properties": {"projectId": {"type": "string"}, "query": query},
          "required": ["query"], "unevaluatedProperties": False}
validator = jsonschema.Draft202012Validator(SCHEMA)


def nodes_over(value, bound):
    # Counts containers, member names and values without recursion; stops
    # once past the bound.
    n, stack = 0, [value]
    while stack:
        v = stack.pop()
        n += 1
        if n > bound:
            return True
        if isinstance(v, dict):
            n += len(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return n > bound


def rendered_width(value):
    # The seed's _rendered_width: a string by its repr's width (isprintable
    # fast path, chunked above _CHUNK_CODE_POINTS), an int by its digits,
    # every other leaf by its repr; containers are charged their members.
    total, stack = 0, [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str):
            if v.isprintable() and "'" not in v and "\\" not in v:
                total += len(v)
            elif len(v) <= CHUNK_CODE_POINTS:
                total += len(repr(v)) - 2
            else:
                for i in range(0, len(v), CHUNK_CODE_POINTS):
                    total += len(repr(v[i:i + CHUNK_CODE_POINTS])) - 2
        elif isinstance(v, bool) or v is None or isinstance(v, float):
            total += len(repr(v))
        elif isinstance(v, int):
            total += len(str(v))
    return total


class Gate:
    async def __call__(self, ctx, call_next):
        if ctx.method == "tools/call":
            args = (ctx.params or {}).get("arguments") or {}
            if nodes_over(args, MAX_PARAMS_NODES):
                raise MCPError(INVALID_PARAMS, f"arguments refused: more than {MAX_PARAMS_NODES} nodes")
            if rendered_width(args) > MAX_PARAMS_RENDERED_CHARS:
                raise MCPError(INVALID_PARAMS, f"arguments refused: rendered width over {MAX_PARAMS_RENDERED_CHARS} characters")
            err = next(validator.iter_errors(args), None)
            if err is not None:
                path = "/".join(str(p) for p in err.absolute_path)[:200]
                raise MCPError(INVALID_PARAMS, f"arguments refused at /{path} by {err.validator}")
        return await call_next(ctx)


server = MCPServer(name="boundlab-pyserver", middleware=[Gate()] if mode == "gate" else [])


@server.tool(name="knowledge.search")
def search(query: str, projectId: str = "") -> str:
    return json.dumps({"query_code_points": len(query)})


@server.tool(name="echo")
def echo(query: str, limit: int = 10) -> str:
    return json.dumps({"query": query, "limit": limit})


sock = socket.socket()
sock.bind(("127.0.0.1", 0))
sock.listen(16)
app = server.streamable_http_app(stateless_http=True, json_response=True, max_request_body_size=cap)
config = uvicorn.Config(app, log_level="warning", lifespan="on")
print(sock.getsockname()[1], flush=True)
asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
