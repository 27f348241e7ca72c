package strangers

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/theurian/boundlab/internal/residuals"
	"github.com/theurian/boundlab/results"
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
		results.Register(results.Producer{Name: Producers[rt], Records: func() ([]results.Record, error) { return Records(rt) }})
	}
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
		rep, err := Audit(ctx, s)
		if err != nil {
			return nil, err
		}
		build, err := buildOf(ctx, s)
		if err != nil {
			return nil, err
		}
		src := fmt.Sprintf("internal/strangers.Records: audit.Run (seed %d, default limits, the read-only tools called) on %s", Seed, s.Name)
		out = append(out, residuals.ReportRecords("audit.stranger."+s.Key, src, build, rep)...)
	}
	return out, nil
}

// buildOf is what a stranger's records hold for: the Go toolchain, and the
// SDK and runtime it ran (a module for a Go stranger; the npm package and
// node, or the Python package and interpreter, named as modules so a change
// of either re-derives the records rather than failing them).
func buildOf(ctx context.Context, s Stranger) (results.Build, error) {
	switch s.Runtime {
	case RuntimeGo:
		mod := map[string]string{"go-sdk": "github.com/modelcontextprotocol/go-sdk", "mcp-go": "github.com/mark3labs/mcp-go"}[s.Key]
		return results.CurrentBuild(mod), nil
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
