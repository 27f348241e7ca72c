"""A small MCP server over stdio (newline-delimited JSON-RPC) whose one
read-only tool checks its argument against a published pattern with
Python's re, a backtracking engine: the auditor's ReDoS probe is measured
against it. Stdlib only."""
import json
import re
import sys

PATTERN = r"^(a+)+$"
SCHEMA = {
    "type": "object",
    "properties": {"word": {"type": "string", "pattern": PATTERN, "maxLength": 256}},
    "required": ["word"],
    "additionalProperties": False,
}
COMPILED = re.compile(PATTERN)


def answer(msg_id, result=None, error=None):
    out = {"jsonrpc": "2.0", "id": msg_id}
    if error is not None:
        out["error"] = error
    else:
        out["result"] = result
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


def call(params):
    args = params.get("arguments") or {}
    if params.get("name") != "check":
        return None, {"code": -32602, "message": "unknown tool"}
    word = args.get("word")
    if not isinstance(word, str) or set(args) - {"word"}:
        return {"isError": True, "content": [{"type": "text", "text": "invalid arguments"}]}, None
    if COMPILED.search(word) is None:
        return {"isError": True, "content": [{"type": "text", "text": "word does not match the pattern"}]}, None
    return {"content": [{"type": "text", "text": "ok"}]}, None


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        answer(None, error={"code": -32700, "message": "parse error"})
        continue
    if not isinstance(msg, dict) or "id" not in msg:
        continue
    method, msg_id = msg.get("method"), msg.get("id")
    if method == "initialize":
        answer(msg_id, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "redos", "version": "0"}})
    elif method == "tools/list":
        answer(msg_id, {"tools": [{"name": "check", "inputSchema": SCHEMA,
                                   "annotations": {"readOnlyHint": True}}]})
    elif method == "tools/call":
        result, error = call(msg.get("params") or {})
        answer(msg_id, result, error)
    elif method == "ping":
        answer(msg_id, {})
    else:
        answer(msg_id, error={"code": -32601, "message": "method not found"})
