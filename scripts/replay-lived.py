#!/usr/bin/env python3
"""Re-apply the mutants a saved gremlins run reports LIVED to the current
tree, one at a time, and run the package's tests on each (go test -failfast,
-count=1): a lived mutant the current tests kill is reported "killed now".

    scripts/replay-lived.py results/mutation/mcpvalidate.run.json [-o OUT]

The mutation is gremlins' token swap at the reported line and column
(CONDITIONALS_BOUNDARY < <=, > >=; CONDITIONALS_NEGATION == !=, < >=, > <=;
ARITHMETIC_BASE + -, * /, % *; INCREMENT_DECREMENT ++ --; INVERT_NEGATIVES
- +, as gremlins does for every minus, unary or binary). The file is restored after each run. Output: one
line per mutant, status then position, and a count. A run that hits go test's
-timeout is "timed-out", and one that does not build "not-viable", not
"killed-now".

With -o OUT it also writes the run with each replayed mutant's status set to
its replay verdict (KILLED, LIVED, TIMED OUT) and a "replay" member naming the
commit and date of the replay and its counts; package mutation reads such a
file like any run, and says in its records that the lived mutants were
re-applied. The replay refuses to write OUT when the package's non-test files
differ from the run's commit: the mutants would not be the same.

With --tests MAP.json (an object from "file:line:column" or
"file:line:column:TYPE" to a test name or -run pattern) it replays only the
mapped mutants, each with go test -run of its tests alone: a failure is a kill
(the whole suite fails too); a pass leaves the mutant as the run had it
(LIVED), since some other test might still kill it. Much faster than the whole
suite per mutant, and it never calls a mutant lived that the suite kills."""
import datetime, json, os, signal, subprocess, sys

# A SIGTERM unwinds like an interrupt, so the file under mutation is restored.
signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))

SWAP = {
    "CONDITIONALS_BOUNDARY": {"<": "<=", "<=": "<", ">": ">=", ">=": ">"},
    "CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"},
    "ARITHMETIC_BASE": {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
    "INCREMENT_DECREMENT": {"++": "--", "--": "++"},
    "INVERT_NEGATIVES": {"-": "+"},  # gremlins swaps token.SUB for ADD, unary or binary
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

def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout.strip()

def main(path, out=None, tests=None):
    run = json.load(open(path))
    pkg = run["package"]
    if out:
        # The same mutants only if the production files are the run's.
        base = run["commit"].split("+")[0]
        prod = [f for f in git("ls-files", "--", pkg).split("\n")
                if f.endswith(".go") and not f.endswith("_test.go") and "/" not in f[len(pkg) + 1:]]
        diff = subprocess.run(["git", "diff", "--quiet", base, "--", *prod])
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", pkg])
        if diff.returncode != 0 or dirty.returncode != 0:
            sys.exit(f"replay-lived: {pkg}'s files differ from the run's commit {base} (or the tree is dirty): not writing {out}")
    killed = lived = timed = unviable = 0
    for f in run["report"]["files"]:
        fn = os.path.join(pkg, f["file_name"])
        for m in f["mutations"]:
            if m["status"] != "LIVED":
                continue
            pos = f'{f["file_name"]}:{m["line"]}:{m["column"]}'
            run_only = None
            if tests is not None:
                run_only = tests.get(pos + ":" + m["type"]) or tests.get(pos)
                if run_only is None:
                    continue
            orig = open(fn).read()
            try:
                open(fn, "w").write(mutate(orig, m["line"], m["column"], m["type"]))
                cmd = ["go", "test", "-count=1", "-failfast", "-vet=off", "-timeout", "120s"]
                if run_only:
                    cmd += ["-run", "^(" + run_only + ")$"]
                r = subprocess.run(cmd + ["./" + pkg], capture_output=True, text=True)
            finally:
                open(fn, "w").write(orig)
            if r.returncode == 0:
                status = "lived"
            elif "[build failed]" in r.stdout + r.stderr or "[setup failed]" in r.stdout + r.stderr:
                status = "not-viable"
            elif "panic: test timed out" in r.stdout + r.stderr:
                status = "timed-out"
            else:
                status = "killed-now"
            killed += status == "killed-now"
            lived += status == "lived"
            timed += status == "timed-out"
            unviable += status == "not-viable"
            m["status"] = {"killed-now": "KILLED", "lived": "LIVED", "timed-out": "TIMED OUT", "not-viable": "NOT VIABLE"}[status]
            print(f"{status} {f['file_name']}:{m['line']}:{m['column']} {m['type']}", flush=True)
    print(f"replayed {killed + lived + timed + unviable}: killed now {killed}, still lived {lived}, timed out {timed}, not viable {unviable}")
    if out:
        run["replay"] = {"commit": git("rev-parse", "--short=12", "HEAD"), "go": git_go(),
                         "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "replayed": killed + lived + timed + unviable, "killed_now": killed, "still_lived": lived,
                         "timed_out": timed, "not_viable": unviable}
        if tests is not None:
            run["replay"]["tests"] = "each mapped mutant with its named tests only (--tests)"
        with open(out, "w") as w:
            json.dump(run, w, indent=1)
            w.write("\n")

def git_go():
    return subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout.strip()

args = sys.argv[1:]
out = tests = None
if "-o" in args:
    i = args.index("-o")
    out = args[i + 1]
    del args[i:i + 2]
if "--tests" in args:
    i = args.index("--tests")
    tests = json.load(open(args[i + 1]))
    del args[i:i + 2]
if len(args) != 1:
    sys.exit("usage: scripts/replay-lived.py RUN.json [-o OUT] [--tests MAP.json]")
main(args[0], out, tests)
