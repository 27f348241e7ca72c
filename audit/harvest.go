package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// A baseline the schema admits can still be refused for what no schema
// shows: a project id the server does not know. The values such a
// member needs are often in other tools' answers (project.list names the
// projects; a search names the items). So, before the per-tool probes,
// every called tool whose schema-built baseline is refused is called
// again with string members taken from the results already answered,
// ranked by how their names match, each call's arguments admitted by the
// tool's schema; a result makes that call its baseline.
const (
	harvestRounds  = 3    // passes over the refused tools: a value found in one pass can unlock the next
	harvestTries   = 4    // calls per tool per pass
	harvestValues  = 1024 // strings kept from the answers
	harvestNodes   = 1 << 14
	harvestTextMax = 1 << 20 // a text content parsed as JSON only up to this size
	harvestString  = 256     // longer strings are not identifiers
)

// BaselineHarvested: the schema-built baseline with string members taken
// from other tools' results (the schema admits it; the server answered it
// with a result).
const BaselineHarvested = "harvested"

// harvested is one string an answer held: its member name and the name of
// the member holding that object (the array's name for its items).
type harvested struct{ key, parent, v string }

type harvest struct {
	vals []harvested
	seen map[string]bool
}

// add keeps the strings of a result answer: its structured content, and
// text contents that are themselves JSON.
func (h *harvest) add(msg []byte) {
	var m struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Result == nil {
		return
	}
	var v any
	if json.Unmarshal(m.Result, &v) != nil {
		return
	}
	nodes := 0
	var walk func(v any, key, parent string)
	walk = func(v any, key, parent string) {
		nodes++
		if nodes > harvestNodes || len(h.vals) >= harvestValues {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], k, key)
			}
		case []any:
			for _, e := range x {
				walk(e, key, parent)
			}
		case string:
			if key == "text" && len(x) <= harvestTextMax {
				if t := bytes.TrimSpace([]byte(x)); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
					var inner any
					if json.Unmarshal(t, &inner) == nil {
						walk(inner, "", "")
						return
					}
				}
			}
			if len(x) <= harvestString && !h.seen[key+"\x00"+x] {
				if h.seen == nil {
					h.seen = map[string]bool{}
				}
				h.seen[key+"\x00"+x] = true
				h.vals = append(h.vals, harvested{key, parent, x})
			}
		}
	}
	walk(v, "", "")
}

// score ranks how well a harvested string's names fit member: its own
// member name, or "id" in a collection named after it (projects[].id for
// projectId).
func score(member string, h harvested) int {
	m, k := strings.ToLower(member), strings.ToLower(h.key)
	p := strings.TrimSuffix(strings.ToLower(h.parent), "s")
	switch {
	case m == k:
		return 4
	case k == "id" && p != "" && (m == p+"id" || m == p+"_id"):
		return 4
	case k == "id":
		return 2
	case len(k) > 1 && (strings.Contains(m, k) || strings.Contains(k, m)):
		return 1
	}
	return 0
}

// candidates are the harvested strings for member, best fit first, that
// its schema admits.
func (h *harvest) candidates(g *valueGen, member string) []string {
	type ranked struct {
		v string
		s int
	}
	var rs []ranked
	for _, x := range h.vals {
		if slices.ContainsFunc(rs, func(r ranked) bool { return r.v == x.v }) {
			continue
		}
		rs = append(rs, ranked{x.v, score(member, x)})
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].s > rs[j].s })
	var out []string
	for _, r := range rs {
		if len(out) == harvestTries {
			break
		}
		if g.admitsMember(member, r.v) {
			out = append(out, r.v)
		}
	}
	return out
}

// rebase calls each tool whose schema-built baseline is refused with
// harvested values, pass after pass while a pass makes one answered.
func (a *auditor) rebase(ctx context.Context, s *session, probed []*toolProbe) error {
	h := &harvest{}
	for _, tp := range probed {
		if !tp.baseShape.Refused() {
			h.add(tp.baseAnswer)
		}
	}
	explored := false
	for range harvestRounds {
		progress := false
		for _, tp := range probed {
			if tp.given || tp.gen == nil || !tp.baseShape.Refused() || a.rep.Tools[tp.idx].BaselineFrom != BaselineSchema {
				continue
			}
			a.progress(PhaseHarvest, "baseline of "+tp.tool.Name+" from other tools' answers")
			a.tool = tp.tool.Name
			ok, err := a.tryHarvested(ctx, s, tp, h)
			a.tool = ""
			if err != nil {
				return err
			}
			if ok {
				progress = true
				h.add(tp.baseAnswer)
			}
		}
		if !progress {
			if explored || !slices.ContainsFunc(probed, func(tp *toolProbe) bool { return tp.baseShape.Refused() }) {
				return nil
			}
			explored = true
			if err := a.explore(ctx, s, probed, h); err != nil {
				return err
			}
		}
	}
	return nil
}

// exploreValue is what a free string member is set to when answers are
// sought for their values: a search whose query is one common letter
// names items a query of the canary finds none of.
const exploreValue = "e"

// explore calls each tool answered with a result once more, its first free
// string member (no pattern, format, enum or const) at exploreValue, and
// keeps the strings of the answer.
func (a *auditor) explore(ctx context.Context, s *session, probed []*toolProbe, h *harvest) error {
	for _, tp := range probed {
		if tp.baseShape.Refused() || tp.gen == nil {
			continue
		}
		for _, m := range tp.base {
			p := tp.prop(m.k)
			if p == nil || !freeString(p.schema) {
				continue
			}
			args := object(with(tp.base, m.k, marshal(exploreValue)))
			if !tp.gen.admits(json.RawMessage(args)) {
				continue
			}
			a.progress(PhaseHarvest, "values from "+tp.tool.Name)
			ans, sh, err := a.callArgs(ctx, s, tp, args)
			if err != nil {
				return err
			}
			if !sh.Refused() {
				h.add(ans.Message)
			}
			break
		}
	}
	return nil
}

// tryHarvested calls tp with the k-th candidate of each string member
// that has one, k = 0..harvestTries-1; the first result is its baseline.
func (a *auditor) tryHarvested(ctx context.Context, s *session, tp *toolProbe, h *harvest) (bool, error) {
	cands := map[string][]string{}
	for _, m := range tp.base {
		if strings.HasPrefix(m.v, `"`) {
			if c := h.candidates(tp.gen, m.k); len(c) > 0 {
				cands[m.k] = c
			}
		}
	}
	if len(cands) == 0 {
		return false, nil
	}
	var tried []string
	for k := range harvestTries {
		base := slices.Clone(tp.base)
		for i, m := range base {
			if c := cands[m.k]; len(c) > 0 {
				base[i].v = marshal(c[min(k, len(c)-1)])
			}
		}
		args := object(base)
		if slices.Contains(tried, args) || !tp.gen.admits(json.RawMessage(args)) {
			continue
		}
		tried = append(tried, args)
		ans, sh, err := a.callArgs(ctx, s, tp, args)
		if err != nil {
			return false, err
		}
		if !sh.Refused() {
			tp.base, tp.baseShape, tp.baseAnswer, tp.harvested = base, sh, ans.Message, true
			tr := &a.rep.Tools[tp.idx]
			tr.Baseline, tr.BaselineFrom = &tp.baseShape, BaselineHarvested
			return true, nil
		}
	}
	return false, nil
}
