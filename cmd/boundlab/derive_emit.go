package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/derivation"
	"github.com/theurian/boundlab/results"
)

// defaultMaxEmitBytes is --max-bytes's default: well under what every
// instance at the default limits takes together, so writing them all is a
// choice the user makes (the plan says how much that is).
const defaultMaxEmitBytes = 64 << 20

// ManifestFile is what --instances writes beside the bodies: every instance,
// its scenario's figures and what validate and serve answer it.
const ManifestFile = "instances.manifest.json"

// emitFlags are derive's --instances flags.
type emitFlags struct {
	scenarios string
	maxBytes  sizeFlag
	list      bool
}

func addEmitFlags(c *command) *emitFlags {
	ef := &emitFlags{maxBytes: sizeFlag{v: defaultMaxEmitBytes}}
	c.StringVar(&ef.scenarios, "scenario", "", "with --instances: only these comma-separated scenario `IDS` "+
		"(globs allowed, e.g. 'go-*'; --instances --list names them)")
	c.Var(&ef.maxBytes, "max-bytes", "with --instances: write nothing when the chosen instances total more than `SIZE` "+
		"(bytes, or with KiB, MiB, GiB; 0: no bound; default "+formatSize(defaultMaxEmitBytes)+")")
	c.BoolVar(&ef.list, "list", false, "with --instances: print the plan (every instance, its size and what validate and serve answer it) and write nothing")
	return ef
}

func (ef *emitFlags) given() bool { return ef.scenarios != "" || ef.maxBytes.set || ef.list }

// manifestJSON is ManifestFile, and what --instances --list --json prints.
type manifestJSON struct {
	Tool       string                      `json:"tool"`
	Limits     charge.Limits               `json:"limits"`
	Note       string                      `json:"note"`
	TotalBytes int64                       `json:"total_bytes"`
	Instances  []derivation.ServedInstance `json:"instances"`
}

const manifestNote = "Each file is a whole tools/call request body. `boundlab validate --request FILE` and a POST to " +
	"`boundlab serve --stateless` get what serve says (with --go-clients, each: serve_go_clients). " +
	"Run both with the limits above."

// chooseInstances applies --scenario to the served instances.
func chooseInstances(all []derivation.ServedInstance, pattern string) ([]derivation.ServedInstance, error) {
	if pattern == "" {
		return all, nil
	}
	pats := strings.Split(pattern, ",")
	used := make([]bool, len(pats))
	var out []derivation.ServedInstance
	for _, in := range all {
		for i, p := range pats {
			if ok, err := path.Match(strings.TrimSpace(p), in.Scenario); err != nil {
				return nil, errors.New("--scenario: a pattern is malformed (path.Match syntax)")
			} else if ok {
				used[i] = true
				out = append(out, in)
				break
			}
		}
	}
	for i := range pats {
		if !used[i] {
			var ids []string
			seen := map[string]bool{}
			for _, in := range all {
				if !seen[in.Scenario] {
					seen[in.Scenario] = true
					ids = append(ids, in.Scenario)
				}
			}
			return nil, fmt.Errorf("--scenario: pattern %d of %d matches no scenario; the scenarios are %s", i+1, len(pats), strings.Join(ids, ", "))
		}
	}
	return out, nil
}

// emitInstances prints the plan for the chosen instances and, unless --list
// or over --max-bytes, writes them and the manifest into dir.
func emitInstances(c *command, f deriveFlags, ef *emitFlags, l charge.Limits, stdout, stderr io.Writer) int {
	if ef.maxBytes.err != nil {
		return c.limitsError(stderr, fmt.Errorf("--max-bytes: %w", ef.maxBytes.err))
	}
	all, err := derivation.ServedInstances(l)
	if err != nil {
		return c.fail(stderr, err)
	}
	ins, err := chooseInstances(all, ef.scenarios)
	if err != nil {
		return c.usageError(stderr, "%v", err)
	}
	m := manifestJSON{Tool: derivation.ServedTool, Limits: l, Note: manifestNote, Instances: ins}
	for _, in := range ins {
		m.TotalBytes += in.Bytes
	}
	if f.asJSON && ef.list {
		if err := writeJSON(stdout, m); err != nil {
			return c.fail(stderr, err)
		}
		return exitOK
	}
	plan := stdout
	if !ef.list {
		plan = stderr // the plan is progress when writing
	}
	printEmitPlan(plan, m)
	over := ef.maxBytes.v > 0 && m.TotalBytes > ef.maxBytes.v
	switch {
	case ef.list:
		return exitOK
	case over:
		fmt.Fprintf(stderr, "boundlab derive: wrote nothing: the %d instances total %s bytes, over --max-bytes %s bytes; "+
			"choose fewer with --scenario, or raise --max-bytes (0: no bound)\n", len(ins), results.Thousands(m.TotalBytes), results.Thousands(ef.maxBytes.v))
		return exitUsage
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return c.fail(stderr, err)
	}
	for _, in := range ins {
		p, err := in.Emit(f.out)
		if err != nil {
			return c.fail(stderr, err)
		}
		fmt.Fprintf(stderr, "wrote %s (%s bytes)\n", p, results.Thousands(in.Bytes))
	}
	mf, err := os.Create(filepath.Join(f.out, ManifestFile))
	if err != nil {
		return c.fail(stderr, err)
	}
	werr := writeJSON(mf, m)
	if err := errors.Join(werr, mf.Close()); err != nil {
		return c.fail(stderr, err)
	}
	fmt.Fprintf(stderr, "wrote %s\n", filepath.Join(f.out, ManifestFile))
	return exitOK
}

func printEmitPlan(w io.Writer, m manifestJSON) {
	fmt.Fprintf(w, "%d worst instances as %s calls, %s bytes (%.1f MiB) in all:\n", len(m.Instances), m.Tool,
		results.Thousands(m.TotalBytes), float64(m.TotalBytes)/(1<<20))
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  FILE\tBYTES\tITS SCENARIO\tSERVE, VALIDATE --REQUEST\tBOTH WITH --GO-CLIENTS")
	for _, in := range m.Instances {
		scen := in.Binds + "-bound"
		if in.Render > 0 {
			scen += fmt.Sprintf(", %.2fx", in.Ratio)
		}
		fmt.Fprintf(tw, "  %s.json\t%s\t%s\t%s\t%s\n", in.Name, results.Thousands(in.Bytes), scen, outcomeText(in.Serve), outcomeText(in.ServeGo))
	}
	tw.Flush()
	for _, line := range wrap("ITS SCENARIO: the scenario's own gate (its dialect, rule, cap and budget) admits the instance, "+
		"bound by what binds, rendering that many times the budget. SERVE, VALIDATE --REQUEST: what boundlab serve and "+
		"boundlab validate --request answer at these limits (the derived body cap, the go dialect's exact charge, the published schema); "+
		"each instance's arithmetic is in "+ManifestFile+" and derive --instances --list --json.", helpWidth, "  ") {
		fmt.Fprintln(w, line)
	}
}

func outcomeText(o derivation.Outcome) string {
	switch o.Stage {
	case derivation.StageTransport:
		return fmt.Sprintf("%d body cap", o.Status)
	case derivation.StageAdmit:
		return "admit"
	}
	return o.Stage + ": " + o.Bound
}

// manifestOf reads a manifest back (tests, and anyone checking a directory).
func manifestOf(dir string) (manifestJSON, error) {
	var m manifestJSON
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	return m, err
}
