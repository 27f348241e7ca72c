package sweeps

import (
	"fmt"
	"strings"

	"github.com/theurian/boundlab/charge"
)

// Rule is how a gate charges a string leaf against the render budget.
type Rule uint8

const (
	// CodePointRule is the seed's pre-#669 charge: a string value costs its
	// length in code points, len(value); member names cost nothing (the seed's
	// 12,582,912-code-point figure is the whole budget spent on one value).
	CodePointRule Rule = iota + 1
	// ExactRule is charge's: every string and member name costs exactly the
	// width the dialect renders it at.
	ExactRule
)

func (r Rule) String() string {
	if r == CodePointRule {
		return "codepoint"
	}
	return "exact"
}

// Scenario is one worst-render question: a transport cap, a budget, a
// dialect, an encoder family and a charge rule.
type Scenario struct {
	ID        string // names the scenario in record ids
	Dialect   charge.Dialect
	Encoder   charge.Encoder
	Rule      Rule
	Transport int64  // body cap, bytes
	CapName   string // where the cap comes from, in words
	Budget    int64  // MaxParamsRenderedChars
}

// Reach is the widest render one string value can reach in a scenario.
type Reach struct {
	Scenario
	Rows     []ClassRow // the classes the string is made of (one, or a two-class mix)
	Spans    []Span     // the string's content
	Admitted int64      // code points in the string
	Charge   int64      // its charge under the rule, the member name's included
	Wire     int64      // the whole request body's bytes
	Render   int64      // the string's rendered width, without its quotes
	ByCharge int64      // for a one-class string: how many code points the charge alone admits
	ByWire   int64      // ... and the transport alone
	Binds    string     // "charge", "transport" or "charge and transport"
}

// Ratio is the render over the budget.
func (r Reach) Ratio() float64 { return float64(r.Render) / float64(r.Budget) }

// Instance is the request body that reaches it.
func (r Reach) Instance() Instance {
	return LeafInstance(r.instanceName(), r.Encoder, r.Spans)
}

func (r Reach) instanceName() string {
	var parts []string
	for _, s := range r.Spans {
		parts = append(parts, fmt.Sprintf("u%04x", s.Rune))
	}
	return r.Scenario.ID + "-" + strings.Join(parts, "-")
}

// Classes names the string's classes.
func (r Reach) Classes() string {
	var parts []string
	for i, row := range r.Rows {
		parts = append(parts, fmt.Sprintf("%s (%s, %d B wire, %d %s)", row.Name(), RuneName(r.Spans[i].Rune),
			row.Wire.Wire(r.Encoder), row.Width, r.Dialect.Unit()))
	}
	return strings.Join(parts, " + ")
}

// linear is a string's rendered width as a function of its spans' counts:
// coef·n + c. charge's StringWidth is linear in the counts once every span is
// present (Python's quote rule adds a per-' term, Go's trailing backslash a
// constant), so three evaluations fit it exactly and a fourth checks the fit.
type linear struct {
	coef []int64
	c    int64
}

func (l linear) at(n []int64) int64 {
	v := l.c
	for i, x := range n {
		v += l.coef[i] * x
	}
	return v
}

func build(runes []rune, n []int64) string {
	var b strings.Builder
	for i, r := range runes {
		b.WriteString(strings.Repeat(string(r), int(n[i])))
	}
	return b.String()
}

func fitWidth(d charge.Dialect, runes []rune) (linear, error) {
	ones := make([]int64, len(runes))
	for i := range ones {
		ones[i] = 1
	}
	base := int64(d.StringWidth(build(runes, ones)))
	l := linear{coef: make([]int64, len(runes))}
	for i := range runes {
		n := append([]int64(nil), ones...)
		n[i] = 2
		l.coef[i] = int64(d.StringWidth(build(runes, n))) - base
	}
	l.c = base - l.at(ones) + l.c
	check := make([]int64, len(runes))
	for i := range check {
		check[i] = int64(3 + 2*i)
	}
	if got := int64(d.StringWidth(build(runes, check))); got != l.at(check) {
		return linear{}, fmt.Errorf("sweeps: %s width of %v is not linear in its counts", d, runes)
	}
	return l, nil
}

// setting is one scenario's constants for a given set of classes.
type setting struct {
	sc       Scenario
	runes    []rune
	render   linear // rendered width of the string
	charge   linear // charge of the string (without the name)
	wire     []int64
	budget   int64 // what the string may spend: the budget less the name's charge
	room     int64 // what the string may occupy on the wire: the cap less the envelope
	envelope int64
}

func newSetting(sc Scenario, runes []rune) (setting, error) {
	st := setting{sc: sc, runes: runes}
	var err error
	if st.render, err = fitWidth(sc.Dialect, runes); err != nil {
		return st, err
	}
	st.budget = sc.Budget
	if sc.Rule == ExactRule {
		st.charge = st.render
		st.budget -= int64(sc.Dialect.StringWidth(ValueKey))
	} else {
		st.charge = linear{coef: make([]int64, len(runes))}
		for i := range runes {
			st.charge.coef[i] = 1
		}
	}
	for _, r := range runes {
		st.wire = append(st.wire, int64(len(EncodeRune(sc.Encoder, r))))
	}
	spans := make([]Span, len(runes))
	for i, r := range runes {
		spans[i] = Span{r, 0}
	}
	st.envelope = LeafInstance("", sc.Encoder, spans).Envelope()
	st.room = sc.Transport - st.envelope
	return st, nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (st setting) reach(rows []ClassRow, n []int64) Reach {
	r := Reach{Scenario: st.sc, Rows: rows}
	var wire int64
	for i, x := range n {
		r.Spans = append(r.Spans, Span{st.runes[i], x})
		r.Admitted += x
		wire += x * st.wire[i]
	}
	r.Render = st.render.at(n)
	r.Charge = st.charge.at(n) + (st.sc.Budget - st.budget)
	r.Wire = st.envelope + wire
	chargeSlack, wireSlack := st.budget-st.charge.at(n), st.room-wire
	var minCharge, minWire int64 = 1 << 62, 1 << 62
	for i := range n {
		minCharge = min(minCharge, st.charge.coef[i])
		minWire = min(minWire, st.wire[i])
	}
	byCharge, byWire := chargeSlack < minCharge, wireSlack < minWire
	switch {
	case byCharge && byWire:
		r.Binds = "charge and transport"
	case byCharge:
		r.Binds = "charge"
	default:
		r.Binds = "transport"
	}
	return r
}

// Pure is the reach of a string made of one class alone.
func Pure(sc Scenario, row ClassRow) (Reach, bool, error) {
	st, err := newSetting(sc, []rune{row.Example})
	if err != nil {
		return Reach{}, false, err
	}
	v, k := st.charge.coef[0], st.charge.c
	byCharge := floorDiv(st.budget-k, v)
	byWire := floorDiv(st.room, st.wire[0])
	n := min(byCharge, byWire)
	if n < 1 {
		return Reach{}, false, nil
	}
	r := st.reach([]ClassRow{row}, []int64{n})
	r.ByCharge, r.ByWire = byCharge, byWire
	return r, true, nil
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Mix is the widest reach of a string holding at least one code point of
// each of two classes, a's run first. With two constraints (charge and wire)
// an optimal mix of the relaxed problem needs at most two classes; the integer
// optimum is found exactly by splitting a's count by its residue modulo
// L = lcm(b's charge, b's wire), on which b's best count is linear in the
// quotient on each side of one breakpoint.
func Mix(sc Scenario, a, b ClassRow) (Reach, bool, error) {
	st, err := newSetting(sc, []rune{a.Example, b.Example})
	if err != nil {
		return Reach{}, false, err
	}
	ca, cb, cc := st.charge.coef[0], st.charge.coef[1], st.charge.c
	wa, wb := st.wire[0], st.wire[1]
	L := cb / gcd(cb, wb) * wb
	p, q := ca*L/cb, wa*L/wb
	var best []int64
	bestV := int64(-1)
	try := func(rho, k, P, Q int64) {
		x := rho + k*L
		y := min(P-p*k, Q-q*k)
		if x < 1 || y < 1 {
			return
		}
		n := []int64{x, y}
		if v := st.render.at(n); v > bestV {
			bestV, best = v, n
		}
	}
	for rho := int64(0); rho < L; rho++ {
		P := floorDiv(st.budget-cc-ca*rho, cb)
		Q := floorDiv(st.room-wa*rho, wb)
		kmin := int64(0)
		if rho == 0 {
			kmin = 1
		}
		kmax := min(floorDiv(P-1, p), floorDiv(Q-1, q))
		if kmax < kmin {
			continue
		}
		ks := []int64{kmin, kmax}
		if p != q {
			k := floorDiv(P-Q, p-q)
			ks = append(ks, k, k+1)
		}
		for _, k := range ks {
			if k >= kmin && k <= kmax {
				try(rho, k, P, Q)
			}
		}
	}
	if best == nil {
		return Reach{}, false, nil
	}
	return st.reach([]ClassRow{a, b}, best), true, nil
}

// Derivation is a scenario's answer: every class's reach alone, the worst of
// those, and the worst string over every one- and two-class mix.
type Derivation struct {
	Scenario
	Classes   []Reach
	WorstPure Reach
	Worst     Reach
}

// Derive answers a scenario over a dialect's class table.
func Derive(sc Scenario, rows []ClassRow) (Derivation, error) {
	d := Derivation{Scenario: sc}
	for _, row := range rows {
		r, ok, err := Pure(sc, row)
		if err != nil {
			return d, err
		}
		if !ok {
			continue
		}
		d.Classes = append(d.Classes, r)
		if r.Render > d.WorstPure.Render {
			d.WorstPure = r
		}
	}
	d.Worst = d.WorstPure
	for _, a := range rows {
		for _, b := range rows {
			if a.Example == b.Example {
				continue
			}
			r, ok, err := Mix(sc, a, b)
			if err != nil {
				return d, err
			}
			if ok && r.Render > d.Worst.Render {
				d.Worst = r
			}
		}
	}
	if d.Worst.Render == 0 {
		return d, fmt.Errorf("sweeps: scenario %s admits no string", sc.ID)
	}
	return d, nil
}

// ClassReach finds the reach of the class holding r.
func (d Derivation) ClassReach(r rune) (Reach, bool) {
	for _, c := range d.Classes {
		row := c.Rows[0]
		if row.Wire.Contains(r) && d.Dialect.RuneClass(r) == row.Render && d.Dialect.RuneWidth(r) == row.Width {
			return c, true
		}
	}
	return Reach{}, false
}
