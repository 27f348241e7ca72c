#!/usr/bin/env python3
"""Regenerate the pinned-run section of docs/bench.md from the bench records.

    go run ./cmd/boundlab derive --only bench --out results
    python3 scripts/benchdoc.py            # rewrites docs/bench.md in place

Everything between the markers <!-- pinned:begin --> and <!-- pinned:end -->
is generated: the tables read results/bench.json (the records `boundlab
verify` recomputes from the saved runs), every figure sits in a row or
sentence that names its record, and the printouts are what `boundlab bench
FILE` prints for the saved runs. Nothing here is typed in by hand.
"""
import json
import os
import re
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
doc_path = os.path.join(root, "docs", "bench.md")
data = json.load(open(os.path.join(root, "results", "bench.json")))
recs = data["records"] if isinstance(data, dict) else data
v = {r["id"]: r for r in recs}


def val(rid):
    return v[rid]["value"]


def g(x):
    """A figure as the records print it: three significant digits."""
    s = "%.3g" % x
    return s


def grouped(n):
    return "{:,}".format(int(n))


def table(rows):
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


shapes = ["ascii", "cjk", "u0600", "del", "astral", "mixed", "escaped",
          "gosource", "smallnodes", "deep", "fields", "toolscall", "chat",
          "jsoninjson"]
valid = [["shape", "jsontext time / gate time", "simdjson-go / gate",
          "utf8.Valid / gate", "gate / encoding/json.Valid",
          "sonic decode / encoding/json.Valid", "records"],
         ["---"] * 7]
for sh in shapes:
    p = "bench.valid." + sh + "."
    u = p + "utf8-over-gate"
    valid.append([sh, g(val(p + "jsontext-over-gate")) + "x",
                  g(val(p + "simdjson-go-over-gate")) + "x",
                  (g(val(u)) + "x") if u in v else "–",
                  g(val(p + "gate-over-encoding-json")) + "x",
                  g(val(p + "sonic-decode-over-encoding-json")) + "x",
                  "`" + p + "*`"])

served = [["request", "mcpvalidate / go-sdk typed", "mark3labs / go-sdk typed",
           "answer bytes: mcpvalidate", "go-sdk typed", "mark3labs", "records"],
          ["---"] * 7]
for rq in ["valid", "unknown-key", "maxlength-ascii", "maxlength-u0600", "pattern-del"]:
    p = "bench.served." + rq + "."
    ab = lambda impl: grouped(val(p + impl + ".answer-bytes")) if (p + impl + ".answer-bytes") in v else "–"
    served.append([rq, g(val(p + "mcpvalidate-over-go-sdk-typed")) + "x",
                   g(val(p + "mark3labs-over-go-sdk-typed")) + "x",
                   ab("mcpvalidate"), ab("go-sdk-typed"), ab("mark3labs"),
                   "`" + p + "*`"])

front = [["body", "front gate / core gate", "served front gate / core gate", "records"], ["---"] * 4]
for body in ["call-1KB", "at-cap-ascii", "at-cap-escaped"]:
    p = "bench.frontgate." + body.lower() + "."
    front.append([body, g(val(p + "front-gate-over-core-gate")) + "x",
                  g(val(p + "serve-over-core-gate")) + "x", "`" + p + "*`"])

check = [["arguments", "go-sdk typed / Check", "Check heap / wire bytes", "Check time", "records"], ["---"] * 5]
for c in ["typical-1KB", "atcap-maxlength-ascii", "atcap-maxlength-u00e9-escaped"]:
    p = "bench.check." + c.lower() + "."
    t = (g(val(p + "mcpvalidate.time")) + " µs") if (p + "mcpvalidate.time") in v else "–"
    check.append([c, g(val(p + "go-sdk-typed-over-mcpvalidate")) + "x",
                  g(val(p + "mcpvalidate.heap-over-wire")), t, "`" + p + "*`"])

http = [["request", "guarded / bare throughput", "guarded / bare p50", "middleware-only / bare throughput", "middleware-only / bare p50", "records"], ["---"] * 6]
for op in ["call-1KB", "tools-list", "initialize"]:
    p = "bench.http." + op.lower() + "."
    http.append([op, g(val(p + "guarded-over-bare-throughput")) + "x", g(val(p + "guarded-over-bare-p50")) + "x",
                 g(val(p + "middleware-over-bare-throughput")) + "x", g(val(p + "middleware-over-bare-p50")) + "x",
                 "`" + p + "*`"])
p = "bench.stdio.call-1kb."
if p + "guarded-over-bare-throughput" in v:
    http.append(["call-1KB over stdio", g(val(p + "guarded-over-bare-throughput")) + "x", g(val(p + "guarded-over-bare-p50")) + "x",
                 g(val(p + "middleware-over-bare-throughput")) + "x", g(val(p + "middleware-over-bare-p50")) + "x",
                 "`" + p + "*`"])


def printout(path, unit="sec/op"):
    out = subprocess.run(["go", "run", "./cmd/boundlab", "bench", "--unit", unit, path],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    # The machine header is in the file itself; keep the tables.
    keep = out[out.index("Benchmark"):] if "Benchmark" in out else out
    if unit != "sec/op" and "\n\nBenchmark" in keep:  # the header once, with the first
        keep = keep[keep.index("\n\nBenchmark") + 2:]
    return keep.rstrip()


def cfg(path, key):
    for line in open(os.path.join(root, path)):
        if line.startswith(key + ":"):
            return line.split(":", 1)[1].strip()
    return "?"


thr = v["bench.valid.ascii.gate.throughput"]
faster = [sh for sh in shapes if val("bench.valid." + sh + ".jsontext-over-gate") >= 1]
slower = [sh for sh in shapes if val("bench.valid." + sh + ".jsontext-over-gate") < 1]

section = f"""<!-- pinned:begin (generated by scripts/benchdoc.py from results/bench.json; do not edit by hand) -->
The pinned runs: `results/bench/suite.txt` (commit {cfg('results/bench/suite.txt', 'boundlab-commit')}, {cfg('results/bench/suite.txt', 'date')}, {cfg('results/bench/suite.txt', 'cpu-model')}, GOMAXPROCS {cfg('results/bench/suite.txt', 'gomaxprocs')}), `results/bench/frontgate.txt` (commit {cfg('results/bench/frontgate.txt', 'boundlab-commit')}) and `results/bench/check.txt` (commit {cfg('results/bench/check.txt', 'boundlab-commit')}). Every ratio below is a record of producer `bench`, read from those files by `bench.SuiteRecords`; a ratio whose interval spans 1 (see the printouts) says the run could not tell the two apart.

### The gate against its peers (BenchmarkValid, 1 MiB documents)

Against the strict peers a ratio is the peer's time over the gate's: the gate's throughput in multiples of the peer's (above 1, the gate is faster). Against encoding/json.Valid, the baseline of the family, it is the other way round (below 1, the gate is faster).

{table(valid)}

The gate's throughput on printable ASCII: [{grouped(thr['value'])} MB/s](records.md#bench.valid.ascii.gate.throughput).
In this run the gate is at least as fast as jsontext on {', '.join(faster) if faster else 'no shape'}; slower on {', '.join(slower) if slower else 'no shape'} (the `bench.valid.<shape>.jsontext-over-gate` records).

### Served calls (BenchmarkServed, one tools/call of knowledge.search, 1 MiB values)

{table(served)}

### The front gate (mcpvalidate BenchmarkFrontGate)

The front gate scans the whole body (envelope, params and arguments); the core gate scans the arguments alone; the served front gate adds the in-flight budget and the pooled read. Bodies: a typical 1 KB call, and two at the body cap.

{table(front)}

### Validation alone (mcpvalidate BenchmarkCheck)

mcpvalidate.Check against the go-sdk's typed-tool path (its decode, defaults, google/jsonschema-go and the typed decode) on the same knowledge.search arguments, in process: the SDK's time over Check's (above 1, Check is faster), the bytes Check allocates per wire byte, and a typical call's time.

{table(check)}

### What protection costs a healthy server (BenchmarkHTTP over loopback, BenchmarkStdio over pipes)

A go-sdk server with one typed tool over loopback HTTP, stateful, 4 clients with a session each calling at once, wired three ways side by side: the bare go-sdk, `Install` only (middleware-only), and `Install` + `FrontGate` as the README wires it (guarded). A typical 1 KB `tools/call`, a `tools/list`, and an `initialize` (a new session and its DELETE). `BenchmarkStdio`: the same tool and 1 KB call over OS pipes, one call in flight, bare (the SDK's `IOTransport`), `Install` on it, and `Install` + `StdioTransport` (guarded). Throughput ratios above 1 mean the wiring serves more than the bare SDK; p50 ratios above 1 mean it answers later. `results/bench/http.txt` (commit {cfg('results/bench/http.txt', 'boundlab-commit')}, {cfg('results/bench/http.txt', 'date')}); `bench.Targets` holds the 1 KB call's two guarded ratios to the floor and ceiling it states, over HTTP (issue 27) and over stdio (issue 35). Each ratio is a median of rounds interleaved with its baseline's; read it with its interval in the printouts below (sec/op, p50-µs, and cpu-µs/op: the process's CPU time per request, server and clients together): an interval that spans 1 says the run could not tell the wirings apart, whatever the median.

{table(http)}

### The printouts

`go run ./cmd/boundlab bench results/bench/suite.txt`:

```
{printout('results/bench/suite.txt')}
```

`go run ./cmd/boundlab bench results/bench/frontgate.txt`:

```
{printout('results/bench/frontgate.txt')}
```

`go run ./cmd/boundlab bench results/bench/check.txt`:

```
{printout('results/bench/check.txt')}
```

`go run ./cmd/boundlab bench results/bench/http.txt` (and `--unit p50-µs`, `--unit cpu-µs/op`):

```
{printout('results/bench/http.txt')}

{printout('results/bench/http.txt', 'p50-µs')}

{printout('results/bench/http.txt', 'cpu-µs/op')}
```
<!-- pinned:end -->"""

doc = open(doc_path).read()
m = re.search(r"<!-- pinned:begin.*?<!-- pinned:end -->", doc, re.S)
if not m:
    sys.exit("docs/bench.md has no <!-- pinned:begin --> ... <!-- pinned:end --> section")
open(doc_path, "w").write(doc[:m.start()] + section + doc[m.end():])
