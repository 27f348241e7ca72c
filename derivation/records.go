package derivation

import (
	"fmt"
	"strings"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
	"github.com/theurian/boundlab/sweeps"
)

// Producer is the name this package's records are pinned under
// (results/landing.json): where a file at MaxSourceFileBytes lands at the
// default limits, class by class, so the docs can quote which text reaches
// its schema and which the charge refuses.
const Producer = "landing"

func init() {
	results.Register(results.Producer{Name: Producer, Records: func() ([]results.Record, error) {
		return LandingRecords(charge.DefaultLimits())
	}})
}

// LandingRecords are, per dialect: the charge of a file at MaxSourceFileBytes
// of each class (landing.<dialect>.u<example>.charge) with where it is
// stopped under each client encoder family; the budget printable text in
// every script needs and the budget every class within the cap needs
// (landing.<dialect>.need-printable, .need-all); and how many classes the
// budget refuses, printable ones apart (.charge-bound-classes,
// .printable-charge-bound-classes).
func LandingRecords(l charge.Limits) ([]results.Record, error) {
	ls, err := Landings(l)
	if err != nil {
		return nil, err
	}
	needs := Needs(ls)
	src := func(what string) string {
		return "derivation.Landings(charge.DefaultLimits()): " + what + "; the charge is the class's exact width per code point (charge.Dialect.StringWidth) x floor(MaxSourceFileBytes / its UTF-8 bytes) + the member name \"body\""
	}
	var recs []results.Record
	for _, d := range charge.Dialects() {
		var mine []Landing
		for _, ld := range ls {
			if ld.Dialect == d {
				mine = append(mine, ld)
			}
		}
		if len(mine) == 0 {
			continue
		}
		rec := func(id, title string, v int64, unit, instance, what string) {
			recs = append(recs, results.Record{ID: "landing." + d.String() + "." + id, Title: title, Value: float64(v), Unit: unit,
				Instance: instance, Method: results.Derived, Source: src(what), Build: results.CurrentBuild(), DependsOn: results.DialectDeps(d)})
		}
		var bound, printableBound int64
		var boundNames []string
		for i, c := range mine[0].Classes {
			var where []string
			for _, ld := range mine {
				oc := ld.Classes[i]
				where = append(where, fmt.Sprintf("%s clients (cap %s): %s, %s bytes", ld.Encoder, results.Thousands(ld.Cap), oc.Outcome, results.Thousands(oc.Wire)))
			}
			verdict := "within the budget: the schema decides"
			if c.Charge > l.MaxParamsRenderedChars {
				verdict = "over the budget: the charge refuses it at any cap"
				bound++
				boundNames = append(boundNames, fmt.Sprintf("%s (U+%04X)", c.Row.Name(), c.Row.Example))
				if c.Printable() {
					printableBound++
				}
			}
			rec(fmt.Sprintf("u%04x.charge", c.Row.Example), fmt.Sprintf("charge of a file at MaxSourceFileBytes in %s", c.Row.Name()), c.Charge, d.Unit(),
				fmt.Sprintf("%s code points of U+%04X (%s), {\"body\": <file>}: %s; budget %s, %s; %s", results.Thousands(c.CodePoints), c.Row.Example,
					c.Row.Name(), c.Arithmetic(), results.Thousands(l.MaxParamsRenderedChars), verdict, strings.Join(where, "; ")),
				"one class's file")
		}
		rec("charge-bound-classes", "classes whose file at MaxSourceFileBytes the budget refuses", bound, "classes",
			fmt.Sprintf("of %d classes, charge over the budget %s: %s", len(mine[0].Classes), results.Thousands(l.MaxParamsRenderedChars), strings.Join(boundNames, ", ")),
			"the classes whose charge exceeds MaxParamsRenderedChars")
		rec("printable-charge-bound-classes", "printable classes (text in a script) whose file at MaxSourceFileBytes the budget refuses", printableBound, "classes",
			fmt.Sprintf("printable classes with charge over the budget %s", results.Thousands(l.MaxParamsRenderedChars)),
			"the printable classes whose charge exceeds MaxParamsRenderedChars")
		for _, n := range needs {
			if n.Dialect != d {
				continue
			}
			rec("need-printable", "smallest budget that lets a file of printable text at MaxSourceFileBytes reach its schema in every script", n.Printable, d.Unit(),
				fmt.Sprintf("%s: %s under %s clients", n.PrintableArithmetic, n.PrintableClass, n.PrintableEncoder), "the widest printable class's charge")
			rec("need-all", "smallest budget that lets a file at MaxSourceFileBytes of every class within the cap reach its schema", n.All, d.Unit(),
				fmt.Sprintf("%s: %s under %s clients", n.AllArithmetic, n.AllClass, n.AllEncoder), "the widest class's charge within the cap")
		}
	}
	return sweeps.NoteRetiredNumbers(l, recs)
}
