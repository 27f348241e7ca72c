package charge_test

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/theurian/boundlab/charge"
)

// canary marks caller text an error must not quote.
const canary = "CANARY"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int64
		ok       bool
	}{
		{"bytes", "16777216", 16 << 20, true},
		{"MiB", "16MiB", 16 << 20, true},
		{"lower case, a space", "16 mib", 16 << 20, true},
		{"underscores", "1_024KiB", 1 << 20, true},
		{"GiB", "2GiB", 2 << 30, true},
		{"B", "7B", 7, true},
		{"spaces around", "  7  ", 7, true},
		{"zero", "0", 0, true},
		{"empty", "", 0, false},
		{"a unit alone", "MiB", 0, false},
		{"a decimal unit", "16MB", 0, false},
		{"a sign", "-1", 0, false},
		{"a plus", "+1", 0, false},
		{"a fraction", "1.5MiB", 0, false},
		{"an exponent", "1e3", 0, false},
		{"the most 64 bits hold", "9223372036854775807", math.MaxInt64, true},
		{"one past", "9223372036854775808", 0, false},
		{"a unit past 64 bits", "8589934592GiB", 0, false},
		{"a unit at 64 bits", "8589934591GiB", 8589934591 << 30, true},
		{"at MaxSizeBytes", strings.Repeat("0", charge.MaxSizeBytes-1) + "7", 7, true},
		{"one past MaxSizeBytes", strings.Repeat("0", charge.MaxSizeBytes) + "7", 0, false},
		{"caller text", canary + strings.Repeat("9", 10), 0, false},
		{"long caller text", canary + strings.Repeat("9", 100), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := charge.ParseSize(tc.in)
			if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && strings.Contains(err.Error(), canary) {
				t.Errorf("the error quotes the text: %v", err)
			}
		})
	}
}

// fieldSetters set each Limits field directly, written here rather than read
// from the package, so a member wired to the wrong field fails.
var fieldSetters = map[string]func(*charge.Limits, int64){
	"max_source_file_bytes": func(l *charge.Limits, v int64) { l.MaxSourceFileBytes = v },
	"envelope":              func(l *charge.Limits, v int64) { l.EnvelopeAllowance = v },
	"budget":                func(l *charge.Limits, v int64) { l.MaxParamsRenderedChars = v },
	"max_nodes":             func(l *charge.Limits, v int64) { l.MaxParamsNodes = int(v) },
	"max_nesting":           func(l *charge.Limits, v int64) { l.MaxParamsNesting = int(v) },
	"max_number_bytes":      func(l *charge.Limits, v int64) { l.MaxNumberBytes = int(v) },
	"max_number_exponent":   func(l *charge.Limits, v int64) { l.MaxNumberExponent = int(v) },
}

// The members are the seven, in the documented order, and each sets its own
// field, from a JSON number and from a string, read back by Member.
func TestLimitsMembersSetTheirFields(t *testing.T) {
	want := []string{"max_source_file_bytes", "envelope", "budget", "max_nodes", "max_nesting", "max_number_bytes", "max_number_exponent"}
	if got := charge.LimitsMembers(); !slices.Equal(got, want) {
		t.Fatalf("LimitsMembers() = %v, want %v", got, want)
	}
	for _, name := range want {
		for _, form := range []struct{ name, value string }{{"number", "7"}, {"string", `"7"`}} {
			t.Run(name+"/"+form.name, func(t *testing.T) {
				exp := charge.DefaultLimits()
				fieldSetters[name](&exp, 7)
				got, err := charge.ParseLimits([]byte(`{"` + name + `": ` + form.value + `}`))
				if err != nil || got != exp {
					t.Fatalf("got %+v, %v; want %+v", got, err, exp)
				}
				if v, ok := got.Member(name); !ok || v != 7 {
					t.Errorf("Member(%q) = %d, %v; want 7", name, v, ok)
				}
				var l charge.Limits
				if err := l.SetMember(name, "7"); err != nil {
					t.Fatal(err)
				}
				var direct charge.Limits
				fieldSetters[name](&direct, 7)
				if l != direct {
					t.Errorf("SetMember(%q, 7) = %+v, want %+v", name, l, direct)
				}
			})
		}
	}
	if _, ok := charge.DefaultLimits().Member("nosuch"); ok {
		t.Error("Member of no member reported ok")
	}
}

// Every member's range, at each bound and one past it, in the file; the
// bounds are written here as the file format documents them.
func TestParseLimitsAtEachBoundAndOnePast(t *testing.T) {
	const maxInt32 = 1<<31 - 1
	// the largest file beside the default 1 MiB allowance whose body cap
	// fits in 63 bits: GoJSON writes < > & as \u003c, 6 bytes for 1
	mostFile := (math.MaxInt64 - int64(1<<20)) / 6
	mostEnvelope := math.MaxInt64 - 6*int64(8<<20)
	for _, tc := range []struct {
		name     string
		doc      string
		ok       bool
		mentions []string // what the error names: the member and the bound
	}{
		{"max_source_file_bytes at 1", `{"max_source_file_bytes": 1}`, true, nil},
		{"max_source_file_bytes at 0", `{"max_source_file_bytes": 0}`, false, []string{"max_source_file_bytes", "at least 1"}},
		{"max_source_file_bytes at the body cap's room", `{"max_source_file_bytes": ` + strconv.FormatInt(mostFile, 10) + `}`, true, nil},
		{"max_source_file_bytes one past", `{"max_source_file_bytes": ` + strconv.FormatInt(mostFile+1, 10) + `}`, false,
			[]string{"max_source_file_bytes", "at most " + strconv.FormatInt(mostFile, 10), "envelope 1048576"}},
		{"envelope at 0", `{"envelope": 0}`, true, nil},
		{"envelope negative", `{"envelope": -1}`, false, []string{"envelope", "whole number"}},
		{"envelope at the body cap's room", `{"envelope": ` + strconv.FormatInt(mostEnvelope, 10) + `}`, true, nil},
		{"envelope one past", `{"envelope": ` + strconv.FormatInt(mostEnvelope+1, 10) + `}`, false, []string{"max_source_file_bytes", "envelope"}},
		{"budget at 1", `{"budget": 1}`, true, nil},
		{"budget at 0", `{"budget": "0"}`, false, []string{"budget", "at least 1"}},
		{"budget at 63 bits", `{"budget": "9223372036854775807"}`, true, nil},
		{"budget one past 63 bits", `{"budget": "9223372036854775808"}`, false, []string{"budget", "9223372036854775807"}},
		{"max_nodes at 1", `{"max_nodes": 1}`, true, nil},
		{"max_nodes at 0", `{"max_nodes": 0}`, false, []string{"max_nodes", "at least 1"}},
		{"max_nodes at 2^31-1", `{"max_nodes": 2147483647}`, true, nil},
		{"max_nodes one past", `{"max_nodes": "2GiB"}`, false, []string{"max_nodes", "at most " + strconv.Itoa(maxInt32)}},
		{"max_nesting at 1", `{"max_nesting": 1}`, true, nil},
		{"max_nesting at 0", `{"max_nesting": 0}`, false, []string{"max_nesting", "at least 1"}},
		{"max_nesting at 997", `{"max_nesting": 997}`, true, nil},
		{"max_nesting one past", `{"max_nesting": 998}`, false, []string{"max_nesting", "at most 997", "got 998"}},
		{"max_number_bytes at 1", `{"max_number_bytes": 1}`, true, nil},
		{"max_number_bytes at 0", `{"max_number_bytes": 0}`, false, []string{"max_number_bytes", "at least 1"}},
		{"max_number_bytes at 4300", `{"max_number_bytes": 4300}`, true, nil},
		{"max_number_bytes one past", `{"max_number_bytes": 4301}`, false, []string{"max_number_bytes", "at most 4300", "CPython"}},
		{"max_number_exponent at 0", `{"max_number_exponent": 0}`, true, nil},
		{"max_number_exponent negative", `{"max_number_exponent": "-1"}`, false, []string{"max_number_exponent", "whole number"}},
		{"max_number_exponent at 2^31-1", `{"max_number_exponent": 2147483647}`, true, nil},
		{"max_number_exponent one past", `{"max_number_exponent": 2147483648}`, false, []string{"max_number_exponent", "at most " + strconv.Itoa(maxInt32)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := charge.ParseLimits([]byte(tc.doc))
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Validate(); err != nil {
					t.Errorf("ParseLimits returned limits Validate refuses: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("admitted: %+v", l)
			}
			if l != (charge.Limits{}) {
				t.Errorf("on an error the limits are %+v, want the zero value", l)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("the error does not name %q: %v", m, err)
				}
			}
		})
	}
}

// What is not a limits file is refused, bounded, quoting nothing of it but a
// strictness refusal's cut member name.
func TestParseLimitsRefusesWhatIsNotALimitsFile(t *testing.T) {
	long := canary + strings.Repeat("x", 200)
	pad := func(n int) string { return `{"budget": 5` + strings.Repeat(" ", n-len(`{"budget": 5}`)) + `}` }
	for _, tc := range []struct {
		name, doc string
		ok        bool
		mentions  []string
	}{
		{"empty object", `{}`, true, nil},
		{"whitespace around", " \n{\"budget\": \"5 KiB\"}\n", true, nil},
		{"every member", `{"max_source_file_bytes":"16MiB","envelope":"1MiB","budget":"17MiB","max_nodes":200000,"max_nesting":32,"max_number_bytes":40,"max_number_exponent":400}`, true, nil},
		{"at MaxLimitsFileBytes", pad(charge.MaxLimitsFileBytes), true, nil},
		{"one past MaxLimitsFileBytes", pad(charge.MaxLimitsFileBytes + 1), false, []string{strconv.Itoa(charge.MaxLimitsFileBytes)}},
		{"empty", ``, false, []string{"syntax"}},
		{"not JSON", canary, false, []string{"syntax"}},
		{"an array", `["` + long + `"]`, false, []string{"one JSON object"}},
		{"a string", `"` + long + `"`, false, []string{"one JSON object"}},
		{"null", `null`, false, []string{"one JSON object"}},
		{"a member twice", `{"budget": 5, "budget": 6}`, false, []string{"repeats a member name", `"/budget"`}},
		{"an unknown member twice", `{"` + long + `": 5, "` + long + `": 6}`, false, []string{"repeats a member name", `"/` + long[:charge.KeyCut] + `...`}},
		{"an unknown member", `{"` + long + `": 1}`, false, []string{"no limit", "206 bytes", "max_source_file_bytes"}},
		{"a boolean", `{"budget": true}`, false, []string{"budget", "boolean"}},
		{"null value", `{"budget": null}`, false, []string{"budget", "null"}},
		{"an object value", `{"budget": {"` + long + `": 1}}`, false, []string{"budget", "object"}},
		{"an array value", `{"budget": ["` + long + `"]}`, false, []string{"budget", "array"}},
		{"a fraction", `{"budget": 1.5}`, false, []string{"budget", "whole number"}},
		{"an exponent", `{"budget": 1e3}`, false, []string{"budget", "whole number"}},
		{"a bad size string", `{"budget": "` + long + `"}`, false, []string{"budget", "whole number"}},
		{"bytes after the object", `{"budget": 5} {}`, false, []string{"trailing-bytes"}},
		{"invalid UTF-8", "{\"budget\": \"5\xff\"}", false, []string{"utf8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := charge.ParseLimits([]byte(tc.doc))
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				if err := l.Validate(); err != nil {
					t.Error(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("admitted: %+v", l)
			}
			// a strictness refusal's pointer may show a member name cut at
			// KeyCut bytes, never more
			msg := strings.Replace(err.Error(), long[:charge.KeyCut], "", 1)
			if strings.Contains(msg, canary) || len(err.Error()) > 400 {
				t.Errorf("the error quotes the file or runs long (%d bytes): %s", len(msg), msg)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("the error does not say %q: %v", m, err)
				}
			}
		})
	}
}

func TestSetMemberRefusesWithoutChanging(t *testing.T) {
	for _, tc := range []struct{ name, member, value, mentions string }{
		{"no such member", canary + "x", "5", "no limit"},
		{"a bad value", "budget", canary, "whole number"},
		{"out of range", "max_nesting", "998", "at most 997"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := charge.DefaultLimits()
			err := l.SetMember(tc.member, tc.value)
			if err == nil || !strings.Contains(err.Error(), tc.mentions) || strings.Contains(err.Error(), canary) {
				t.Errorf("SetMember(%q, %q) = %v, want an error saying %q", tc.member, tc.value, err, tc.mentions)
			}
			if l != charge.DefaultLimits() {
				t.Errorf("a refused SetMember changed the limits: %+v", l)
			}
		})
	}
}

// Validate refuses a MaxSourceFileBytes whose body cap does not fit in an
// int64 beside the allowance: at the largest that fits, the cap under every
// encoder family is exact and positive; one more byte is refused.
func TestValidateBodyCapFitsAtItsBoundAndOnePast(t *testing.T) {
	for _, env := range []int64{0, 1 << 20, math.MaxInt64 / 2} {
		t.Run("envelope "+strconv.FormatInt(env, 10), func(t *testing.T) {
			l := charge.DefaultLimits()
			l.EnvelopeAllowance = env
			l.MaxSourceFileBytes = (math.MaxInt64 - env) / 6 // GoJSON's \u003c: 6 wire bytes for 1
			if err := l.Validate(); err != nil {
				t.Fatalf("at the bound: %v", err)
			}
			d := charge.BodyCap(l, charge.Encoders()...)
			want := new(big.Int).Mul(big.NewInt(6), big.NewInt(l.MaxSourceFileBytes))
			want.Add(want, big.NewInt(env))
			if d.Multiplier.Cmp(big.NewRat(6, 1)) != 0 || !want.IsInt64() || d.Cap != want.Int64() || d.Cap <= 0 {
				t.Errorf("at the bound: cap %d (multiplier %s), want %s", d.Cap, d.Multiplier.RatString(), want)
			}
			l.MaxSourceFileBytes++
			err := l.Validate()
			if err == nil || !strings.Contains(err.Error(), "MaxSourceFileBytes must be at most "+strconv.FormatInt(l.MaxSourceFileBytes-1, 10)) {
				t.Errorf("one past: Validate said %v", err)
			}
			if _, err := charge.NewGate(charge.Go, l); err == nil {
				t.Error("one past: NewGate accepted it")
			}
		})
	}
}
