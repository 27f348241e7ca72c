package memmodel

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/theurian/boundlab/results"
)

// Every shape's and kind's body is valid JSON, at most the size asked,
// within one value of it, and holds the values Body counts.
func TestSmallShapeBodies(t *testing.T) {
	const wire = 64 << 10
	for _, s := range append(SmallShapes(), SmallKinds()...) {
		t.Run(s.Name, func(t *testing.T) {
			body, n := s.Body(wire)
			if int64(len(body)) > wire || int64(len(body)) < wire-int64(len(s.Value(0)))-8 {
				t.Errorf("%d bytes for %d asked", len(body), wire)
			}
			var v struct {
				Params struct {
					Arguments struct {
						Query []json.RawMessage `json:"query"`
					} `json:"arguments"`
				} `json:"params"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if int64(len(v.Params.Arguments.Query)) != n || n == 0 {
				t.Errorf("Body counts %d values, the body holds %d", n, len(v.Params.Arguments.Query))
			}
		})
	}
}

// Slots follows CPython's list growth under appends: the allocated
// lengths list_resize leaves (checked against sys.getsizeof in CPython
// 3.11: 100 appends hold 108 slots, 100,000 hold 100,116).
func TestSlotsFollowListGrowth(t *testing.T) {
	for _, c := range []struct{ n, want int64 }{{1, 4}, {4, 4}, {5, 8}, {100, 108}, {1000, 1100}, {100000, 100116}, {1048522, 1056084}} {
		if got := Slots(JSONLoads, c.n); got != 8*c.want {
			t.Errorf("json.loads, %d appends: %d bytes, want %d", c.n, got, 8*c.want)
		}
		if got := Slots(PydanticCore, c.n); got != 8*c.n {
			t.Errorf("pydantic_core, %d members: %d bytes, want %d", c.n, got, 8*c.n)
		}
	}
}

// Each kind is priced from its own cost, a chain from its depth, a string
// from its length, and a value of a kind the calibration lacks is refused
// by name, not guessed.
func TestSmallValuesCost(t *testing.T) {
	c := SmallCosts{KindZero: 0.5, KindFloat: 24, KindString7: 56, KindEmptyArray: 56, KindEmptyObject: 64, KindArray1: 64, KindObject1: 176}
	for _, tc := range []struct {
		values string
		want   float64
	}{
		{"0", 0.5}, {"0.5", 24}, {"1e3", 24}, {`"abcdefg"`, 56}, {`"abc"`, 52}, {"[]", 56}, {"{}", 64},
		{"[[0]]", 128.5}, {`{"":{"":0}}`, 352.5}, {`{"":[]}`, 232}, {`[],{},0`, 120.5},
	} {
		got, err := smallValuesCost([]byte(tc.values), c)
		if err != nil || got != tc.want {
			t.Errorf("%s: %v %v, want %v", tc.values, got, err, tc.want)
		}
	}
	for _, bad := range []string{"257", "-6", `"é"`, `"a\"b"`, "[0,0]", `{"a":0}`, `{"":0,"":1}`, "true", "[0}"} {
		if _, err := smallValuesCost([]byte(bad), c); err == nil || !strings.Contains(err.Error(), "unpriced") {
			t.Errorf("%s: %v, want an unpriced error", bad, err)
		}
	}
	delete(c, KindFloat)
	if _, err := smallValuesCost([]byte("0.5"), c); err == nil || !strings.Contains(err.Error(), "float") {
		t.Errorf("a missing kind: %v", err)
	}
}

// The pinned small-values rows hold the model's promise: every checked
// row's prediction is at or above its measured parse moment and within
// SmallMargin of it; a prediction one byte under, or past the margin,
// fails.
func TestPinnedSmallRowsHold(t *testing.T) {
	cal, err := PinnedCalibration()
	if err != nil {
		t.Fatal(err)
	}
	checks, err := CheckSmall(cal.Small, FullScale())
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) == 0 {
		t.Fatal("no pinned small-values rows to check")
	}
	atCap := 0
	for _, ck := range checks {
		if ck.Err != nil {
			t.Error(ck.Err)
		}
		if ck.Row.Scale == "at-cap" {
			atCap++
		}
		under := ck.Pred
		under.Parse = ck.Row.Measured.Moments["parse"] - 1
		if SmallHolds(under, ck.Row) == nil {
			t.Errorf("%s %s: a prediction one byte under the measurement holds", ck.Row.Shape, ck.Row.Scale)
		}
		over := ck.Pred
		over.Parse = int64(float64(ck.Row.Measured.Moments["parse"])*(1+SmallMargin)) + 2
		if SmallHolds(over, ck.Row) == nil {
			t.Errorf("%s %s: a prediction past the margin holds", ck.Row.Shape, ck.Row.Scale)
		}
	}
	if atCap == 0 {
		t.Error("no at-cap row pinned")
	}
}

// The pinned rows are the bodies internal/pyseed measures through the same
// instrument: each checked row's parse peak is its pyseed record's value,
// within that record's tolerance, so the model is held to the pyseed
// measurements.
func TestPinnedSmallRowsAreThePyseedMeasurements(t *testing.T) {
	pinned, err := results.Load(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]results.Record{}
	for _, r := range pinned["pyseed"] {
		byID[r.ID] = r
	}
	cal, err := PinnedCalibration()
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, r := range cal.Small {
		if r.Role != SmallRoleCheck {
			continue
		}
		id := fmt.Sprintf("pyseed.small.%s.%s.%s.peak", shortParser(r.Measured.Parser), r.Shape, r.Scale)
		rec, ok := byID[id]
		if !ok {
			t.Errorf("%s: no pyseed record %s", r.Shape, id)
			continue
		}
		if d := math.Abs(rec.Value - float64(r.Measured.Moments["parse"])); d > rec.Tolerance {
			t.Errorf("%s: pinned %d, pyseed measured %.0f (±%.0f)", id, r.Measured.Moments["parse"], rec.Value, rec.Tolerance)
		}
		matched++
	}
	if matched == 0 {
		t.Error("no checked row matched a pyseed record")
	}
}
