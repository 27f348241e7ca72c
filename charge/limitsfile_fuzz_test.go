package charge

import "testing"

// FuzzParseLimits: over any bytes ParseLimits never panics; what it admits
// Validate accepts and a second parse reads alike; what it refuses it refuses
// in a bounded error.
func FuzzParseLimits(f *testing.F) {
	f.Add([]byte(`{"max_source_file_bytes": "16MiB", "budget": 17825792}`))
	f.Add([]byte(`{"max_nesting": 998}`))
	f.Add([]byte(`{"budget": 1, "budget": 2}`))
	f.Add([]byte(`{"envelope": "9223372036854775807"}`))
	f.Add([]byte(`[{"max_nodes": true}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLimits(data)
		if err != nil {
			if n := len(err.Error()); n > 600 {
				t.Errorf("a %d-byte error", n)
			}
			return
		}
		if err := l.Validate(); err != nil {
			t.Errorf("admitted limits Validate refuses: %v", err)
		}
		if again, err := ParseLimits(data); err != nil || again != l {
			t.Errorf("a second parse: %+v, %v", again, err)
		}
	})
}
