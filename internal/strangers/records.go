package strangers

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Producer names: one per runtime, so verify skips exactly the strangers
// whose runtime is absent.
var Producers = map[string]string{
	RuntimeGo:         "audit-strangers-go",
	RuntimeTypeScript: "audit-strangers-typescript",
	RuntimePython:     "audit-strangers-python",
}

func init() {
	for _, rt := range []string{RuntimeGo, RuntimeTypeScript, RuntimePython} {
		results.Register(results.Producer{Name: Producers[rt], Records: func() ([]results.Record, error) { return Records(rt) },
			Remeasures: remeasures(rt)})
	}
}

// remeasures is what a runtime's producer does each time it runs: it
// starts every stranger of the runtime as a child (the Go ones built first)
// and audits it, which takes from seconds to a minute.
func remeasures(runtime string) string {
	var keys []string
	for _, s := range Strangers() {
		if s.Runtime == runtime {
			keys = append(keys, s.Key)
		}
	}
	how := map[string]string{
		RuntimeGo:         "builds and runs as children, and audits",
		RuntimeTypeScript: "installs with npm, runs under node and audits",
		RuntimePython:     "runs under the named Python and audits",
	}[runtime]
	servers := "servers"
	if len(keys) == 1 {
		servers = "server"
	}
	return fmt.Sprintf("%s %d %s (%s)", how, len(keys), servers, strings.Join(keys, ", "))
}

// Records audits every stranger of the runtime and records each report's
// headline figures (residuals.ReportRecords) as audit.stranger.KEY.*. The
// runtime absent is results.Unavailable.
func Records(runtime string) ([]results.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var out []results.Record
	for _, s := range Strangers() {
		if s.Runtime != runtime {
			continue
		}
		res, err := Audit(ctx, s)
		if err != nil {
			return nil, err
		}
		build, err := buildOf(ctx, s)
		if err != nil {
			return nil, err
		}
		called := "the read-only tools called"
		if len(s.Call) > 0 {
			called = "tools " + strings.Join(s.Call, " and ") + " called"
		}
		src := fmt.Sprintf("internal/strangers.Records: audit.Run (seed %d, default limits, %s) on %s", Seed, called, s.Name)
		prefix := "audit.stranger." + s.Key
		out = append(out, residuals.ReportRecords(prefix, src, build, res.Report)...)
		direct := fmt.Sprintf("internal/strangers.Records: raw HTTP on a session opened by hand (internal/strangers.Session, not package audit) to %s, beside its audit", s.Name)
		for _, d := range []struct {
			id, title string
			e         *Echo
		}{
			{"direct.unknown-tool-echo", "measured directly: the answer bytes per request byte to a tools/call naming an unknown tool of 64 KiB, worst filler (a, <, 0xFF, DEL)", res.UnknownTool},
			{"direct.params-echo", "measured directly: the answer bytes per request byte to params {\"name\":1,\"x\":64 KiB}, worst filler (a, <, 0xFF, DEL)", res.Params},
		} {
			if d.e != nil {
				out = append(out, results.Record{ID: prefix + "." + d.id, Title: d.title, Value: round3(d.e.Ratio), Unit: "answer bytes / request bytes",
					Instance: d.e.Instance, Method: results.Measured, Source: direct, Tolerance: 0.002, Build: build})
			}
		}
	}
	// Every figure moves with the Go toolchain: the auditor is built with
	// it, and so are the Go strangers (under go1.27.3 the go-sdk's stdio
	// line cap reads one byte lower), so verify re-derives them on another
	// toolchain rather than holding them exactly.
	for i := range out {
		if !slices.Contains(out[i].DependsOn, results.DepGo) {
			out[i].DependsOn = append(out[i].DependsOn, results.DepGo)
		}
	}
	// A stranger's figure can be a number the seed's withdrawn claims used
	// (the go-sdk's 16 MiB stdio line cap): say it is not that claim.
	return sweeps.NoteRetiredNumbers(charge.DefaultLimits(), out)
}

// buildOf is what a stranger's records hold for: the Go toolchain, and the
// SDK and runtime it ran (a module for a Go stranger; the npm package and
// node, or the Python package and interpreter, named as modules so a change
// of either re-derives the records rather than failing them).
func buildOf(ctx context.Context, s Stranger) (results.Build, error) {
	switch s.Runtime {
	case RuntimeGo:
		if strings.HasPrefix(s.Key, "mcp-go") {
			return results.CurrentBuild("github.com/mark3labs/mcp-go"), nil
		}
		return results.CurrentBuild("github.com/modelcontextprotocol/go-sdk"), nil
	case RuntimeTypeScript:
		b := results.CurrentBuild()
		node, err := output(ctx, "node", "--version")
		if err != nil {
			return b, err
		}
		b.Modules = map[string]string{"npm:@modelcontextprotocol/sdk": TypeScriptSDK, "node": node}
		return b, nil
	default:
		b := results.CurrentBuild()
		py, err := Python(ctx)
		if err != nil {
			return b, err
		}
		v, err := output(ctx, py, "-c", "import importlib.metadata as m, platform; print(m.version('mcp'), platform.python_version())")
		if err != nil {
			return b, err
		}
		f := strings.Fields(v)
		if len(f) != 2 {
			return b, fmt.Errorf("the Python named by %s printed %q for its versions", PythonEnv, v)
		}
		b.Modules = map[string]string{"pypi:mcp": f[0], "python": f[1]}
		return b, nil
	}
}

func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s: %v", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
