//go:build ignore

// This file holds Encode to the real decoder: go-118-fuzz-build's testing.F,
// which a libFuzzer binary built by OSS-Fuzz hands each input. It needs that
// module, which boundlab's go.mod does not require (it would reach every
// adopter's module graph), so it is excluded from every build here; only
// scripts/libfuzzer.sh, in the copy of the tree where it has added the module,
// drops the constraint above and runs it.

package fuzzseed_test

import (
	"reflect"
	"testing"

	gofuzz "github.com/AdamKorcz/go-118-fuzz-build/testing"

	"github.com/theurian/boundlab/internal/fuzzseed"
)

// decode runs the real F.Fuzz over in with fn's argument types and returns
// what it passed fn, or nil when it did not call fn.
func decode(in []byte, fn any) []any {
	var got []any
	ft := reflect.TypeOf(fn)
	rec := reflect.MakeFunc(ft, func(args []reflect.Value) []reflect.Value {
		for _, a := range args[1:] {
			got = append(got, a.Interface())
		}
		return nil
	})
	f := &gofuzz.F{Data: in, T: gofuzz.NewT()}
	f.Fuzz(rec.Interface())
	return got
}

func TestEncodeIsWhatTheRealDecoderReads(t *testing.T) {
	for _, c := range []struct {
		name string
		vals []any
		fn   any
	}{
		{"bytes", []any{[]byte(`{"a":1}`)}, func(*gofuzz.T, []byte) {}},
		{"one_byte", []any{[]byte{0}}, func(*gofuzz.T, []byte) {}},
		{"empty_bytes", []any{[]byte{}}, func(*gofuzz.T, []byte) {}},
		{"refusals_shape", []any{uint8(7), []byte(`{"q":"x"}`)}, func(*gofuzz.T, uint8, []byte) {}},
		{"refusals_shape_empty", []any{uint8(0), []byte{}}, func(*gofuzz.T, uint8, []byte) {}},
		{"empty_bytes_not_last", []any{[]byte{}, []byte("x")}, func(*gofuzz.T, []byte, []byte) {}},
		{"bytes_as_long_as_the_rest", []any{[]byte("abcde"), []byte("12")}, func(*gofuzz.T, []byte, []byte) {}},
		{"string", []any{"hello"}, func(*gofuzz.T, string) {}},
		{"empty_string", []any{""}, func(*gofuzz.T, string) {}},
		{"empty_string_not_last", []any{"", uint8(1)}, func(*gofuzz.T, string, uint8) {}},
		{"bools", []any{true, false}, func(*gofuzz.T, bool, bool) {}},
		{"ints", []any{int8(-128), int16(-2), int32(-3), int64(-4), int(-5)}, func(*gofuzz.T, int8, int16, int32, int64, int) {}},
		{"uints", []any{uint8(255), uint16(65535), uint32(1 << 31), uint64(1 << 63), uint(7)}, func(*gofuzz.T, uint8, uint16, uint32, uint64, uint) {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := fuzzseed.Encode(c.vals)
			if err != nil {
				t.Fatal(err)
			}
			if got := decode(in, c.fn); !reflect.DeepEqual(got, c.vals) {
				t.Fatalf("%x: the real decoder passed %#v, want %#v", in, got, c.vals)
			}
		})
	}
}
