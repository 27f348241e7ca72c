#!/usr/bin/env python3
"""Re-apply the mutants a saved gremlins run reports LIVED to the current
tree, one at a time, and run the package's tests on each (go test -failfast,
-count=1): a lived mutant the current tests kill is reported "killed now".

    scripts/replay-lived.py results/mutation/mcpvalidate.run.json

The mutation is gremlins' token swap at the reported line and column
(CONDITIONALS_BOUNDARY < <=, > >=; CONDITIONALS_NEGATION == !=, < >=, > <=;
ARITHMETIC_BASE + -, * /, % *; INCREMENT_DECREMENT ++ --; INVERT_NEGATIVES
drops the unary minus). The file is restored after each run. Output: one
line per mutant, status then position, and a count."""
import json, os, signal, subprocess, sys

# A SIGTERM unwinds like an interrupt, so the file under mutation is restored.
signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

SWAP = {
    "CONDITIONALS_BOUNDARY": {"<": "<=", "<=": "<", ">": ">=", ">=": ">"},
    "CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"},
    "ARITHMETIC_BASE": {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
    "INCREMENT_DECREMENT": {"++": "--", "--": "++"},
    "INVERT_NEGATIVES": {"-": ""},
}

def mutate(src, line, col, typ):
    lines = src.split("\n")
    l = lines[line - 1]
    i = len(l[: col - 1].encode()[: col - 1].decode(errors="ignore"))  # columns are bytes
    for tok in sorted(SWAP[typ], key=len, reverse=True):
        if l[i:i + len(tok)] == tok:
            lines[line - 1] = l[:i] + SWAP[typ][tok] + l[i + len(tok):]
            return "\n".join(lines)
    raise ValueError(f"no {typ} token at {line}:{col}: {l[i:i+4]!r}")

def main(path):
    run = json.load(open(path))
    pkg = run["package"]
    killed = lived = 0
    for f in run["report"]["files"]:
        fn = os.path.join(pkg, f["file_name"])
        for m in f["mutations"]:
            if m["status"] != "LIVED":
                continue
            orig = open(fn).read()
            try:
                open(fn, "w").write(mutate(orig, m["line"], m["column"], m["type"]))
                r = subprocess.run(["go", "test", "-count=1", "-failfast", "-timeout", "120s", "./" + pkg],
                                   capture_output=True, text=True)
            finally:
                open(fn, "w").write(orig)
            status = "killed-now" if r.returncode != 0 else "lived"
            killed += status == "killed-now"
            lived += status == "lived"
            print(f"{status} {f['file_name']}:{m['line']}:{m['column']} {m['type']}", flush=True)
    print(f"replayed {killed + lived}: killed now {killed}, still lived {lived}")

main(sys.argv[1])
