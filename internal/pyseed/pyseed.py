# boundlab pyseed: what the seed (ADR-0031) says about CPython, pydantic_core,
# jsonschema and the Python MCP SDK, measured in CPython. One fresh process per
# question; one JSON object on stdout. argv: QUESTION [ARGS]
#   facts            the SDK's and jsonschema's facts (no heavy allocation)
#   chunk N          the seed's chunked repr transient over N code points
#   versions         the installed versions of what the server runs on
import gc
import json
import sys
import tracemalloc


def pep393_kind(s):
    m = max(map(ord, s), default=0)
    return 1 if m < 0x100 else 2 if m < 0x10000 else 4


def sdk_facts(out):
    import asyncio
    import os

    import mcp_types
    from mcp.server import transport_security as ts
    from mcp.server.mcpserver import MCPServer
    from mcp_types.jsonrpc import jsonrpc_message_adapter

    out["sdk_default_body"] = ts.DEFAULT_MAX_REQUEST_BODY_SIZE

    # The bare 413: the SDK's own body-limit middleware, driven as ASGI.
    sent = []

    async def app(scope, receive, send):
        raise AssertionError("the inner app ran")

    async def receive():
        return {"type": "http.request", "body": b"x" * 16, "more_body": False}

    async def send(msg):
        sent.append(msg)

    mw = ts.RequestBodyLimitMiddleware(app, 8)
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"content-length", b"16")]}
    asyncio.run(mw(scope, receive, send))
    out["bare_413_status"] = sent[0]["status"]
    out["bare_413_bytes"] = sum(len(m.get("body", b"")) for m in sent if m["type"] == "http.response.body")

    # extra="forbid" over the whole mcp_types package.
    root = os.path.dirname(mcp_types.__file__)
    n = 0
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    n += fh.read().count('extra="forbid"')
    out["mcp_types_extra_forbid"] = n

    server = MCPServer(name="pyseed")

    @server.tool()
    def search(query: str, limit: int = 10) -> str:
        return query

    @server.tool()
    def get(item_id: str) -> str:
        return item_id

    @server.tool()
    def status() -> str:
        return "ok"

    tools = asyncio.run(server.list_tools())
    out["tools"] = len(tools)
    out["tools_with_additional_properties"] = sum(1 for t in tools if "additionalProperties" in t.input_schema)
    # An unknown key through the tool's own argument model.
    meta = server._tool_manager.get_tool("search").fn_metadata
    kwargs = meta.validate_arguments({"query": "q", "unknown_key": 1})
    out["unknown_key_kept"] = int("unknown_key" in kwargs)

    # validate_python over a parsed tools/call with a 4 MiB string leaf.
    import pydantic_core
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "search", "arguments": {"query": "a" * (4 << 20)}}}).encode()
    raw = pydantic_core.from_json(body)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    msg = jsonrpc_message_adapter.validate_python(raw, by_name=False)
    out["validate_python_peak"] = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    out["validate_python_same_leaf"] = int(msg.params["arguments"]["query"] is raw["params"]["arguments"]["query"])


def jsonschema_facts(out):
    import importlib.metadata as md

    import jsonschema
    import referencing
    from referencing.jsonschema import DRAFT202012

    out["jsonschema"] = md.version("jsonschema")
    out["referencing"] = md.version("referencing")
    V = jsonschema.Draft202012Validator

    # Which keywords name the instance's value in their message.
    marker = 987654321
    cases = {
        "required": ({"required": ["a"]}, {"b": marker}),
        "const": ({"const": 1}, marker),
        "maximum": ({"maximum": 1}, marker),
        "maxLength": ({"maxLength": 1}, str(marker)),
    }
    out["names_instance"] = {}
    for kw, (schema, inst) in cases.items():
        errs = list(V(schema).iter_errors(inst))
        out["names_instance"][kw] = int(any(str(marker) in e.message for e in errs))

    # Decision 1's table: three forms x the referent closed or open.
    ctx_props = {k: {"type": "string"} for k in ("projectId", "snapshotId", "agentId", "taskId")}
    valid = {"projectId": "p", "body": "b", "itemId": "i"}
    unknown = dict(valid, unknownKey=1)
    tool_props = {"body": {"type": "string"}, "itemId": {"type": "string"}}
    forms = {
        "ref+additionalProperties": lambda: {"$ref": "urn:ctx", "properties": tool_props, "additionalProperties": False},
        "allOf+additionalProperties": lambda: {"allOf": [{"$ref": "urn:ctx"}], "properties": tool_props, "additionalProperties": False},
        "allOf+unevaluatedProperties": lambda: {"allOf": [{"$ref": "urn:ctx"}], "properties": tool_props, "unevaluatedProperties": False},
    }
    cells = {}
    for closed in (True, False):
        ctx = {"$id": "urn:ctx", "type": "object", "properties": ctx_props, "required": ["projectId"]}
        if closed:
            ctx["additionalProperties"] = False
        reg = referencing.Registry().with_resource("urn:ctx", DRAFT202012.create_resource(ctx))
        for name, form in forms.items():
            v = V(form(), registry=reg)
            cells[name + ("/referent-closed" if closed else "/referent-open")] = int(v.is_valid(valid) and not v.is_valid(unknown))
    out["composition_cells"] = cells

    # The repr-kind rule over seeded mixed strings.
    import random
    rng = random.Random(31)
    pools = [(0x20, 0x7e), (0x00, 0x1f), (0x7f, 0xa0), (0xa1, 0xff), (0x100, 0x7ff), (0x600, 0x605),
             (0x4e00, 0x9fff), (0x2028, 0x2029), (0x1f600, 0x1f64f), (0xe0001, 0xe007f), (0x10000, 0x1000c)]
    n, bad = 200_000, 0
    for _ in range(n):
        s = "".join(chr(rng.randint(*rng.choice(pools))) for _ in range(rng.randint(1, 12)))
        want = pep393_kind("".join(c for c in s if c.isprintable()))
        bad += pep393_kind(repr(s)) != want
    out["repr_kind_strings"], out["repr_kind_exceptions"] = n, bad


CHUNK_CODE_POINTS = 8192  # the seed's _CHUNK_CODE_POINTS


def chunked_width(value):
    w = 0
    for i in range(0, len(value), CHUNK_CODE_POINTS):
        w += len(repr(value[i:i + CHUNK_CODE_POINTS])) - 2
    return w


def chunk(out, n):
    # A leaf of non-printable astral characters carrying one printable
    # astral: the chunk holding it reprs at kind 4.
    leaf = "\U0001f600" + "\U000e0001" * (n - 1)
    readings = []
    for _ in range(3):
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        chunked_width(leaf)
        readings.append(tracemalloc.get_traced_memory()[1] - base)
        tracemalloc.stop()
    out["chunk_code_points"], out["readings"] = CHUNK_CODE_POINTS, readings


def main():
    import platform
    out = {"python": platform.python_version(), "implementation": sys.implementation.name}
    q = sys.argv[1]
    if q == "facts":
        jsonschema_facts(out)
        sdk_facts(out)
    elif q == "versions":
        import importlib.metadata as md
        out["versions"] = {m: md.version(m) for m in ("mcp", "pydantic_core", "uvicorn", "starlette", "jsonschema")}
    elif q == "chunk":
        chunk(out, int(sys.argv[2]))
    else:
        raise SystemExit("unknown question " + q)
    json.dump(out, sys.stdout)


main()
