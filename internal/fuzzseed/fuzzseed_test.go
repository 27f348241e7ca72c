package fuzzseed

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// consume decodes in as go-118-fuzz-build's F.Fuzz does for types (a port
// of its switch over the argument types and of go-fuzz-headers'
// ConsumeFuzzer at the pinned versions; libfuzzer.sh also runs
// realdecoder_test.go against the real ones). ok is false where F.Fuzz
// returns without calling the fuzz function.
func consume(in []byte, types []reflect.Type) (vals []any, ok bool) {
	pos, total := uint32(0), uint32(len(in))
	nbytes := func(n uint32) ([]byte, bool) {
		if pos >= total || total-pos < n {
			return nil, false
		}
		b := in[pos : pos+n]
		pos += n
		return b, true
	}
	order := func() (binary.ByteOrder, bool) {
		b, ok := nbytes(1)
		if !ok {
			return nil, false
		}
		if b[0]%2 == 0 {
			return binary.LittleEndian, true
		}
		return binary.BigEndian, true
	}
	for _, t := range types {
		switch t.Kind() {
		case reflect.Slice, reflect.String:
			lb, ok := nbytes(4)
			if !ok {
				return nil, false
			}
			l := binary.BigEndian.Uint32(lb)
			if t.Kind() == reflect.Slice {
				if l == 0 {
					l = 30
				}
				left := total - pos
				if left == 0 {
					return nil, false
				}
				if l != left {
					l %= left
				}
				vals = append(vals, in[pos:pos+l])
				pos += l
				continue
			}
			if pos >= total || pos+l > total {
				return nil, false
			}
			vals = append(vals, string(in[pos:pos+l]))
			pos += l
		case reflect.Bool:
			b, ok := nbytes(1)
			if !ok {
				return nil, false
			}
			vals = append(vals, b[0]%2 == 0)
		case reflect.Uint8, reflect.Int8:
			b, ok := nbytes(1)
			if !ok {
				return nil, false
			}
			vals = append(vals, reflect.ValueOf(b[0]).Convert(t).Interface())
		case reflect.Uint16, reflect.Int16:
			b, ok := nbytes(2)
			o, ok2 := order()
			if !ok || !ok2 {
				return nil, false
			}
			vals = append(vals, reflect.ValueOf(o.Uint16(b)).Convert(t).Interface())
		case reflect.Uint32, reflect.Int32:
			b, ok := nbytes(4)
			if !ok {
				return nil, false
			}
			vals = append(vals, reflect.ValueOf(binary.BigEndian.Uint32(b)).Convert(t).Interface())
		default: // the 64-bit integers
			b, ok := nbytes(8)
			o, ok2 := order()
			if !ok || !ok2 {
				return nil, false
			}
			vals = append(vals, reflect.ValueOf(o.Uint64(b)).Convert(t).Interface())
		}
	}
	return vals, true
}

func typesOf(vals []any) []reflect.Type {
	var ts []reflect.Type
	for _, v := range vals {
		ts = append(ts, reflect.TypeOf(v))
	}
	return ts
}

// encodeCases are argument tuples at every edge the decoder has: empty and
// one-byte slices and strings last and not last, a slice as long as what
// follows it, every integer width at its extremes, both bools.
var encodeCases = []struct {
	name string
	vals []any
}{
	{"bytes", []any{[]byte(`{"a":1}`)}},
	{"one_byte", []any{[]byte{0}}},
	{"empty_bytes", []any{[]byte{}}},
	{"refusals_shape", []any{uint8(7), []byte(`{"projectId":"demo"}`)}},
	{"refusals_shape_empty", []any{uint8(0), []byte{}}},
	{"empty_bytes_not_last", []any{[]byte{}, []byte("x")}},
	{"bytes_as_long_as_the_rest", []any{[]byte("abcde"), []byte("12")}},
	{"bytes_then_bytes", []any{[]byte("a"), []byte("bc"), []byte{}}},
	{"string", []any{"hello"}},
	{"empty_string", []any{""}},
	{"empty_string_not_last", []any{"", uint8(1)}},
	{"bools", []any{true, false, true}},
	{"ints_max", []any{int8(127), int16(32767), int32(2147483647), int64(9223372036854775807), int(9223372036854775807)}},
	{"ints_min", []any{int8(-128), int16(-32768), int32(-2147483648), int64(-9223372036854775808), int(-1)}},
	{"uints_max", []any{uint8(255), uint16(65535), uint32(4294967295), uint64(18446744073709551615), uint(1 << 63)}},
	{"mixed", []any{"s", []byte("b"), true, int16(-2), uint64(3), []byte("tail")}},
}

func TestEncodeDecodesBack(t *testing.T) {
	for _, c := range encodeCases {
		t.Run(c.name, func(t *testing.T) {
			in, err := Encode(c.vals)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := consume(in, typesOf(c.vals))
			if !ok {
				t.Fatalf("%x: the decoder does not call the fuzz function", in)
			}
			if !reflect.DeepEqual(got, c.vals) {
				t.Fatalf("%x decodes to %#v, want %#v", in, got, c.vals)
			}
		})
	}
}

func TestEncodeRefusesWhatItCannotEncode(t *testing.T) {
	for _, v := range []any{1.5, float32(1), 'x' + 0i, struct{}{}} {
		if _, err := Encode([]any{[]byte("a"), v}); err == nil || !strings.Contains(err.Error(), "argument 1") {
			t.Errorf("%T: error %v, want one naming argument 1", v, err)
		}
	}
}

func TestParseCorpusFile(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       []any
		err        string
	}{
		{"bytes", "go test fuzz v1\n[]byte(\"{\\\"a\\\":\\xff}\")\n", []any{[]byte("{\"a\":\xff}")}, ""},
		{"byte_char", "go test fuzz v1\nbyte('\\x01')\n[]byte(\"\")", []any{uint8(1), []byte{}}, ""},
		{"crlf_and_blank_lines", "go test fuzz v1\r\n\nstring(\"x\")\r\n\n", []any{"x"}, ""},
		{"ints", "go test fuzz v1\nint8(-128)\nuint16(65535)\nint(-5)\nuint64(0x10)\nbool(true)", []any{int8(-128), uint16(65535), -5, uint64(16), true}, ""},
		{"int8_past", "go test fuzz v1\nint8(128)", nil, "out of range"},
		{"negative_uint", "go test fuzz v1\nuint(-1)", nil, "negative"},
		{"float", "go test fuzz v1\nfloat64(1.5)", nil, "not encoded"},
		{"float_bits", "go test fuzz v1\nmath.Float64frombits(1)", nil, "floats"},
		{"version", "go test fuzz v2\n[]byte(\"x\")", nil, "v1"},
		{"empty", "go test fuzz v1\n", nil, "no values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCorpusFile([]byte(c.file))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("%#v, %v; want %#v", got, err, c.want)
			}
		})
	}
}

// A target's setup run by Collect: its F.Add seeds in order, then its
// testdata files by name, each checked against the fuzz function's types.
func TestCollect(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b-found", "go test fuzz v1\nbyte('\\x02')\n[]byte(\"found\")\n")
	write("a-kept", "go test fuzz v1\nbyte('\\x01')\n[]byte(\"kept\")\n")
	target := func(f *F) {
		f.Add(uint8(0), []byte("x"))
		f.Add(uint8(9), []byte{})
		f.Fuzz(func(t *T, pick uint8, data []byte) {})
	}
	c, err := Collect("FuzzX", target, dir)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"seed#0", "seed#1", "a-kept", "b-found"}
	if !reflect.DeepEqual(c.Names, wantNames) || c.Added != 2 || len(c.Types) != 2 {
		t.Fatalf("names %v, added %d, types %v", c.Names, c.Added, c.Types)
	}
	if !reflect.DeepEqual(c.Values[3], []any{uint8(2), []byte("found")}) {
		t.Fatalf("testdata value %#v", c.Values[3])
	}
	var zb bytes.Buffer
	n, skipped, err := WriteZip(&zb, c)
	if err != nil || n != 4 || len(skipped) != 0 {
		t.Fatalf("zip: %d written, %v left out, %v", n, skipped, err)
	}
	z, err := zip.NewReader(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range z.File {
		rc, _ := f.Open()
		var b bytes.Buffer
		b.ReadFrom(rc)
		got, ok := consume(b.Bytes(), c.Types)
		if !ok || !reflect.DeepEqual(got, c.Values[i]) || strings.ContainsAny(f.Name, "#/") {
			t.Errorf("entry %s decodes to %#v (%v), want %#v", f.Name, got, ok, c.Values[i])
		}
	}
}

func TestCollectFails(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		target func(*F)
		file   string
		want   string
	}{
		{"no_fuzz", func(f *F) { f.Add([]byte("x")) }, "", "never called F.Fuzz"},
		{"fatal_in_setup", func(f *F) { f.Fatalf("setup: %d", 3) }, "", "FuzzX: setup: 3"},
		{"skip_in_setup", func(f *F) { f.Skip("no CPython") }, "", "skipped itself: no CPython"},
		{"seed_type", func(f *F) { f.Add("s"); f.Fuzz(func(*T, []byte) {}) }, "", "seed#0: argument 0 is string"},
		{"seed_count", func(f *F) { f.Add([]byte("a"), 1); f.Fuzz(func(*T, []byte) {}) }, "", "2 values for 1 arguments"},
		{"not_a_fuzz_func", func(f *F) { f.Fuzz(func([]byte) {}) }, "", "F.Fuzz takes"},
		{"testdata_type", func(f *F) { f.Fuzz(func(*T, []byte) {}) }, "go test fuzz v1\nstring(\"x\")\n", "argument 0 is string"},
		{"testdata_malformed", func(f *F) { f.Fuzz(func(*T, []byte) {}) }, "go test fuzz v1\n[]byte(x)\n", "string literal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(dir, c.name)
			os.MkdirAll(d, 0o755)
			if c.file != "" {
				os.WriteFile(filepath.Join(d, "f"), []byte(c.file), 0o644)
			}
			_, err := Collect("FuzzX", c.target, d)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
		})
	}
}

// A cleanup a target registers runs when the export ends, also after a
// failure, and a panic that is not the target's failure is not swallowed.
func TestCollectCleansUpAndRepanics(t *testing.T) {
	var ran []string
	_, err := Collect("FuzzX", func(f *F) {
		f.Cleanup(func() { ran = append(ran, "first") })
		f.Cleanup(func() { ran = append(ran, "second") })
		f.Fatal("stop")
	}, t.TempDir())
	if err == nil || !reflect.DeepEqual(ran, []string{"second", "first"}) {
		t.Fatalf("err %v, cleanups %v", err, ran)
	}
	defer func() {
		if r := recover(); r == nil || !errors.Is(r.(error), errBoom) {
			t.Fatalf("recovered %v, want the target's own panic", r)
		}
	}()
	Collect("FuzzX", func(f *F) { panic(errBoom) }, t.TempDir())
}

var errBoom = errors.New("boom")

// export writes the zip and, with dirs, the same inputs as files.
func TestExportWritesTheZipAndTheDirectory(t *testing.T) {
	pkg, out := t.TempDir(), t.TempDir()
	target := func(f *F) {
		f.Add([]byte("a"))
		f.Add([]byte("bc"))
		f.Fuzz(func(t *T, b []byte) {})
	}
	if err := export("FuzzX", target, pkg, out, true); err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader(filepath.Join(out, "FuzzX_seed_corpus.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if len(z.File) != 2 {
		t.Fatalf("%d zip entries", len(z.File))
	}
	for _, f := range z.File {
		rc, _ := f.Open()
		var b bytes.Buffer
		b.ReadFrom(rc)
		file, err := os.ReadFile(filepath.Join(out, "FuzzX_seed_corpus", f.Name))
		if err != nil || !bytes.Equal(file, b.Bytes()) {
			t.Errorf("%s: file %x (%v), zip entry %x", f.Name, file, err, b.Bytes())
		}
	}
}
