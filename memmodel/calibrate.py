# boundlab memmodel calibration: one request, one fresh interpreter.
#
# The Go side (memmodel.Calibrate) writes the request body on stdin and reads
# one JSON object from stdout. argv: PARSER FAMILY CHUNK
#   PARSER  pydantic_core.from_json | json.loads
#   FAMILY  i | ii | iii  (ii runs the render moment) | small (a body of many
#           small values: the transport and parse moments only, and the
#           count of values in the arguments' one array)
#   CHUNK   the transport's read size in bytes
# Every moment's peak is tracemalloc's traced peak since the previous
# reset_peak(), absolute: the transport's buffers stay live throughout, as
# they do in the seed's server while a request is in flight.
import gc
import json
import resource
import sys
import tracemalloc

CHUNK_CODE_POINTS = 8192  # the seed's _CHUNK_CODE_POINTS


def version(module):
    try:
        from importlib.metadata import version as v
        return v(module)
    except Exception:
        return getattr(sys.modules.get(module), "__version__", "")


def rendered_width(value):
    # The seed's _rendered_width for a string leaf: the isprintable fast path
    # allocates nothing; otherwise repr, whole or in chunks.
    if value.isprintable() and "'" not in value and "\\" not in value:
        return len(value)
    if len(value) <= CHUNK_CODE_POINTS:
        return len(repr(value)) - 2
    w = 0
    for i in range(0, len(value), CHUNK_CODE_POINTS):
        w += len(repr(value[i:i + CHUNK_CODE_POINTS])) - 2
    return w


def main():
    if not hasattr(tracemalloc, "reset_peak"):  # CPython 3.9+
        sys.stderr.write("tracemalloc.reset_peak needs CPython 3.9 or later\n")
        raise SystemExit(3)
    parser, family, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if parser == "pydantic_core.from_json":
        import pydantic_core
        parse, module = pydantic_core.from_json, "pydantic_core"
    elif parser == "json.loads":
        parse, module = json.loads, "json"
    else:
        raise SystemExit("unknown parser " + parser)
    source = sys.stdin.buffer.read()  # the socket: not Python heap the request owns
    wire = len(source)
    gc.collect()
    gc.disable()
    out = {"python": sys.version.split()[0], "implementation": sys.implementation.name,
           "parser": parser, "parser_version": version(module) if module != "json" else sys.version.split()[0],
           "unicode": __import__("unicodedata").unidata_version, "wire": wire}

    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    # transport: the SDK's RequestBodyLimitMiddleware accumulates a bytearray
    # and copies it to bytes.
    buf = bytearray()
    for i in range(0, wire, chunk):
        buf += source[i:i + chunk]
    body = bytes(buf)
    moments = {"transport": tracemalloc.get_traced_memory()[1] - base}

    tracemalloc.reset_peak()
    obj = parse(body)
    moments["parse"] = tracemalloc.get_traced_memory()[1] - base

    args = obj["params"]["arguments"]
    if family == "small":
        out["moments"] = moments
        out["peak"] = max(moments.values())
        out["values"] = len(args["query"])
        out["ru_maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.stop()
        json.dump(out, sys.stdout)
        return

    tracemalloc.reset_peak()
    total = sum(rendered_width(v) for v in args.values() if isinstance(v, str))
    moments["charge"] = tracemalloc.get_traced_memory()[1] - base

    leaf = args["query"]
    if family == "ii":
        tracemalloc.reset_peak()
        # jsonschema 4.26's maxLength: yield ValidationError(f"{instance!r} is too long")
        message = f"{leaf!r} is too long"
        moments["render"] = tracemalloc.get_traced_memory()[1] - base
        out["message_chars"] = len(message)
        del message
    out["moments"] = moments
    out["peak"] = max(moments.values())
    out["charge"] = total
    out["code_points"] = len(leaf)
    out["ru_maxrss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.stop()
    json.dump(out, sys.stdout)


main()
