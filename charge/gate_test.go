package charge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/charge/internal/chargetest"
)

// gate and check are chargetest's Gate and Check (check with its watchdog):
// one definition for charge's tests and for FuzzGate, which lives in
// charge/internal/chargetest so that OSS-Fuzz's builder can compile it.
func gate(t testing.TB, d charge.Dialect, l charge.Limits) *charge.Gate {
	t.Helper()
	return chargetest.Gate(t, d, l)
}

func check(t testing.TB, g *charge.Gate, doc []byte) (charge.Report, *charge.Refusal) {
	t.Helper()
	return chargetest.Check(t, g, doc)
}

// TestStrictness: each malformed document is refused under the bound that
// names what is wrong with it.
func TestStrictness(t *testing.T) {
	cases := []struct {
		name, doc string
		bound     charge.Bound
	}{
		{"empty", ``, charge.BoundSyntax},
		{"spaces", `   `, charge.BoundSyntax},
		{"byte_order_mark", "\xef\xbb\xbf{}", charge.BoundSyntax},
		{"open_brace", `{`, charge.BoundSyntax},
		{"name_without_value", `{"a"}`, charge.BoundSyntax},
		{"colon_without_value", `{"a":}`, charge.BoundSyntax},
		{"object_trailing_comma", `{"a":1,}`, charge.BoundSyntax},
		{"array_trailing_comma", `[1,]`, charge.BoundSyntax},
		{"no_comma", `[1 2]`, charge.BoundSyntax},
		{"bare_name", `{a:1}`, charge.BoundSyntax},
		{"single_quoted_name", `{'a':1}`, charge.BoundSyntax},
		{"leading_zero", `01`, charge.BoundTrailing}, // the value 0, then a byte
		{"leading_zero_in_array", `[01]`, charge.BoundSyntax},
		{"minus_alone", `-`, charge.BoundSyntax},
		{"point_without_fraction", `1.`, charge.BoundSyntax},
		{"point_without_integer", `.5`, charge.BoundSyntax},
		{"e_without_exponent", `1e`, charge.BoundSyntax},
		{"plus_sign", `+1`, charge.BoundSyntax},
		{"NaN", `NaN`, charge.BoundSyntax},
		{"Infinity", `Infinity`, charge.BoundSyntax},
		{"tru", `tru`, charge.BoundSyntax},
		{"nul", `nul`, charge.BoundSyntax},
		{"unclosed_string", `"abc`, charge.BoundSyntax},
		{"escape_x", `"\x"`, charge.BoundSyntax},
		{"escape_x00e9", `"\x00e9"`, charge.BoundSyntax}, // no escape, however \u-like what follows: the \u fast path must not take it
		{"escape_U00e9", `"\U00e9"`, charge.BoundSyntax},
		{"u_then_escape_x00e9", `"u\x00e9"`, charge.BoundSyntax}, // a u before the backslash is not after it
		{"u_escape_cut", `"\u12"`, charge.BoundSyntax},
		{"u_escape_not_hex", `"\u12G4"`, charge.BoundSyntax},
		{"trailing_nul", "[1]\x00", charge.BoundTrailing},
		{"two_objects", `{} {}`, charge.BoundTrailing},
		{"two_numbers", `1 2`, charge.BoundTrailing},
		{"raw_nul", "\"\x00\"", charge.BoundControl},
		{"raw_newline", "\"a\nb\"", charge.BoundControl},
		{"raw_1f", "\"\x1f\"", charge.BoundControl},
		{"byte_ff", "\"\xff\"", charge.BoundUTF8},
		{"overlong_slash", "\"\xc0\xaf\"", charge.BoundUTF8},
		{"utf8_surrogate", "\"\xed\xa0\x80\"", charge.BoundUTF8},
		{"past_U10FFFF", "\"\xf4\x90\x80\x80\"", charge.BoundUTF8},
		{"truncated", "\"\xe4\xb8\"", charge.BoundUTF8},
		{"byte_ff_in_name", "{\"\xff\":1}", charge.BoundUTF8},
		{"lone_high", `"\ud800"`, charge.BoundSurrogate},
		{"lone_low", `"\udc00"`, charge.BoundSurrogate},
		{"high_then_u0041", `"\ud800\u0041"`, charge.BoundSurrogate},
		{"high_then_x", `"\ud800x"`, charge.BoundSurrogate},
		{"repeated_name", `{"a":1,"a":1}`, charge.BoundDuplicateName},
		{"repeated_u0061", `{"a":1,"\u0061":2}`, charge.BoundDuplicateName},
		{"repeated_u00e9", `{"\u00e9":1,"é":2}`, charge.BoundDuplicateName},
		{"repeated_surrogate_pair", `{"\ud83d\ude00":1,"😀":2}`, charge.BoundDuplicateName},
		{"repeated_after_inner_objects", `{"x":{"a":1},"y":{"a":1},"x":2}`, charge.BoundDuplicateName},
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, ref := check(t, g, []byte(c.doc))
				if ref == nil {
					t.Errorf("%s: %q admitted, want %s", d, c.doc, c.bound)
					return
				}
				if ref.Bound != c.bound {
					t.Errorf("%s: %q refused as %s, want %s (%v)", d, c.doc, ref.Bound, c.bound, ref)
				}
			})
		}
	})
}

// TestManyNamesAreCheckedForDuplicatesAfterTheMapTakesOver covers objects past
// the linear scan, where names are indexed by hash.
func TestManyNamesAreCheckedForDuplicatesAfterTheMapTakesOver(t *testing.T) {
	g := gate(t, charge.Python, charge.DefaultLimits())
	for _, n := range []int{15, 16, 17, 1000} {
		t.Run(fmt.Sprintf("%d_names", n), func(t *testing.T) {
			var b strings.Builder
			b.WriteByte('{')
			for i := range n {
				fmt.Fprintf(&b, `"k%d":%d,`, i, i)
			}
			ok := b.String() + `"last":0}`
			if _, ref := check(t, g, []byte(ok)); ref != nil {
				t.Errorf("%d distinct names refused: %v", n, ref)
			}
			for _, c := range []struct{ name, dup string }{
				{"first_repeated", `"k0":0}`}, {"last_repeated", fmt.Sprintf(`"k%d":0}`, n-1)}, {"middle_repeated_escaped", fmt.Sprintf(`"\u006b%d":0}`, n/2)},
			} {
				t.Run(c.name, func(t *testing.T) {
					if _, ref := check(t, g, []byte(b.String()+c.dup)); ref == nil || ref.Bound != charge.BoundDuplicateName {
						t.Errorf("%d names then a repeat %s: got %v, want duplicate-name", n, c.dup, ref)
					}
				})
			}
		})
	}
	// The same names in sibling objects are not duplicates.
	t.Run("siblings", func(t *testing.T) {
		if _, ref := check(t, g, []byte(`[{"a":1,"b":2},{"a":1,"b":2},{"x":{"a":1},"a":{"a":1}}]`)); ref != nil {
			t.Errorf("sibling objects refused: %v", ref)
		}
	})
}

// TestAdmitted: valid documents, including every escape, are admitted and
// measured.
func TestAdmitted(t *testing.T) {
	docs := []struct {
		name, doc    string
		nodes, depth int
	}{
		{"zero", `0`, 1, 0},
		{"spaced_string", ` "x" `, 1, 0},
		{"empty_object", `{}`, 1, 1},
		{"empty_array", `[]`, 1, 1},
		{"nested", `{"a":[1,2,{"b":null}]}`, 8, 3},
		{"every_escape", `"\"\\\/\b\f\n\r\t\u0000\u00e9\ud83d\ude00"`, 1, 0},
		{"literals_and_numbers", "\t\n\r [true,false,null,-0.5e+3,1E-2] \n", 6, 1},
		{"noncharacters", `"\uffff\ufffe\ufdd0"`, 1, 0}, // noncharacters are scalar values
	}
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, c := range docs {
			t.Run(c.name, func(t *testing.T) {
				rep, ref := check(t, g, []byte(c.doc))
				if ref != nil {
					t.Errorf("%s: %q refused: %v", d, c.doc, ref)
					return
				}
				if rep.Nodes != c.nodes || rep.Depth != c.depth || rep.Bytes != len(c.doc) {
					t.Errorf("%s: %q: %+v, want nodes %d depth %d", d, c.doc, rep, c.nodes, c.depth)
				}
			})
		}
	})
}

func nested(depth int) string {
	return strings.Repeat(`{"a":[`, depth/2) + strings.Repeat("[", depth%2) + "0" +
		strings.Repeat("]", depth%2) + strings.Repeat(`]}`, depth/2)
}

// TestEachBoundAtAndPastItsLimit admits a document at each limit and refuses
// the one a unit past it, naming the bound and the limit.
func TestEachBoundAtAndPastItsLimit(t *testing.T) {
	l := charge.DefaultLimits()
	zeros := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]" }
	digits := func(n int) string { return "1" + strings.Repeat("0", n-1) }
	budget := int(l.MaxParamsRenderedChars)
	cases := []struct {
		name     string
		at, past string
		bound    charge.Bound
		limit    int64
		dialects []charge.Dialect
	}{
		{"nesting", nested(l.MaxParamsNesting), nested(l.MaxParamsNesting + 1), charge.BoundNesting, int64(l.MaxParamsNesting), charge.Dialects()},
		{"nodes", zeros(l.MaxParamsNodes - 1), zeros(l.MaxParamsNodes), charge.BoundNodes, int64(l.MaxParamsNodes), charge.Dialects()},
		{"number length", digits(l.MaxNumberBytes), digits(l.MaxNumberBytes + 1), charge.BoundNumberBytes, int64(l.MaxNumberBytes), charge.Dialects()},
		{"number exponent", fmt.Sprintf("1e%d", l.MaxNumberExponent), fmt.Sprintf("1e%d", l.MaxNumberExponent+1), charge.BoundNumberExponent, int64(l.MaxNumberExponent), charge.Dialects()},
		{"negative exponent", fmt.Sprintf("1e-%03d", l.MaxNumberExponent), fmt.Sprintf("1E-0%d", l.MaxNumberExponent+1), charge.BoundNumberExponent, int64(l.MaxNumberExponent), charge.Dialects()},
		{"charge, ASCII", `"` + strings.Repeat("a", budget) + `"`, `"` + strings.Repeat("a", budget+1) + `"`, charge.BoundCharge, l.MaxParamsRenderedChars, charge.Dialects()},
		{"charge, U+0600 (6 characters each)", `"` + strings.Repeat("\u0600", budget/6) + `"`, `"` + strings.Repeat("\u0600", budget/6) + `a"`, charge.BoundCharge, l.MaxParamsRenderedChars, []charge.Dialect{charge.Python}},
		{"charge, the quote rule", `"` + strings.Repeat("'", budget/2-1) + `\""`, `"` + strings.Repeat("'", budget/2) + `\""`, charge.BoundCharge, l.MaxParamsRenderedChars, []charge.Dialect{charge.Python}},
		{"charge, members", `{"` + strings.Repeat("k", budget/2) + `":"` + strings.Repeat("v", budget/2) + `"}`, `{"` + strings.Repeat("k", budget/2) + `":"` + strings.Repeat("v", budget/2) + `0"}`, charge.BoundCharge, l.MaxParamsRenderedChars, charge.Dialects()},
	}
	for _, c := range cases {
		t.Run(caseName(c.name), func(t *testing.T) {
			for _, d := range c.dialects {
				t.Run(d.String(), func(t *testing.T) {
					g := gate(t, d, l)
					if _, ref := check(t, g, []byte(c.at)); ref != nil {
						t.Errorf("%s/%s: at the limit, refused: %v", c.name, d, ref)
					}
					_, ref := check(t, g, []byte(c.past))
					if ref == nil {
						t.Errorf("%s/%s: one past the limit, admitted", c.name, d)
						return
					}
					if ref.Bound != c.bound || ref.Limit != c.limit {
						t.Errorf("%s/%s: refused as %s limit %d, want %s limit %d", c.name, d, ref.Bound, ref.Limit, c.bound, c.limit)
					}
				})
			}
		})
	}
}

// TestTheChargeBoundTripsAtTheFirstBytePast checks the offset a charge refusal
// reports, and that a long string is not read to its end.
func TestTheChargeBoundTripsAtTheFirstBytePast(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxParamsRenderedChars = 10
	g := gate(t, charge.Python, l)
	doc := `"` + strings.Repeat("a", 1000) // unterminated: a full read would be a syntax error
	_, ref := check(t, g, []byte(doc))
	if ref == nil || ref.Bound != charge.BoundCharge || ref.Offset != 11 {
		t.Fatalf("got %v, want a charge refusal at byte 11 (the 11th a)", ref)
	}
	doc = `"aaaaaaaaa` + "\u0600" + strings.Repeat("b", 1000) // 9 + 6 > 10 at the U+0600
	_, ref = check(t, g, []byte(doc))
	if ref == nil || ref.Bound != charge.BoundCharge || ref.Offset != 10 {
		t.Fatalf("got %v, want a charge refusal at byte 10 (the U+0600)", ref)
	}
}

// TestRefusalsNameWhereWithoutEchoing: a refusal holds the pointer with caller
// keys escaped and cut, never a caller value, and fits MaxRefusalBytes.
func TestRefusalsNameWhereWithoutEchoing(t *testing.T) {
	secret := "SECRET-" + strings.Repeat("x", 200)
	longKey := strings.Repeat("K", 10_000)
	cases := []struct {
		name    string
		doc     string
		pointer string
	}{
		{"control_in_a_nested_value", `{"a":{"b":[0,1,"` + secret + "\x01" + `"]}}`, "/a/b/2"},
		{"long_key", `{"` + longKey + `":"` + secret + "\x01" + `"}`, "/" + strings.Repeat("K", charge.KeyCut) + "..."},
		{"slash_and_tilde_in_a_key", `{"a/b~c":[[` + "\"\x02\"" + `]]}`, "/a~1b~0c/0/0"},
		{"escaped_key", `{"\u00e9\u0001\ud83d\ude00":"\x02"}`, `/\u00e9\u0001\ud83d\ude00`},
		{"repeated_secret_key", `{"ok":1,"` + secret + `":1,"` + secret + `":2}`, "/" + secret[:charge.KeyCut] + "..."},
		{"too_deep", nested(70), "/a/0/a/0/a/0/a/0/.../a/0/a/0/a/0/a/0"},
	}
	g := gate(t, charge.Go, charge.DefaultLimits())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refusalNamesWhereWithoutEchoing(t, g, c.doc, c.pointer) })
	}
}

// refusalNamesWhereWithoutEchoing is TestRefusalsNameWhereWithoutEchoing for
// one document.
func refusalNamesWhereWithoutEchoing(t *testing.T, g *charge.Gate, doc, pointer string) {
	_, ref := check(t, g, []byte(doc))
	if ref == nil {
		t.Errorf("%.40q admitted", doc)
		return
	}
	if ref.Pointer != pointer {
		t.Errorf("%.40q: pointer %q, want %q", doc, ref.Pointer, pointer)
	}
	msg := ref.Error()
	if strings.Contains(msg, "SECRET-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx") {
		t.Errorf("refusal echoes a caller value: %s", msg)
	}
	if len(msg) > charge.MaxRefusalBytes() {
		t.Errorf("refusal of %d bytes exceeds MaxRefusalBytes %d", len(msg), charge.MaxRefusalBytes())
	}
	for i := 0; i < len(msg); i++ {
		if msg[i] < 0x20 || msg[i] >= 0x7f {
			t.Fatalf("refusal holds byte %#x: %q", msg[i], msg)
		}
	}
}

// TestTheWidestRefusalFitsTheCeiling builds the widest pointer the display
// rules allow — every segment a cut, escape-dense name — under every bound.
func TestTheWidestRefusalFitsTheCeiling(t *testing.T) {
	name := strings.Repeat(`\\`, 40) // renders \\ per character: cut at KeyCut
	var b strings.Builder
	depth := charge.DefaultLimits().MaxParamsNesting + 1
	for range depth {
		b.WriteString(`{"` + name + `":`)
	}
	doc := b.String() + "0" + strings.Repeat("}", depth)
	g := gate(t, charge.Python, charge.DefaultLimits())
	_, ref := check(t, g, []byte(doc))
	if ref == nil || ref.Bound != charge.BoundNesting {
		t.Fatalf("got %v, want a nesting refusal", ref)
	}
	if len(ref.Pointer) > charge.MaxPointerBytes {
		t.Errorf("pointer of %d bytes exceeds MaxPointerBytes %d", len(ref.Pointer), charge.MaxPointerBytes)
	}
	if n := len(ref.Error()); n > charge.MaxRefusalBytes() {
		t.Errorf("refusal of %d bytes exceeds MaxRefusalBytes %d", n, charge.MaxRefusalBytes())
	}
}

// TestStrictnessAgreesWithEncodingJSON: every strictness refusal in the table
// is a document encoding/json rejects too, or one I-JSON (RFC 7493) forbids.
func TestStrictnessAgreesWithEncodingJSON(t *testing.T) {
	iJSONOnly := map[charge.Bound]bool{charge.BoundUTF8: true, charge.BoundSurrogate: true, charge.BoundDuplicateName: true}
	g := gate(t, charge.Python, charge.DefaultLimits())
	for _, c := range []struct{ name, doc string }{
		{"repeated_name", `{"a":1,"a":2}`}, {"lone_surrogate", `"\ud800"`}, {"byte_ff", "\"\xff\""}, {"trailing_comma", `[1,]`},
		{"raw_control", "\"\x01\""}, {"trailing_bytes", `{} x`}, {"byte_order_mark", "\xef\xbb\xbf1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, ref := check(t, g, []byte(c.doc))
			if ref == nil {
				t.Fatalf("%q admitted", c.doc)
			}
			if json.Valid([]byte(c.doc)) && !iJSONOnly[ref.Bound] {
				t.Errorf("%q: refused as %s, but encoding/json accepts it and I-JSON allows it", c.doc, ref.Bound)
			}
		})
	}
}

// TestLimitsValidate refuses limits the gate cannot enforce as documented.
func TestLimitsValidate(t *testing.T) {
	if err := charge.DefaultLimits().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*charge.Limits){
		"zero nodes":            func(l *charge.Limits) { l.MaxParamsNodes = 0 },
		"negative budget":       func(l *charge.Limits) { l.MaxParamsRenderedChars = -1 },
		"numbers CPython fails": func(l *charge.Limits) { l.MaxNumberBytes = 4301 },
		"nesting past the SDK":  func(l *charge.Limits) { l.MaxParamsNesting = 998 },
	} {
		t.Run(name, func(t *testing.T) {
			l := charge.DefaultLimits()
			mutate(&l)
			if _, err := charge.NewGate(charge.Python, l); err == nil {
				t.Errorf("%s: NewGate accepted %+v", name, l)
			}
		})
	}
}

// TestComposedCeiling recomputes the seed's composed ceiling from the live
// constants: the budget plus four characters a node.
func TestComposedCeiling(t *testing.T) {
	l := charge.DefaultLimits()
	if got, want := charge.ComposedCeiling(charge.Python, l), l.MaxParamsRenderedChars+int64(l.MaxParamsNodes)*4; got != want {
		t.Errorf("python ceiling %d, want %d", got, want)
	}
	if p := charge.Go.PerNodeMax(); p != len("value") {
		t.Errorf("go per-node maximum %d, want len(\"value\")", p)
	}
}

func TestGateIsSafeForConcurrentUse(t *testing.T) {
	g := gate(t, charge.Python, charge.DefaultLimits())
	docs := [][]byte{[]byte(`{"a":[1,2,3],"b":"x"}`), []byte(`{"a":1,"a":2}`), bytes.Repeat([]byte("["), 100)}
	done := make(chan bool)
	for w := range 4 {
		go func() {
			for i := range 2000 {
				doc := docs[(i+w)%len(docs)]
				_, err := g.Check(doc)
				if admitted := err == nil; admitted != bytes.Equal(doc, docs[0]) {
					t.Errorf("worker %d: admitted=%v for %.20q", w, admitted, doc)
				}
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}

// TestNameIndexAcrossDocuments runs one gate over more documents than the
// name index has generations, so stale slots and the generation wrap are
// exercised: every verdict must still be right.
func TestNameIndexAcrossDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: a sweep on one goroutine, which the full run holds")
	}
	g := gate(t, charge.Go, charge.DefaultLimits())
	var b strings.Builder
	b.WriteByte('{')
	for i := range 20 {
		fmt.Fprintf(&b, `"n%d":{"n%d":0},`, i, i)
	}
	distinct := []byte(b.String() + `"end":0}`)
	repeated := []byte(b.String() + `"n7":0}`)
	for i := range 70_000 {
		doc, want := distinct, true
		if i%997 == 0 {
			doc, want = repeated, false
		}
		if _, ref := check(t, g, doc); (ref == nil) != want {
			t.Fatalf("document %d: admitted=%v, want %v (%v)", i, ref == nil, want, ref)
		}
	}
}

// TestCheckValueStopsAtTheValuesEnd: CheckValue reads one value and nothing
// past it, with offsets into the whole document and pointers relative to the
// value.
func TestCheckValueStopsAtTheValuesEnd(t *testing.T) {
	g := gate(t, charge.Go, charge.DefaultLimits())
	doc := []byte("{\"name\":\"t\",\"arguments\": {\"a\":[1,\"x\"]} ,\"z\":\"\xff\"}")
	off := strings.Index(string(doc), `: {`) + 1
	end, rep, err := g.CheckValue(doc, off)
	if err != nil || string(doc[end-1]) != "}" || doc[end] != ' ' || rep.Nodes != 5 || rep.Depth != 2 || rep.Bytes != end-off {
		t.Fatalf("end %d (%q), report %+v, err %v", end, doc[end:], rep, err)
	}
	// The invalid byte after the value is the caller's: not read.
	bad := []byte("[\"ok\", {\"k\": \"\xff\"}]")
	_, _, err = g.CheckValue(bad, 1)
	if err != nil {
		t.Fatalf("the string value alone: %v", err)
	}
	_, _, err = g.CheckValue(bad, 6)
	var r *charge.Refusal
	if !errors.As(err, &r) || r.Bound != charge.BoundUTF8 || r.Offset != 14 || r.Pointer != "/k" {
		t.Fatalf("refusal inside the value: %v", err)
	}
	if end, _, err := g.CheckValue([]byte(`  12,`), 0); err != nil || end != 4 {
		t.Fatalf("a number before a comma: end %d, %v", end, err)
	}
	if _, _, err := g.CheckValue([]byte(`  `), 0); !errors.As(err, &r) || r.Bound != charge.BoundSyntax {
		t.Fatalf("no value: %v", err)
	}
}

// TestShortIntegersHoldMaxNumberBytes: the inline path for short integers
// holds the number-length bound like the full number path (it once skipped
// it: [123] was admitted under MaxNumberBytes 2).
func TestShortIntegersHoldMaxNumberBytes(t *testing.T) {
	l := charge.DefaultLimits()
	l.MaxNumberBytes = 2
	g := gate(t, charge.Go, l)
	for _, c := range []struct {
		name, doc string
		bound     charge.Bound // 0: admitted
	}{
		{"element_12", `[12]`, 0}, {"element_123", `[123]`, charge.BoundNumberBytes}, {"bare_123", `123`, charge.BoundNumberBytes},
		{"member_12", `{"a":12}`, 0}, {"member_123", `{"a":123}`, charge.BoundNumberBytes}, {"third_element_333", `[1,22,333]`, charge.BoundNumberBytes},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := g.Check([]byte(c.doc))
			var r *charge.Refusal
			switch {
			case c.bound == 0 && err != nil:
				t.Errorf("%s: refused %v", c.doc, err)
			case c.bound != 0 && (!errors.As(err, &r) || r.Bound != c.bound):
				t.Errorf("%s: want %v, got %v", c.doc, c.bound, err)
			}
		})
	}
}

// TestLiteralsAtTheirEdges: true, false and null read as words are admitted
// whole, at the document's end and before each byte that may follow, and
// charged the dialect's width; cut short at every length, or with any one
// byte wrong, each is refused as syntax at its first byte (past its last
// byte, what follows is the scan's to refuse).
func TestLiteralsAtTheirEdges(t *testing.T) {
	forDialects(t, func(t *testing.T, d charge.Dialect) {
		g := gate(t, d, charge.DefaultLimits())
		for _, lit := range []string{"true", "false", "null"} {
			t.Run(lit, func(t *testing.T) { literalAtItsEdges(t, d, g, lit) })
		}
	})
}

// literalAtItsEdges is TestLiteralsAtTheirEdges for one dialect and one
// literal.
func literalAtItsEdges(t *testing.T, d charge.Dialect, g *charge.Gate, lit string) {
	want := int64(d.LiteralWidth(lit))
	for _, ctx := range []string{"%s", "[%s]", "[%s,1]", `{"a":%s}`, "%s ", "[%s ]"} {
		doc := fmt.Sprintf(ctx, lit)
		frame, _ := check(t, g, []byte(fmt.Sprintf(ctx, "0"))) // 0 is charged 1
		if rep, ref := check(t, g, []byte(doc)); ref != nil || rep.Charge != frame.Charge-1+want {
			t.Errorf("%s %q: charged %d (%v), want %d", d, doc, rep.Charge, ref, frame.Charge-1+want)
		}
	}
	for n := 1; n < len(lit); n++ {
		for _, tail := range []string{"", "]", " ", "\"", "e"} {
			if strings.HasPrefix(lit[:n]+tail, lit) {
				continue // "tru"+"e" is whole
			}
			doc := "[" + lit[:n] + tail
			if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundSyntax || ref.Offset != 1 {
				t.Errorf("%s %q: got %v, want syntax at 1", d, doc, ref)
			}
		}
	}
	for k := range len(lit) {
		bad := []byte("[" + lit + "]")
		bad[1+k] ^= 0x20 // a letter's other case
		if _, ref := check(t, g, bad); ref == nil || ref.Bound != charge.BoundSyntax || ref.Offset != 1 {
			t.Errorf("%s %q: got %v, want syntax at 1", d, bad, ref)
		}
	}
	doc := "[" + lit + "e]"
	if _, ref := check(t, g, []byte(doc)); ref == nil || ref.Bound != charge.BoundSyntax || ref.Offset != 1+len(lit) {
		t.Errorf("%s %q: got %v, want syntax at %d", d, doc, ref, 1+len(lit))
	}
}
