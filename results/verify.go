package results

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Problem is one reason verify fails.
type Problem struct {
	Kind     string // drift, unpinned, orphan, producer, duplicate, retired-quote, stale-markdown, bad-key
	Producer string
	ID       string
	Detail   string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Kind)
	if p.Producer != "" {
		b.WriteString(" [" + p.Producer + "]")
	}
	if p.ID != "" {
		b.WriteString(" " + p.ID)
	}
	if p.Detail != "" {
		b.WriteString(": " + p.Detail)
	}
	return b.String()
}

// VerifyOptions say what verify compares.
type VerifyOptions struct {
	// RecordsDir holds the pinned files.
	RecordsDir string
	// Producers recompute the live records; usually what Select runs.
	Producers []Producer
	// NotRun are the registered producers not run this time (what Select
	// left out): their pinned records are kept and not compared, and are
	// not orphans.
	NotRun []Skipped
	// DocPaths are Markdown files, or directories whose *.md files (recursively)
	// are scanned for quotes of retired figures.
	DocPaths []string
	// RecordsMarkdown is the generated reference (docs/records.md); verify
	// regenerates it from the pinned records and fails when it differs. Empty
	// skips the check.
	RecordsMarkdown string
	// StrictBuild compares every record exactly, build included, even when
	// the running build differs from the one it was pinned on.
	StrictBuild bool
}

// Rederived is a record recomputed for a running build that differs from
// its pinned one in a part the record depends on: not a failure, a report.
type Rederived struct {
	Producer string
	ID       string
	// Because lists each changed part the record depends on, "part: pinned
	// -> running".
	Because []string
	// Changes lists each field that moved, as drift would; empty when the
	// record held on the running build all the same.
	Changes []string
}

// Report is what verify found.
type Report struct {
	// Problems are the reasons verify fails, sorted; empty when it holds.
	Problems []Problem
	// Rederived are the records recomputed for this build, sorted by ID.
	Rederived []Rederived
	// Skipped are the producers that could not run here (Unavailable),
	// sorted: their pinned records are kept, not compared.
	Skipped []Skipped
	// NotRun are VerifyOptions.NotRun with their pinned counts: kept, not
	// compared.
	NotRun []Skipped
	// Compared is how many pinned records were compared with live ones.
	Compared int
	// Pinned describes the builds the pinned records hold for; Running, the
	// build verify ran on.
	Pinned, Running string
}

// Verify recomputes every producer's records and compares them with the
// pinned ones. The problems are sorted and empty when everything holds; the
// error is for verify's own failures (an unreadable directory).
func Verify(o VerifyOptions) ([]Problem, error) {
	r, err := VerifyReport(o)
	return r.Problems, err
}

// VerifyReport is Verify with what it re-derived and the builds compared.
//
// A record computed on a build that differs from its pinned one (another
// toolchain, another module version) is compared field by field all the
// same, unless it depends on a part that changed (Dependencies): then it is
// re-derived for the running build, its moves reported, not failed. Its
// method and depends_on must still match. StrictBuild turns this off.
func VerifyReport(o VerifyOptions) (Report, error) {
	pinned, err := Load(o.RecordsDir)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Pinned: describeBuilds(pinned), Running: DescribeBuild(CurrentBuild())}
	live, errs := Live(o.Producers)
	rep.Skipped = splitUnavailable(errs, pinned)
	for _, nr := range o.NotRun {
		nr.Pinned = len(pinned[nr.Producer])
		rep.NotRun = append(rep.NotRun, nr)
	}
	var probs []Problem
	for _, name := range sortedKeys(errs) {
		probs = append(probs, Problem{Kind: "producer", Producer: name, Detail: errs[name].Error()})
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(live) {
		for _, r := range live[name] {
			if prev, dup := seen[r.ID]; dup {
				probs = append(probs, Problem{Kind: "duplicate", Producer: name, ID: r.ID, Detail: "also produced by " + prev})
			}
			seen[r.ID] = name
		}
	}
	produced := map[string]bool{}
	for _, p := range o.Producers {
		produced[p.Name] = true
	}
	for _, nr := range o.NotRun {
		produced[nr.Producer] = true
	}
	for _, name := range sortedKeys(pinned) {
		if !produced[name] {
			for _, r := range pinned[name] {
				probs = append(probs, Problem{Kind: "orphan", Producer: name, ID: r.ID,
					Detail: "pinned in " + FileName(name) + ", but no registered producer makes it"})
			}
		}
	}
	for _, name := range sortedKeys(live) {
		if _, failed := errs[name]; failed {
			continue
		}
		rep.Compared += len(pinned[name])
		p, rd := diffBuild(name, pinned[name], live[name], o.StrictBuild)
		probs = append(probs, p...)
		rep.Rederived = append(rep.Rederived, rd...)
	}
	sort.Slice(rep.Rederived, func(i, j int) bool { return rep.Rederived[i].ID < rep.Rederived[j].ID })
	probs = append(probs, ScanRetired(allRecords(pinned, live), o.DocPaths)...)
	probs = append(probs, ScanFigures(allRecords(pinned, live), o.DocPaths, DocConstants())...)
	if o.RecordsMarkdown != "" {
		want := Markdown(pinned, producerOrder(o.Producers, o.NotRun, pinned))
		got, err := os.ReadFile(o.RecordsMarkdown)
		switch {
		case err != nil:
			probs = append(probs, Problem{Kind: "stale-markdown", Detail: err.Error()})
		case !bytes.Equal(got, want):
			probs = append(probs, Problem{Kind: "stale-markdown",
				Detail: o.RecordsMarkdown + " is not what the pinned records generate; run `go run ./cmd/boundlab derive --records " + o.RecordsDir + " --markdown > " + o.RecordsMarkdown + "`" + firstDiffLine(got, want)})
		}
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Kind != probs[j].Kind {
			return probs[i].Kind < probs[j].Kind
		}
		return probs[i].ID < probs[j].ID
	})
	rep.Problems = probs
	return rep, nil
}

func firstDiffLine(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf(" (first difference at line %d)", i+1)
		}
	}
	return ""
}

// producerOrder is the order records.md lists producers in: registered ones
// (run or not) by name, then pinned ones nothing registers.
func producerOrder(ps []Producer, notRun []Skipped, pinned map[string][]Record) []string {
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	for _, nr := range notRun {
		names = append(names, nr.Producer)
	}
	sort.Strings(names)
	for _, n := range sortedKeys(pinned) {
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func allRecords(sets ...map[string][]Record) []Record {
	var out []Record
	seen := map[string]bool{}
	for _, set := range sets {
		for _, name := range sortedKeys(set) {
			for _, r := range set[name] {
				if !seen[r.ID] {
					seen[r.ID] = true
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// Diff compares one producer's pinned and live records field by field,
// build included (verify's StrictBuild).
func Diff(producer string, pinned, live []Record) []Problem {
	probs, _ := diffBuild(producer, pinned, live, true)
	return probs
}

// diffBuild compares one producer's records; unless strict, a record whose
// build changed is held exactly on everything but the build when it depends
// on none of the changed parts, and re-derived when it depends on one.
func diffBuild(producer string, pinned, live []Record, strict bool) ([]Problem, []Rederived) {
	var probs []Problem
	var rederived []Rederived
	byID := map[string]Record{}
	for _, r := range pinned {
		byID[r.ID] = r
	}
	liveIDs := map[string]bool{}
	for _, l := range live {
		liveIDs[l.ID] = true
		p, ok := byID[l.ID]
		if !ok {
			probs = append(probs, Problem{Kind: "unpinned", Producer: producer, ID: l.ID,
				Detail: fmt.Sprintf("live value %s is not pinned in %s", FormatValue(l), FileName(producer))})
			continue
		}
		diffs := fieldDiffs(p, l)
		changed := buildDelta(p.Build, l.Build)
		if strict || len(changed) == 0 {
			for _, d := range diffs {
				probs = append(probs, Problem{Kind: "drift", Producer: producer, ID: l.ID, Detail: d.text})
			}
			continue
		}
		var because []string
		for _, dep := range union(Dependencies(p), Dependencies(l)) {
			if c, ok := changed[dep]; ok {
				because = append(because, dep+": "+c)
			}
		}
		rd := Rederived{Producer: producer, ID: l.ID, Because: because}
		for _, d := range diffs {
			switch {
			case d.field == "method" || d.field == "depends_on":
				probs = append(probs, Problem{Kind: "drift", Producer: producer, ID: l.ID, Detail: d.text})
			case strings.HasPrefix(d.field, "build."):
				// the build moved: Because says how, for what the record depends on
			case len(because) > 0:
				rd.Changes = append(rd.Changes, d.text)
			default:
				probs = append(probs, Problem{Kind: "drift", Producer: producer, ID: l.ID, Detail: d.text})
			}
		}
		if len(because) > 0 {
			rederived = append(rederived, rd)
		}
	}
	for _, p := range pinned {
		if !liveIDs[p.ID] {
			probs = append(probs, Problem{Kind: "orphan", Producer: producer, ID: p.ID,
				Detail: fmt.Sprintf("pinned value %s, but %s no longer produces it", FormatValue(p), producer)})
		}
	}
	return probs, rederived
}

// buildDelta names each part of the build that differs, as "pinned ->
// running": DepGo, "unicode.<dialect>", DepModule(path).
func buildDelta(p, l Build) map[string]string {
	out := map[string]string{}
	move := func(part, a, b string) {
		if a != b {
			out[part] = fmt.Sprintf("%s -> %s", orNone(a), orNone(b))
		}
	}
	move(DepGo, p.Go, l.Go)
	for _, k := range union(sortedKeys(p.Unicode), sortedKeys(l.Unicode)) {
		move("unicode."+k, p.Unicode[k], l.Unicode[k])
	}
	for _, k := range union(sortedKeys(p.Modules), sortedKeys(l.Modules)) {
		move(DepModule(k), p.Modules[k], l.Modules[k])
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// union merges sorted string lists, without repeats.
func union(a, b []string) []string {
	set := map[string]bool{}
	for _, x := range append(append([]string(nil), a...), b...) {
		set[x] = true
	}
	return sortedKeys(set)
}

// DescribeBuild is one line naming a build's toolchain and Unicode versions.
func DescribeBuild(b Build) string {
	s := b.Go
	if len(b.Unicode) > 0 {
		s += " (Unicode " + joinMap(b.Unicode) + ")"
	}
	return s
}

// describeBuilds names the toolchain builds pinned records hold for: their
// Go versions and their Unicode versions.
func describeBuilds(pinned map[string][]Record) string {
	gos, unis := map[string]bool{}, map[string]bool{}
	for _, rs := range pinned {
		for _, r := range rs {
			if r.Method == Retired {
				continue
			}
			if r.Build.Go != "" {
				gos[r.Build.Go] = true
			}
			if len(r.Build.Unicode) > 0 {
				unis[joinMap(r.Build.Unicode)] = true
			}
		}
	}
	if len(gos) == 0 {
		return "(none)"
	}
	s := strings.Join(sortedKeys(gos), " and ")
	if len(unis) > 0 {
		s += " (Unicode " + strings.Join(sortedKeys(unis), " / ") + ")"
	}
	return s
}

// fieldDiff is one field that moved, and how.
type fieldDiff struct{ field, text string }

// fieldDiffs lists every field on which live drifted from pinned. A measured
// value may move within the pinned tolerance; everything else is exact.
func fieldDiffs(p, l Record) []fieldDiff {
	var out []fieldDiff
	str := func(name, a, b string) {
		if a != b {
			out = append(out, fieldDiff{name, fmt.Sprintf("%s: pinned %q, live %q", name, a, b)})
		}
	}
	str("title", p.Title, l.Title)
	str("unit", p.Unit, l.Unit)
	str("instance", p.Instance, l.Instance)
	str("method", string(p.Method), string(l.Method))
	str("source", p.Source, l.Source)
	str("seed", p.Seed, l.Seed)
	str("seed_value", p.SeedValue, l.SeedValue)
	if p.Tolerance != l.Tolerance {
		out = append(out, fieldDiff{"tolerance", fmt.Sprintf("tolerance: pinned %v, live %v", p.Tolerance, l.Tolerance)})
	}
	if p.Method == Measured && l.Method == Measured {
		if d := math.Abs(p.Value - l.Value); !(d <= p.Tolerance) {
			out = append(out, fieldDiff{"value", fmt.Sprintf("value: pinned %s, live %s, off by %v (tolerance %v)", FormatValue(p), FormatValue(l), d, p.Tolerance)})
		}
	} else if p.Value != l.Value {
		out = append(out, fieldDiff{"value", fmt.Sprintf("value: pinned %s, live %s", FormatValue(p), FormatValue(l))})
	}
	str("build.go", p.Build.Go, l.Build.Go)
	str("build.unicode", joinMap(p.Build.Unicode), joinMap(l.Build.Unicode))
	str("build.modules", joinMap(p.Build.Modules), joinMap(l.Build.Modules))
	str("depends_on", strings.Join(p.DependsOn, ", "), strings.Join(l.DependsOn, ", "))
	var pr, lr Retirement
	if p.Retirement != nil {
		pr = *p.Retirement
	}
	if l.Retirement != nil {
		lr = *l.Retirement
	}
	str("retirement.claim", pr.Claim, lr.Claim)
	str("retirement.correction", pr.Correction, lr.Correction)
	str("retirement.attribution", pr.Attribution, lr.Attribution)
	str("retirement.counterexample", pr.Counterexample, lr.Counterexample)
	str("retirement.keys", strings.Join(pr.Keys, " | "), strings.Join(lr.Keys, " | "))
	return out
}

// ScanRetired finds every paragraph of the docs that quotes a retired figure
// (matches one of its Keys) without naming the retired record's ID. A
// paragraph is a run of non-blank lines; a Markdown table row is a paragraph
// of its own, so a table of figures attributes row by row.
func ScanRetired(recs []Record, paths []string) []Problem {
	type key struct {
		id string
		re *regexp.Regexp
	}
	var keys []key
	var probs []Problem
	for _, r := range recs {
		if r.Method != Retired || r.Retirement == nil {
			continue
		}
		for _, k := range r.Retirement.Keys {
			re, err := regexp.Compile(k)
			if err != nil {
				probs = append(probs, Problem{Kind: "bad-key", ID: r.ID, Detail: err.Error()})
				continue
			}
			keys = append(keys, key{r.ID, re})
		}
	}
	if len(keys) == 0 {
		return probs
	}
	for _, file := range markdownFiles(paths) {
		data, err := os.ReadFile(file)
		if err != nil {
			probs = append(probs, Problem{Kind: "retired-quote", Detail: err.Error()})
			continue
		}
		for _, para := range paragraphs(data) {
			for _, k := range keys {
				if k.re.MatchString(para.text) && !strings.Contains(para.text, k.id) {
					probs = append(probs, Problem{Kind: "retired-quote", ID: k.id,
						Detail: fmt.Sprintf("%s:%d quotes a retired figure (%s) without naming %s", file, para.line, k.re, k.id)})
				}
			}
		}
	}
	return probs
}

func markdownFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue // a tree without README.md or docs/ has nothing to quote
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		_ = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
				out = append(out, path)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

type paragraph struct {
	line int
	text string
}

func paragraphs(data []byte) []paragraph {
	var out []paragraph
	var cur []string
	start := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, paragraph{start, strings.Join(cur, "\n")})
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			flush()
		case strings.HasPrefix(trimmed, "|"):
			flush()
			out = append(out, paragraph{n, line})
		default:
			if len(cur) == 0 {
				start = n
			}
			cur = append(cur, line)
		}
	}
	flush()
	return out
}
