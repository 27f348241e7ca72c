package sweeps

import (
	"fmt"
	"sync"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

// Caps names the transport caps the derivations run at, from live constants.
type Caps struct {
	Shipped int64 // bodycap.python-clients.cap: 3 x MaxSourceFileBytes + allowance
	Interim int64 // 2 x MaxSourceFileBytes + allowance, the seed's withdrawn first draft
	SDK     int64 // SDKDefaultBodyBytes
	Go      int64 // bodycap.all-clients.cap
}

// CapsFor derives the caps from the limits.
func CapsFor(l charge.Limits) Caps {
	return Caps{
		Shipped: charge.BodyCap(l, charge.EnsureASCII, charge.Raw).Cap,
		Interim: InterimMultiplier*l.MaxSourceFileBytes + l.EnvelopeAllowance,
		SDK:     SDKDefaultBodyBytes,
		Go:      charge.BodyCap(l, charge.EnsureASCII, charge.Raw, charge.GoJSON).Cap,
	}
}

// Scenarios are the worst-render questions the lab answers: the seed's, with
// the python dialect and raw clients, and the same for the go dialect at the
// validator's caps.
func Scenarios(l charge.Limits) []Scenario {
	c := CapsFor(l)
	b := l.MaxParamsRenderedChars
	py, gd := charge.Python, charge.Go
	return []Scenario{
		{"python-raw-codepoint-shipped", py, charge.Raw, CodePointRule, c.Shipped, "the shipped cap, bodycap.python-clients.cap", b},
		{"python-raw-codepoint-sdk4mib", py, charge.Raw, CodePointRule, c.SDK, "the SDKs' default body cap, 4 MiB", b},
		{"python-raw-codepoint-interim", py, charge.Raw, CodePointRule, c.Interim, "the interim cap, 2 x MaxSourceFileBytes + EnvelopeAllowance", b},
		{"python-raw-exact-shipped", py, charge.Raw, ExactRule, c.Shipped, "the shipped cap, bodycap.python-clients.cap", b},
		{"go-raw-codepoint-shipped", gd, charge.Raw, CodePointRule, c.Shipped, "the validator's default cap, bodycap.python-clients.cap", b},
		{"go-go-codepoint-goclients", gd, charge.GoJSON, CodePointRule, c.Go, "the validator's cap with Go clients, bodycap.all-clients.cap", b},
		{"go-go-exact-goclients", gd, charge.GoJSON, ExactRule, c.Go, "the validator's cap with Go clients, bodycap.all-clients.cap", b},
	}
}

var (
	derivMu    sync.Mutex
	derivCache = map[charge.Limits][]Derivation{}
)

// Derivations answers every scenario; the answer for given limits is computed
// once per process.
func Derivations(l charge.Limits) ([]Derivation, error) {
	derivMu.Lock()
	defer derivMu.Unlock()
	if ds, ok := derivCache[l]; ok {
		return ds, nil
	}
	ds, err := derive(l)
	if err == nil {
		derivCache[l] = ds
	}
	return ds, err
}

func derive(l charge.Limits) ([]Derivation, error) {
	s := Shared()
	if err := s.Err(); err != nil {
		return nil, err
	}
	tables := map[charge.Dialect][]ClassRow{}
	for _, d := range charge.Dialects() {
		t, err := s.Table(d)
		if err != nil {
			return nil, err
		}
		tables[d] = t
	}
	var out []Derivation
	for _, sc := range Scenarios(l) {
		d, err := Derive(sc, tables[sc.Dialect])
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (r Reach) describe() string {
	return fmt.Sprintf("%s; %s code points, charge %s, %s-bound; %s",
		r.Classes(), thousands(r.Admitted), thousands(r.Charge), r.Binds, r.Instance().Describe())
}

func scenarioText(sc Scenario, l charge.Limits) string {
	return fmt.Sprintf("sweeps.Derive: %s dialect, %s clients, %s charge, cap %s bytes (%s), budget MaxParamsRenderedChars %s",
		sc.Dialect, sc.Encoder, sc.Rule, thousands(sc.Transport), sc.CapName, thousands(sc.Budget))
}

// WorstRenderRecords derives every scenario's worst render, the figures the
// seed quotes per class, and the worst whole render under the exact charge.
func WorstRenderRecords(l charge.Limits) ([]results.Record, error) {
	ds, err := Derivations(l)
	if err != nil {
		return nil, err
	}
	by := map[string]Derivation{}
	var recs []results.Record
	for _, d := range ds {
		by[d.ID] = d
		src := scenarioText(d.Scenario, l)
		unit := d.Dialect.Unit()
		id := "worstrender." + d.ID
		seed := map[string][2]string{
			"python-raw-codepoint-shipped": {"75,497,472 characters", "6.00x"},
			"python-raw-codepoint-sdk4mib": {"16,777,216 characters (retired.seed.sdk4mib-reach)", "1.33x"},
			"python-raw-codepoint-interim": {"53,476,811 characters, measured (retired.seed.interim-reach-filed-under-shipped-cap)", "~4.25x (retired.seed.interim-reach-filed-under-shipped-cap)"},
		}[d.ID]
		deps := results.DialectDeps(d.Dialect)
		recs = append(recs, withDeps(deps,
			derived(id+".class", "widest render of a one-class string value", float64(d.WorstPure.Render), unit, d.WorstPure.describe(), src, seed[0]),
			derived(id+".class-ratio", "that render over the budget", d.WorstPure.Ratio(), "x budget", d.WorstPure.describe(), src, seed[1]),
		)...)
		if d.Worst.Render != d.WorstPure.Render || len(d.Worst.Spans) != 1 {
			recs = append(recs, withDeps(deps,
				derived(id+".mix", "widest render of any string value (one class or a two-class mix)", float64(d.Worst.Render), unit, d.Worst.describe(), src, ""),
				derived(id+".mix-ratio", "that render over the budget", d.Worst.Ratio(), "x budget", d.Worst.describe(), src, ""),
			)...)
		}
	}

	// The per-class figures the seed names, at the shipped cap.
	sh := by["python-raw-codepoint-shipped"]
	for _, named := range []struct {
		id   string
		r    rune
		what string
		seed string
	}{
		{"del", 0x7f, "raw DEL", "4.00x, charge-bound"},
		{"astral-nonprintable", 0x1000c, "a non-printable astral code point", "5.21x, transport-bound at 6,553,600 (retired.seed.astral-count)"},
	} {
		r, ok := sh.ClassReach(named.r)
		if !ok {
			return nil, fmt.Errorf("sweeps: no class holds %s", RuneName(named.r))
		}
		src := scenarioText(sh.Scenario, l)
		recs = append(recs,
			derived("worstrender.python-raw-codepoint-shipped.class-"+named.id+".ratio", named.what+" alone: render over the budget",
				r.Ratio(), "x budget", r.describe(), src, named.seed),
			derived("worstrender.python-raw-codepoint-shipped.class-"+named.id+".admitted", named.what+" alone: code points admitted",
				float64(r.Admitted), "code points", r.describe(), src, ""),
		)
	}
	// The seed's worst class, U+0600: what the charge admits, the body
	// those code points make, and what the cap leaves beside them.
	if r, ok := sh.ClassReach(0x600); ok {
		src := scenarioText(sh.Scenario, l)
		seed := "U+0600: 12,582,912 admitted, 25,165,824 wire bytes, inside the cap with the + 1 MiB allowance to spare"
		leafWire := int64(charge.Raw.RuneWireBytes(0x600)) * r.Admitted
		recs = append(recs,
			derived("worstrender.python-raw-codepoint-shipped.class-u0600.admitted", "raw U+0600 alone: code points admitted",
				float64(r.Admitted), "code points", r.describe(), src, seed),
			derived("worstrender.python-raw-codepoint-shipped.class-u0600.wire", "raw U+0600 alone: the string's own wire bytes (the seed's count, the envelope aside)",
				float64(leafWire), "bytes", r.describe(), src+"; the admitted code points x their raw UTF-8 bytes", seed),
			derived("worstrender.python-raw-codepoint-shipped.class-u0600.cap-spare", "raw U+0600 alone: the cap less the string's wire bytes",
				float64(sh.Transport-leafWire), "bytes", r.describe(), src+"; the cap less the string's wire bytes", seed),
		)
	} else {
		return nil, fmt.Errorf("sweeps: no class holds U+0600")
	}
	if in := by["python-raw-codepoint-interim"]; in.WorstPure.Charge > 0 {
		recs = append(recs, derived("worstrender.python-raw-codepoint-interim.class-charge", "the interim cap's widest one-class string: its charge",
			float64(in.WorstPure.Charge), "characters", in.WorstPure.describe(), scenarioText(in.Scenario, l), "the interim cap: a body of U+0600 \"charged about 8.9 M\""))
	}

	// Ratios between caps, as the seed states them.
	sdk, in := by["python-raw-codepoint-sdk4mib"], by["python-raw-codepoint-interim"]
	ratio := func(a, b Reach) float64 { return float64(a.Render) / float64(b.Render) }
	recs = append(recs,
		derived("worstrender.python-raw-codepoint.shipped-over-sdk4mib", "worst one-class render at the shipped cap over the worst at the SDK default",
			ratio(sh.WorstPure, sdk.WorstPure), "x", "worstrender.python-raw-codepoint-shipped.class / worstrender.python-raw-codepoint-sdk4mib.class", "derived from the two records", "4.50x"),
		derived("worstrender.python-raw-codepoint.interim-over-sdk4mib", "worst one-class render at the interim cap over the worst at the SDK default (the seed's widening)",
			ratio(in.WorstPure, sdk.WorstPure), "x", "worstrender.python-raw-codepoint-interim.class / worstrender.python-raw-codepoint-sdk4mib.class", "derived from the two records", "3.2x"),
		derived("worstrender.python-raw-codepoint.shipped-over-sdk4mib-mix", "worst render of any string at the shipped cap over the worst at the SDK default",
			ratio(sh.Worst, sdk.Worst), "x", "worstrender.python-raw-codepoint-shipped.mix / worstrender.python-raw-codepoint-sdk4mib.class", "derived from the two records", ""),
	)

	// The whole document under the exact charge.
	for _, d := range charge.Dialects() {
		doc := DocumentWorst(d, l)
		recs = append(recs,
			derived("worstrender.document."+d.String()+".ceiling", "composed ceiling: budget + nodes x per-node punctuation maximum",
				float64(charge.ComposedCeiling(d, l)), d.Unit(), fmt.Sprintf("any document the gate admits (MaxParamsNodes %s, PerNodeMax %d)", thousands(int64(l.MaxParamsNodes)), d.PerNodeMax()),
				"charge.ComposedCeiling("+d.String()+", limits)", map[charge.Dialect]string{charge.Python: "12,982,912 characters"}[d]),
			derived("worstrender.document."+d.String()+".ceiling-over-budget", "composed ceiling over the budget alone",
				float64(charge.ComposedCeiling(d, l))/float64(l.MaxParamsRenderedChars), "x budget", "worstrender.document."+d.String()+".ceiling / MaxParamsRenderedChars",
				"charge.ComposedCeiling("+d.String()+", limits) / MaxParamsRenderedChars", map[charge.Dialect]string{charge.Python: "1.032x the constant alone"}[d]),
			derived("worstrender.document."+d.String()+".per-node-max", "the most punctuation one node adds to the render",
				float64(d.PerNodeMax()), d.Unit()+" per node", "any node of any document: "+punctuationText(d),
				"charge.Dialect.PerNodeMax (the dialect's punctuation table; every-shape tests hold it)", map[charge.Dialect]string{charge.Python: "at most 4 characters per node (300,000 random shapes)"}[d]),
			// The ceiling is punctuation only; the exact worst renders
			// the dialect's widest class, which follows its Unicode.
			withDeps(results.DialectDeps(d), derived("worstrender.document."+d.String()+".exact", "widest whole render of a tools/call arguments object the exact charge admits",
				float64(doc.Render), d.Unit(), doc.Instance.Describe()+fmt.Sprintf("; %s nodes, charge %s", thousands(int64(doc.Nodes)), thousands(doc.Charge)),
				"sweeps.DocumentWorst: "+doc.Formula, ""))[0],
		)
	}
	return recs, nil
}

// punctuationText names a dialect's punctuation widths.
func punctuationText(d charge.Dialect) string {
	p := d.Punctuation()
	return fmt.Sprintf("container %d, quotes %d, colon %d, separator %d", p.Container, p.Quotes, p.Colon, p.Separator)
}

// Document is the widest whole render a gate admits for an arguments object.
type Document struct {
	Dialect  charge.Dialect
	Instance Instance
	Nodes    int
	Charge   int64
	Render   int64
	Formula  string
}

// DocumentWorst builds the arguments object that renders widest as a whole
// under the exact charge: the whole budget in one member name, and every
// other node an empty array in its value, {"aaa…": [[], [], …]}. Render is
// computed from the dialect's punctuation table:
//
//	root + name quotes + budget + colon + array + first element + (nodes-4) x (separator + container)
//
// Why nothing renders wider (docs/derivations.md): every node adds at most
// PerNodeMax, and an object root forfeits some of it — the root container,
// the first member (no separator), and in Go the member name (quotes, not
// "value") — which this instance forfeits exactly once each.
func DocumentWorst(d charge.Dialect, l charge.Limits) Document {
	p := d.Punctuation()
	n := l.MaxParamsNodes
	b := l.MaxParamsRenderedChars
	render := int64(p.Container+p.Quotes+p.Colon+p.Container+p.Container) + b + int64(n-4)*int64(p.Separator+p.Container)
	return Document{
		Dialect:  d,
		Instance: Instance{Name: "document-" + d.String() + "-exact", Encoder: charge.Raw, Key: []Span{{'a', b}}, EmptyArrays: int64(n - 3)},
		Nodes:    n,
		Charge:   b,
		Render:   render,
		Formula: fmt.Sprintf("Container %d + Quotes %d + budget %s + Colon %d + Container %d + Container %d + (%s - 4) x (Separator %d + Container %d)",
			p.Container, p.Quotes, thousands(b), p.Colon, p.Container, p.Container, thousands(int64(n)), p.Separator, p.Container),
	}
}
