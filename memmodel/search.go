package memmodel

import (
	"fmt"
	"sort"

	"github.com/theurian/boundlab/charge"
)

// SearchClasses are the code points the search builds bodies from: one
// representative per (UTF-8 length, PEP 393 kind, printable) class the model
// distinguishes, plus DEL and a non-printable Latin-1 character.
var SearchClasses = []rune{ASCII, DEL, Latin1, 0x85, Cyrillic, Arabic, CJK, 0x2028, Emoji, AstralNonPrint}

// Wideners are the singletons the search may add: one code point each, which
// cost almost no wire bytes and move the parsed string's kind.
var Wideners = []rune{Cyrillic, Emoji}

// Worst is the worst shape the search found for a family, by one measure.
type Worst struct {
	Family Family
	By     string // "ratio" or "absolute"
	Prediction
}

// SearchWorst searches body shapes for each family's worst ratio and worst
// absolute peak under parser p at scale sc. A body is one or two filler
// classes plus any subset of the wideners, ordered by kind (the order that
// widens most often), sent raw or ensure_ascii-escaped; the fillers' counts
// are the vertices of the region the cap and, for families (ii) and (iii),
// the budget leave them, since every moment is linear in the counts between
// vertices.
func SearchWorst(sc Scale, p Parser) []Worst {
	best := map[string]Worst{}
	consider := func(s Shape) {
		pr := Predict(s, p, sc.Limits)
		if pr.Stats.Wire > sc.Cap || pr.Stats.CodePoints < 2 {
			return
		}
		want := Valid
		if s.Verdict == Refuses {
			want = SchemaRefused
		}
		if pr.Family != ChargeRefused && pr.Family != want {
			return
		}
		for _, by := range []string{"ratio", "absolute"} {
			k := fmt.Sprintf("%d/%s", pr.Family, by)
			cur, ok := best[k]
			better := !ok
			if ok && by == "ratio" {
				better = marginal(pr) > marginal(cur.Prediction) || marginal(pr) == marginal(cur.Prediction) && pr.Peak > cur.Peak
			} else if ok {
				better = pr.Peak > cur.Peak
			}
			if better {
				best[k] = Worst{Family: pr.Family, By: by, Prediction: pr}
			}
		}
	}
	for _, e := range []charge.Encoder{charge.Raw, charge.EnsureASCII} {
		for _, v := range []Verdict{Refuses, Accepts} {
			for i, a := range SearchClasses {
				for _, b := range SearchClasses[i:] {
					for mask := 0; mask < 1<<len(Wideners); mask++ {
						var singles []rune
						for j, w := range Wideners {
							if mask&(1<<j) != 0 {
								singles = append(singles, w)
							}
						}
						for _, xy := range vertices(sc, e, a, b, singles) {
							s := buildShape(a, b, xy[0], xy[1], singles, v)
							s.Encoder = e
							consider(s)
						}
					}
				}
			}
		}
	}
	var out []Worst
	for _, f := range Families {
		for _, by := range []string{"ratio", "absolute"} {
			if w, ok := best[fmt.Sprintf("%d/%s", f, by)]; ok {
				w.Shape.Name = fmt.Sprintf("search-%s%s-%s", searchPrefix(p), f, by)
				out = append(out, w)
			}
		}
	}
	return out
}

// buildShape orders the segments by PEP 393 kind, fillers before singletons of
// the same kind, so a decoder widens at every step it can.
func buildShape(a, b rune, x, y int, singles []rune, v Verdict) Shape {
	type item struct {
		seg    Segment
		single bool
	}
	items := []item{{Segment{a, x}, false}}
	if b != a {
		items = append(items, item{Segment{b, y}, false})
	}
	for _, s := range singles {
		items = append(items, item{Segment{s, 1}, true})
	}
	sort.SliceStable(items, func(i, j int) bool {
		ki, kj := PEP393Kind(items[i].seg.R), PEP393Kind(items[j].seg.R)
		if ki != kj {
			return ki < kj
		}
		return !items[i].single && items[j].single
	})
	s := Shape{Encoder: charge.Raw, Verdict: v}
	for _, it := range items {
		s.Segments = append(s.Segments, it.seg)
	}
	return s
}

// vertices are the filler counts (x of a, y of b) at the corners of
// {x, y >= 0, wire <= cap, charge <= budget}, and the cap-only corners for
// charge-refused bodies.
func vertices(sc Scale, e charge.Encoder, a, b rune, singles []rune) [][2]int {
	base := Shape{Encoder: e, Verdict: Refuses}
	for _, s := range singles {
		base.Segments = append(base.Segments, Segment{s, 1})
	}
	st := base.Stats()
	wRoom := sc.Cap - st.Wire
	cRoom := sc.Limits.MaxParamsRenderedChars - st.Charge
	if wRoom <= 0 {
		return nil
	}
	wa, wb := int64(e.RuneWireBytes(a)), int64(e.RuneWireBytes(b))
	ca, cb := int64(charge.Python.RuneWidth(a)), int64(charge.Python.RuneWidth(b))
	out := [][2]int{{int(wRoom / wa), 0}, {0, int(wRoom / wb)}}
	if cRoom > 0 {
		out = append(out, [2]int{int(min(wRoom/wa, cRoom/ca)), 0}, [2]int{0, int(min(wRoom/wb, cRoom/cb))})
		// both bounds binding: x*wa + y*wb = wRoom, x*ca + y*cb = cRoom
		if det := wa*cb - wb*ca; det != 0 {
			x := (wRoom*cb - wb*cRoom) / det
			y := (wa*cRoom - wRoom*ca) / det
			if x > 0 && y > 0 {
				out = append(out, [2]int{int(x), int(y)})
			}
		}
	}
	return out
}

// marginal is the peak less the fixed cost, over the wire bytes: the ratio a
// body's size drives, which the fixed cost would otherwise win on tiny bodies.
func marginal(p Prediction) float64 { return float64(p.Peak-Fixed) / float64(p.Stats.Wire) }

// searchPrefix keeps the pydantic_core search's shape names as they were
// pinned ("search-i-ratio") and names the others' ("search-json-i-ratio").
func searchPrefix(p Parser) string {
	if p.Name == PydanticCore.Name {
		return ""
	}
	return shortParser(p.Name) + "-"
}
