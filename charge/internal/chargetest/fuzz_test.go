package chargetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/reference"
)

// FuzzGate holds the gate to its promises over arbitrary bytes:
//   - it never panics;
//   - an admitted document is one encoding/json decodes, its charge equals the
//     reference renderer's sum over its leaves and names, its node count equals
//     the reference's, and its whole reference render fits
//     charge + nodes*PerNodeMax;
//   - a strictness refusal is of a document encoding/json rejects, or one
//     I-JSON (RFC 7493) forbids: invalid UTF-8, a lone surrogate, a repeated
//     name;
//   - an admitted document is within the limits: its reference charge, nodes
//     and depth at most the budget, MaxParamsNodes and MaxParamsNesting, and
//     the gate's depth the reference's;
//   - a refusal is printable ASCII within MaxRefusalBytes;
//   - a limit refusal's bound was really crossed: of a document encoding/json
//     decodes, the reference's charge, nodes or depth is past the limit; a
//     number refusal's offset lies inside a number token that is past it
//     (see crossedAt).
//   - under small limits drawn from the input (tinyLimits) and a chunk of a
//     few bytes, the verdict, bound, offset and pointer are the default
//     chunk's, and on a document the default gate admits the refusal names
//     the bound reference.FirstCrossing finds, inside the token it finds.
func FuzzGate(f *testing.F) {
	for _, seed := range []string{
		`{"query":"hello","limit":10}`, `[1,-0,2.5e-7,1e16,true,false,null]`, `"it's \"q\" \\"`,
		`{"a":{"b":[{"c":"\u0600\u007f\ud83d\ude00"}]}}`, "\"\x7f\u00ad\U000e0001\"", `{"a":1,"a":2}`,
		`"\ud800"`, "\"\xff\"", `[[[[[[[[]]]]]]]]`, `{"\\":"\\\\","'":"''"}`, `-0.0`, `1e999`, `123456789e-30`,
		// Runs long enough for the vector path's blocks (multiblock.go):
		// every length in turn, a run of four-byte sequences, and a run of
		// \u escapes (the escape loop's word path).
		`{"s":"` + strings.Repeat("aé中😀\u0600\x7f<'\u2028~", 6) + `"}`,
		`["` + strings.Repeat("😀\U000e0001", 10) + `"]`,
		`{"s":"` + strings.Repeat(`\u00e9\u4e2d`, 8) + `"}`,
		// Indented documents: runs of spaces and of tabs past a word.
		"{\n          \"a\": [\n\t\t\t\t\t\t\t\t\t1,\r\n            true\n\n  ]\n}\n",
	} {
		f.Add([]byte(seed))
	}
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 4096 // small enough that fuzzing reaches the charge bound
	l.MaxParamsNodes = 256
	l.MaxParamsNesting = 16
	// Built once per process, as go test builds it: OSS-Fuzz's builder calls
	// the target once per input, and building them was most of an input's time.
	fuzzGatesOnce.Do(func() {
		fuzzGates = map[charge.Dialect]*charge.Gate{}
		for _, d := range charge.Dialects() {
			fuzzGates[d] = Gate(f, d, l)
		}
	})
	gates := fuzzGates
	iJSONOnly := map[charge.Bound]bool{charge.BoundUTF8: true, charge.BoundSurrogate: true, charge.BoundDuplicateName: true}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, d := range charge.Dialects() {
			rep, ref := Check(t, gates[d], doc)
			checkValueAgrees(t, gates[d], doc, rep, ref)
			checkTinyLimits(t, d, doc, rep, ref)
			if ref != nil {
				msg := ref.Error()
				if len(msg) > charge.MaxRefusalBytes() {
					t.Fatalf("%s: refusal of %d bytes past MaxRefusalBytes %d", d, len(msg), charge.MaxRefusalBytes())
				}
				if strings.ContainsFunc(msg, func(r rune) bool { return r < 0x20 || r >= 0x7f }) {
					t.Fatalf("%s: refusal holds a byte outside printable ASCII: %q", d, msg)
				}
				if !ref.Bound.Limited() && json.Valid(doc) && !iJSONOnly[ref.Bound] {
					t.Fatalf("%s: refused as %s (%v), but encoding/json accepts it and I-JSON allows it", d, ref.Bound, ref)
				}
				if why := crossedAt(d, l, doc, ref); why != "" {
					t.Fatalf("%s: refused as %v, but %s", d, ref, why)
				}
				continue
			}
			v, err := reference.Decode(doc)
			if err != nil {
				t.Fatalf("%s: admitted, but encoding/json refuses it: %v", d, err)
			}
			if want := reference.Charge(d, v); rep.Charge != want {
				t.Fatalf("%s: charge %d, reference %d", d, rep.Charge, want)
			}
			if want := reference.Nodes(v); rep.Nodes != want {
				t.Fatalf("%s: %d nodes, reference %d", d, rep.Nodes, want)
			}
			if want := reference.Depth(v); rep.Depth != want {
				t.Fatalf("%s: depth %d, reference %d", d, rep.Depth, want)
			}
			if c, n, dp := reference.Charge(d, v), reference.Nodes(v), reference.Depth(v); c > l.MaxParamsRenderedChars || n > l.MaxParamsNodes || dp > l.MaxParamsNesting {
				t.Fatalf("%s: admitted past the limits: reference charge %d, nodes %d, depth %d (limits %d, %d, %d)",
					d, c, n, dp, l.MaxParamsRenderedChars, l.MaxParamsNodes, l.MaxParamsNesting)
			}
			whole := reference.Width(d, reference.Render(d, v))
			if ceiling := rep.Charge + int64(rep.Nodes*d.PerNodeMax()); whole > ceiling {
				t.Fatalf("%s: whole render %d past charge %d + %d nodes x %d", d, whole, rep.Charge, rep.Nodes, d.PerNodeMax())
			}
		}
	})
}

var (
	fuzzGatesOnce sync.Once
	fuzzGates     map[charge.Dialect]*charge.Gate // FuzzGate's, under its limits
)

// crossedAt says why a limit refusal of doc is wrong, or "" when its bound was
// crossed. A document encoding/json decodes must be past the limit by the
// reference's count; a number refusal must point into a number token longer
// than MaxNumberBytes (at the first byte past it) or whose exponent's digits
// up to the offset already pass MaxNumberExponent.
func crossedAt(d charge.Dialect, l charge.Limits, doc []byte, ref *charge.Refusal) string {
	if v, err := reference.Decode(doc); err == nil {
		switch ref.Bound {
		case charge.BoundCharge:
			if c := reference.Charge(d, v); c <= l.MaxParamsRenderedChars {
				return fmt.Sprintf("the reference charge is %d", c)
			}
		case charge.BoundNodes:
			if n := reference.Nodes(v); n <= l.MaxParamsNodes {
				return fmt.Sprintf("the reference counts %d nodes", n)
			}
		case charge.BoundNesting:
			if n := reference.Depth(v); n <= l.MaxParamsNesting {
				return fmt.Sprintf("the reference depth is %d", n)
			}
		}
	}
	isNum := func(c byte) bool {
		return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
	}
	switch ref.Bound {
	case charge.BoundNumberBytes:
		start := ref.Offset - l.MaxNumberBytes
		if start < 0 || ref.Offset >= len(doc) {
			return "the offset leaves no token of MaxNumberBytes+1 bytes"
		}
		for i := start; i <= ref.Offset; i++ {
			if !isNum(doc[i]) {
				return fmt.Sprintf("byte %d of the token is %q", i, doc[i])
			}
		}
		if start > 0 && isNum(doc[start-1]) {
			return "the token starts before offset - MaxNumberBytes"
		}
	case charge.BoundNumberExponent:
		i := ref.Offset
		if i >= len(doc) || doc[i] < '0' || doc[i] > '9' {
			return "the offset is not an exponent digit"
		}
		for i > 0 && doc[i-1] >= '0' && doc[i-1] <= '9' {
			i--
		}
		if i == 0 || (doc[i-1] != 'e' && doc[i-1] != 'E' && doc[i-1] != '+' && doc[i-1] != '-') {
			return "the offset is not inside an exponent"
		}
		if e, err := strconv.Atoi(string(doc[i : ref.Offset+1])); err == nil && e <= l.MaxNumberExponent {
			return fmt.Sprintf("the exponent up to the offset is %d", e)
		}
	}
	return ""
}

// checkValueAgrees holds CheckValue to Check: the same document embedded
// between a prefix and a suffix is admitted or refused the same way, at the
// same offset (shifted), with the same counts, and an admitted value ends
// where the document's last non-space byte does. A document Check refuses
// only for trailing bytes is one value CheckValue admits, ending there; one
// that ends mid-value is not compared (the framed scan reads on).
func checkValueAgrees(t *testing.T, g *charge.Gate, doc []byte, rep charge.Report, ref *charge.Refusal) {
	t.Helper()
	const prefix, suffix = " \t[", "]garbage"
	framed := append(append([]byte(prefix), doc...), suffix...)
	end, vrep, err := g.CheckValue(framed, len(prefix))
	var vref *charge.Refusal
	if err != nil && !errors.As(err, &vref) {
		t.Fatalf("CheckValue returned %T", err)
	}
	trimmed := len(bytes.TrimRight(doc, " \t\r\n"))
	switch {
	case ref != nil && ref.Bound == charge.BoundTrailing:
		if vref != nil {
			t.Fatalf("Check refused only trailing bytes, CheckValue refused %v", vref)
		}
		if end > len(prefix)+ref.Offset || vrep.Charge != rep.Charge || vrep.Nodes != rep.Nodes {
			t.Fatalf("the value before trailing bytes: end %d (trailing at %d), charge %d/%d, nodes %d/%d", end-len(prefix), ref.Offset, vrep.Charge, rep.Charge, vrep.Nodes, rep.Nodes)
		}
	case ref != nil && ref.Offset >= len(doc):
		// The document ended mid-value: CheckValue reads on into the suffix.
	case ref != nil && ref.Bound == charge.BoundSurrogate && vref != nil && vref.Bound == charge.BoundSyntax &&
		vref.Offset == ref.Offset+len(prefix) && !json.Valid(doc):
		// A high surrogate's escape with the document ending inside the next
		// escape ("\ud800\u"): alone, no low surrogate can follow; framed,
		// the suffix makes the next escape malformed. Both refuse it there.
	case ref != nil:
		if vref == nil || vref.Bound != ref.Bound || vref.Offset != ref.Offset+len(prefix) || vref.Pointer != ref.Pointer || end != vref.Offset {
			t.Fatalf("Check refused %v; CheckValue: %v, end %d", ref, vref, end)
		}
	default:
		if vref != nil {
			t.Fatalf("Check admitted; CheckValue refused %v", vref)
		}
		if end != len(prefix)+trimmed || vrep.Bytes != trimmed || vrep.Charge != rep.Charge || vrep.Nodes != rep.Nodes || vrep.Depth != rep.Depth {
			t.Fatalf("admitted: end %d want %d, report %+v vs %+v", end-len(prefix), trimmed, vrep, rep)
		}
	}
}

// tinyLimits draws small limits and a chunk size from doc's bytes, so every
// input is also scanned where each bound is near and strings cross chunks.
func tinyLimits(doc []byte) (charge.Limits, int) {
	h := fnv.New64a()
	h.Write(doc)
	x := h.Sum64()
	pick := func(n uint64) int { v := int(x % n); x /= n; return v }
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = int64(1 + pick(48))
	l.MaxParamsNodes = 1 + pick(12)
	l.MaxParamsNesting = 1 + pick(5)
	l.MaxNumberBytes = 1 + pick(8)
	l.MaxNumberExponent = pick(4)
	return l, 1 + pick(9)
}

// checkTinyLimits scans doc under tinyLimits with its small chunk and with
// the default one: they must agree; and where the default limits admitted doc
// (rep, ref), a slow token walk says which bound the small limits pass first,
// and in which token.
func checkTinyLimits(t *testing.T, d charge.Dialect, doc []byte, rep charge.Report, ref *charge.Refusal) {
	t.Helper()
	l, chunk := tinyLimits(doc)
	small := Gate(t, d, l)
	SetChunkBytes(small, chunk)
	srep, sref := Check(t, small, doc)
	wrep, wref := Check(t, Gate(t, d, l), doc)
	if (sref == nil) != (wref == nil) || (sref != nil && (sref.Bound != wref.Bound || sref.Offset != wref.Offset || sref.Pointer != wref.Pointer)) {
		t.Fatalf("%s %+v: chunk %d refused %v, the default chunk %v", d, l, chunk, sref, wref)
	}
	if sref == nil && srep != wrep {
		t.Fatalf("%s %+v: chunk %d reported %+v, the default chunk %+v", d, l, chunk, srep, wrep)
	}
	if ref != nil {
		return // only a document the gate admits is one the walk reads as the gate does
	}
	cr, crossed := reference.FirstCrossing(d, doc, l)
	switch {
	case !crossed:
		if sref != nil || srep != rep {
			t.Fatalf("%s %+v: within every bound by the walk, but refused %v (report %+v, defaults %+v)", d, l, sref, srep, rep)
		}
	case sref == nil:
		t.Fatalf("%s %+v: admitted, but the walk passes %s at [%d,%d)", d, l, cr.Bound, cr.Start, cr.End)
	case sref.Bound != cr.Bound || sref.Offset < cr.Start || sref.Offset >= cr.End:
		t.Fatalf("%s %+v: refused %v at %d, the walk passes %s at [%d,%d)", d, l, sref.Bound, sref.Offset, cr.Bound, cr.Start, cr.End)
	case (cr.Bound == charge.BoundNodes || cr.Bound == charge.BoundNesting) && sref.Offset != cr.Start,
		cr.Bound == charge.BoundNumberBytes && sref.Offset != cr.Start+l.MaxNumberBytes:
		t.Fatalf("%s %+v: refused %s at %d, token at %d", d, l, sref.Bound, sref.Offset, cr.Start)
	}
}
