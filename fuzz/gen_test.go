package fuzz

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/theurian/boundlab/charge"
)

// A document generated without Hostile is JSON the gate admits: the
// generator's promise, which every agreement target relies on to reach past
// the gate.
func TestPlainDocumentsAreAdmitted(t *testing.T) {
	g, err := charge.NewGate(charge.Go, charge.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	shapes := map[Shape]int{}
	for i := 0; i < 3000; i++ {
		doc := Document(seedBytes(i), Options{})
		if !json.Valid(doc) {
			t.Fatalf("seed %d: not JSON: %q", i, doc)
		}
		if _, err := g.Check(doc); err != nil {
			t.Fatalf("seed %d: gate refused a plain document: %v\n%q", i, err, doc)
		}
		shapes[Shape(i%int(numShapes))]++
	}
}

// Hostile documents must break often enough to be worth generating.
func TestHostileDocumentsBreak(t *testing.T) {
	g, _ := charge.NewGate(charge.Go, charge.DefaultLimits())
	refused := 0
	for i := 0; i < 2000; i++ {
		if _, err := g.Check(Document(seedBytes(i), Options{Hostile: true})); err != nil {
			refused++
		}
	}
	if refused < 200 {
		t.Fatalf("only %d of 2000 hostile documents refused", refused)
	}
}

func TestStringsAreValidUTF8AndBounded(t *testing.T) {
	for i := 0; i < 2000; i++ {
		s := String(seedBytes(i), 40)
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 40 {
			t.Fatalf("seed %d: %q", i, s)
		}
	}
}

// Every class draws only code points of its own kind.
func TestClassesAreWhatTheyName(t *testing.T) {
	for _, c := range Classes() {
		t.Run(c.String(), func(t *testing.T) {
			g := newGen(seedBytes(int(c)), Options{})
			for i := 0; i < 200; i++ {
				r := g.rune(c)
				if !utf8.ValidRune(r) {
					t.Fatalf("%v drew %U, not a scalar value", c, r)
				}
				if c == AnyScalar {
					continue
				}
				if c == Format2Byte || c == Latin1Control {
					if utf8.RuneLen(r) != 2 || charge.Go.RuneClass(r) == charge.Printable {
						t.Fatalf("%v drew %U", c, r)
					}
				}
				if c == AstralNonPrintable && (r < 0x10000 || charge.Go.RuneClass(r) == charge.Printable) {
					t.Fatalf("%v drew %U", c, r)
				}
			}
		})
	}
}
