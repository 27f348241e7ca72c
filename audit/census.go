package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// CensusTarget is one server of a census list (ReadCensus): an HTTP
// endpoint already running, or a stdio command the census spawns, a
// process per session, each under an address-space bound.
type CensusTarget struct {
	// Name is the server's row and its SARIF file's name: letters, digits,
	// '.', '_' and '-', at most MaxCensusName bytes, unique in the list.
	Name string `json:"name"`
	// URL is a streamable HTTP endpoint; Header adds request headers.
	URL    string            `json:"url,omitempty"`
	Header map[string]string `json:"header,omitempty"`
	// Stdio is a command and its arguments; Env is added to the census's
	// own environment (which the command inherits: PATH, HOME), Dir is
	// its working directory.
	Stdio []string          `json:"stdio,omitempty"`
	Env   map[string]string `json:"env,omitempty"`
	Dir   string            `json:"dir,omitempty"`
	// AddressSpace bounds each stdio process's address space (ulimit -v),
	// in bytes; 0 means DefaultAddressSpace.
	AddressSpace int64 `json:"address_space,omitempty"`
	// Tools, Skip, AllTools and Calls are --tool, --skip, --all-tools and
	// --calls for this server.
	Tools    []string `json:"tools,omitempty"`
	Skip     []string `json:"skip,omitempty"`
	AllTools bool     `json:"all_tools,omitempty"`
	Calls    []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"calls,omitempty"`
}

// Census bounds: a list is at most MaxCensusBytes and MaxCensusTargets
// servers, a name at most MaxCensusName bytes. DefaultAddressSpace is a
// stdio server's address space when its entry names none: runtimes
// reserve space they never touch (Go's heap arenas, glibc's arenas), so
// the bound is loose, and a server holding the audit's 64 MiB body a few
// times over stays far under it.
const (
	MaxCensusBytes      = 1 << 20
	MaxCensusTargets    = 256
	MaxCensusName       = 64
	DefaultAddressSpace = 4 << 30
)

// ReadCensus reads a census list: a JSON array of CensusTarget, each with
// exactly one of url and stdio.
func ReadCensus(path string) ([]CensusTarget, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCensusBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxCensusBytes {
		return nil, fmt.Errorf("the census list is past %d bytes", MaxCensusBytes)
	}
	return ParseCensus(data)
}

// ParseCensus is ReadCensus on the list's bytes.
func ParseCensus(data []byte) ([]CensusTarget, error) {
	var ts []CensusTarget
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ts); err != nil {
		return nil, fmt.Errorf("the census list is not a JSON array of targets: %w", scrubJSON(err))
	}
	if len(ts) == 0 || len(ts) > MaxCensusTargets {
		return nil, fmt.Errorf("the census list holds %d targets: want 1 to %d", len(ts), MaxCensusTargets)
	}
	seen := map[string]bool{}
	for i, t := range ts {
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("target %d: %w", i, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("target %d: the name %q is taken by an earlier target", i, t.Name)
		}
		seen[t.Name] = true
	}
	return ts, nil
}

func (t CensusTarget) check() error {
	if t.Name == "" || len(t.Name) > MaxCensusName || strings.Trim(t.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != "" || t.Name[0] == '.' {
		return fmt.Errorf("name %s: want 1 to %d letters, digits, '.', '_' or '-', not led by '.'", strconv.Quote(cutName(t.Name)), MaxCensusName)
	}
	switch {
	case (t.URL == "") == (len(t.Stdio) == 0):
		return fmt.Errorf("%s: name exactly one of url and stdio", t.Name)
	case t.URL != "" && (len(t.Env) > 0 || t.Dir != "" || t.AddressSpace != 0):
		return fmt.Errorf("%s: env, dir and address_space are for a stdio target", t.Name)
	case len(t.Stdio) > 0 && t.Stdio[0] == "":
		return fmt.Errorf("%s: stdio names no command", t.Name)
	case t.AddressSpace < 0:
		return fmt.Errorf("%s: address_space is negative", t.Name)
	case len(t.Calls) > MaxExamples:
		return fmt.Errorf("%s: %d calls, past the %d one run takes", t.Name, len(t.Calls), MaxExamples)
	}
	for k := range t.Header {
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("%s: a header with no name", t.Name)
		}
	}
	for k := range t.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("%s: env name %q", t.Name, cutName(k))
		}
	}
	for i, c := range t.Calls {
		if err := checkExample(c.Arguments); err != nil {
			return fmt.Errorf("%s: call %d (%s): %w", t.Name, i, cutName(c.Name), err)
		}
	}
	return nil
}

// Target is the census target as an audit target.
func (t CensusTarget) Target() Target {
	if t.URL != "" {
		h := http.Header{}
		for k, v := range t.Header {
			h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		return &HTTP{URL: t.URL, Header: h}
	}
	env := os.Environ()
	keys := make([]string, 0, len(t.Env))
	for k := range t.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+t.Env[k])
	}
	as := t.AddressSpace
	if as == 0 {
		as = DefaultAddressSpace
	}
	// the auditor spawns a process per session: the shell bounds each one
	// before it becomes the server (exec), so no process of the census
	// runs unbounded
	args := append([]string{"-c", `ulimit -v ` + strconv.FormatInt(as>>10, 10) + ` && exec "$0" "$@"`}, t.Stdio...)
	return &Stdio{Command: "sh", Args: args, Env: env, Dir: t.Dir, name: strings.Join(t.Stdio, " ")}
}

// Census is the audits of a census list, in its order.
type Census struct {
	Seed    uint64         `json:"seed"`
	Servers []CensusServer `json:"servers"`
}

// CensusServer is one server's audit, or why there is none.
type CensusServer struct {
	Name    string  `json:"name"`
	Report  *Report `json:"report"`
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

// RunCensus audits each target in turn with base (its Target, Call, Skip,
// AllTools and Examples set from the entry); a target that fails is
// recorded with its error and the census goes on. started, when set, is
// told each server as its audit starts.
func RunCensus(ctx context.Context, targets []CensusTarget, base Config, started func(i int, name string)) *Census {
	c := &Census{Seed: base.Seed}
	for i, t := range targets {
		if started != nil {
			started(i, t.Name)
		}
		cfg := base
		cfg.Target, cfg.Call, cfg.Skip, cfg.AllTools = t.Target(), t.Tools, t.Skip, t.AllTools
		cfg.Examples = map[string]json.RawMessage{}
		for _, call := range t.Calls {
			cfg.Examples[call.Name] = call.Arguments
		}
		if err := ctx.Err(); err != nil {
			c.Servers = append(c.Servers, CensusServer{Name: t.Name, Error: "not run: " + err.Error()})
			continue
		}
		start := time.Now()
		rep, err := Run(ctx, cfg)
		s := CensusServer{Name: t.Name, Report: rep, Seconds: round3(time.Since(start).Seconds())}
		if err != nil {
			s.Report, s.Error = nil, err.Error()
		}
		c.Servers = append(c.Servers, s)
	}
	return c
}

// WriteCensusJSON writes the census as one JSON document.
func WriteCensusJSON(w io.Writer, c *Census) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// WriteCensusText writes the census table: a row per server with its
// boundary figures and its findings by severity and rule.
func WriteCensusText(w io.Writer, c *Census) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "server\ttools called\tbody cap\tmax depth\techo\tunknown keys\tdup names (envelope)\tinvalid utf8\tlone surrogates\traw controls\ttrailing\tfindings (error/warning/note)\trules")
	for _, s := range c.Servers {
		if s.Report == nil {
			fmt.Fprintf(tw, "%s\tnot audited: %s\n", s.Name, strings.ReplaceAll(s.Error, "\t", " "))
			continue
		}
		row := CensusRowOf(s.Report)
		fmt.Fprintf(tw, "%s\t%d of %d\t%s\t%s\t%.3f\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d/%d\t%s\n", s.Name, row.Called, row.Listed,
			row.BodyCap, row.MaxDepth, row.Echo, dash(row.UnknownKeys), dash(row.DuplicateNames), dash(row.InvalidUTF8),
			dash(row.LoneSurrogates), dash(row.RawControls), dash(row.TrailingBytes),
			row.Severity[SeverityError], row.Severity[SeverityWarning], row.Severity[SeverityNote], dash(row.Rules))
	}
	return tw.Flush()
}

// CensusRow is one server's figures as the census table shows them.
type CensusRow struct {
	Called, Listed int
	// BodyCap and MaxDepth are the figures, or "none <= CEILING" when the
	// ceiling was answered, or "-" when not measured.
	BodyCap, MaxDepth string
	Echo              float64
	UnknownKeys, DuplicateNames, InvalidUTF8, LoneSurrogates,
	RawControls, TrailingBytes string
	Severity map[string]int
	// Rules is each rule raised and how many times ("BLA001 x2, BLA104").
	Rules string
}

// CensusRowOf reads a report's row.
func CensusRowOf(r *Report) CensusRow {
	row := CensusRow{Listed: len(r.Tools), Severity: map[string]int{}, BodyCap: "-", MaxDepth: "-"}
	for _, t := range r.Tools {
		if t.Probed {
			row.Called++
		}
	}
	if b := r.Boundary; b != nil {
		switch {
		case b.BodyCap != nil:
			row.BodyCap = strconv.FormatInt(*b.BodyCap, 10)
		case b.AtCap != nil:
			row.BodyCap = "none <= " + strconv.FormatInt(b.BodyCeiling, 10)
		}
		switch {
		case b.MaxDepth != nil:
			row.MaxDepth = strconv.Itoa(*b.MaxDepth)
		case b.AtDepth != nil || b.PastDepth != nil:
			row.MaxDepth = "none <= " + strconv.Itoa(b.DepthCeiling)
		}
		row.Echo = b.EchoRatio
		row.UnknownKeys, row.DuplicateNames = b.UnknownKeys, b.DuplicateNamesEnvelope
		row.InvalidUTF8, row.LoneSurrogates, row.RawControls, row.TrailingBytes = b.InvalidUTF8, b.LoneSurrogates, b.RawControls, b.TrailingBytes
	}
	n := map[string]int{}
	for _, f := range r.Findings {
		row.Severity[f.Severity]++
		n[f.Rule]++
	}
	var rules []string
	for id := range n {
		rules = append(rules, id)
	}
	slices.Sort(rules)
	for i, id := range rules {
		if n[id] > 1 {
			rules[i] += " x" + strconv.Itoa(n[id])
		}
	}
	row.Rules = strings.Join(rules, ", ")
	return row
}
