package memmodel

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// The small-values family: a body whose arguments hold one array of many
// small values. Its parse pays CPython's per-object overhead, not a multiple
// of one leaf's width, so it is priced per value from costs calibrated in the
// interpreter (SmallCosts), over the transport and the parser's own body term.
// The seed's server parses the whole body before its node bound is counted,
// so MAX_PARAMS_NODES does not bound this peak.

// SmallShape is a body of many small values: the arguments' one member an
// array of values, each Value(i), filling the body to a size.
type SmallShape struct {
	Name, What string
	Value      func(i int) string
}

// nested is depth one-member containers around a zero: deep enough that the
// containers dominate, shallow enough for pydantic_core's recursion limit.
func nested(open, close string, depth int) string {
	return strings.Repeat(open, depth) + "0" + strings.Repeat(close, depth)
}

// SmallChainDepth is how deep the chain shapes nest.
const SmallChainDepth = 64

// SmallShapes are the small-value bodies the lab measures and prices: the
// seed names short strings; the rest are the other kinds a JSON body can be
// dense in, and chains of one-member containers, which pay a container per
// two wire bytes (arrays) or five (objects).
func SmallShapes() []SmallShape {
	arr, obj := nested("[", "]", SmallChainDepth), nested(`{"":`, "}", SmallChainDepth)
	return []SmallShape{
		{"empty-arrays", "[] repeated", func(int) string { return "[]" }},
		{"empty-objects", "{} repeated", func(int) string { return "{}" }},
		{"short-strings", "distinct 7-digit strings", func(i int) string { return fmt.Sprintf(`"%07d"`, i) }},
		{"zeros", "0 repeated", func(int) string { return "0" }},
		{"floats", "0.5 repeated", func(int) string { return "0.5" }},
		{"mixed", "[], {}, a distinct string, 0 and 0.5 in turn", func(i int) string {
			return [...]string{"[]", "{}", fmt.Sprintf(`"%07d"`, i), "0", "0.5"}[i%5]
		}},
		{"array-chains", "64 nested one-element arrays around 0, repeated", func(int) string { return arr }},
		{"object-chains", "64 nested one-member objects (member \"\") around 0, repeated", func(int) string { return obj }},
	}
}

// SmallKind is one kind of value the family prices, and the body of that
// kind alone that calibrates its cost.
type SmallKind string

// The kinds the model prices; a value of any other kind is unpriced and
// PredictSmall says so.
const (
	KindZero        SmallKind = "zero"         // a small integer (-5..256): CPython's cached object, no allocation
	KindFloat       SmallKind = "float"        // a float object
	KindString7     SmallKind = "string7"      // a distinct 7-character ASCII string; other lengths priced from it byte for byte
	KindEmptyArray  SmallKind = "empty-array"  // []
	KindEmptyObject SmallKind = "empty-object" // {}
	KindArray1      SmallKind = "array1"       // a one-element array, beyond its element
	KindObject1     SmallKind = "object1"      // a one-member object whose member name is "", beyond its value
)

// SmallKinds are the calibrating bodies: each kind alone, repeated.
func SmallKinds() []SmallShape {
	return []SmallShape{
		{string(KindZero), "0 repeated", func(int) string { return "0" }},
		{string(KindFloat), "0.5 repeated", func(int) string { return "0.5" }},
		{string(KindString7), "distinct 7-digit strings", func(i int) string { return fmt.Sprintf(`"%07d"`, i) }},
		{string(KindEmptyArray), "[] repeated", func(int) string { return "[]" }},
		{string(KindEmptyObject), "{} repeated", func(int) string { return "{}" }},
		{string(KindArray1), "[0] repeated", func(int) string { return "[0]" }},
		{string(KindObject1), `{"":0} repeated`, func(int) string { return `{"":0}` }},
	}
}

// SmallCalibrationWire is the size the kinds are calibrated at: a small
// body, an eighth of the 2 MiB rows and a hundredth of the cap the model
// then predicts.
const SmallCalibrationWire = 256 << 10

// SmallSampleWire is the size every shape is measured at beside the model;
// the worst per parser is measured again at the cap.
const SmallSampleWire = 2 << 20

const (
	smallHead = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"knowledge.search","arguments":{"query":[`
	smallTail = `]}}}`
)

// Body fills a tools/call body of at most wire bytes with the shape's
// values, and says how many it holds.
func (s SmallShape) Body(wire int64) ([]byte, int64) {
	var b bytes.Buffer
	b.Grow(int(wire))
	b.WriteString(smallHead)
	room := wire - int64(len(smallHead)+len(smallTail))
	var n int64
	for i := 0; ; i++ {
		v := s.Value(i)
		add := int64(len(v))
		if n > 0 {
			add++
		}
		if int64(b.Len()-len(smallHead))+add > room {
			break
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(v)
		n++
	}
	b.WriteString(smallTail)
	return b.Bytes(), n
}

// SmallCosts are one parser's calibrated bytes per value of each kind, on
// one interpreter, beyond the outer array's slot for the value.
type SmallCosts map[SmallKind]float64

// Slots is what the outer array's pointer array holds for n members under
// parser p: pydantic_core builds the list at its final length; json.loads
// appends, so CPython's list growth (Objects/listobject.c list_resize:
// newsize + newsize/8 + 6, rounded down to a multiple of 4) over-allocates it.
func Slots(p Parser, n int64) int64 {
	if p.Name != JSONLoads.Name {
		return 8 * n
	}
	var alloc int64
	for alloc < n {
		size := alloc + 1 // the append that finds the list full
		alloc = (size + size>>3 + 6) &^ 3
	}
	return 8 * alloc
}

// bodyTerm is what the parser holds for the whole body besides the values:
// json.loads decodes the bytes to one str first (kind 1: the family's bodies
// are ASCII) and keeps it while it scans; pydantic_core parses the bytes in
// place.
func bodyTerm(p Parser, wire int64) int64 {
	if p.Name == JSONLoads.Name {
		return wire + 64 // the str's object header, rounded up
	}
	return 0
}

// SmallPrediction is the model's price of one small-values body's parse.
type SmallPrediction struct {
	Shape     string
	Parser    string
	Wire      int64
	Values    int64
	Transport int64 // Fixed + the body's bytes and bytearray, as Predict's
	Parse     int64 // the parse moment: transport + body term + slots + values
}

// Ratio is the parse moment's peak over the wire bytes.
func (p SmallPrediction) Ratio() float64 { return float64(p.Parse) / float64(p.Wire) }

// PredictSmall prices the parse moment of shape s filled to wire bytes under
// parser p with costs c.
func PredictSmall(s SmallShape, wire int64, p Parser, c SmallCosts) (SmallPrediction, error) {
	body, n := s.Body(wire)
	w := int64(len(body))
	values, err := smallValuesCost(body[len(smallHead):len(body)-len(smallTail)], c)
	if err != nil {
		return SmallPrediction{}, fmt.Errorf("memmodel: %s: %w", s.Name, err)
	}
	pr := SmallPrediction{Shape: s.Name, Parser: p.Name, Wire: w, Values: n}
	pr.Transport = Fixed + w + BytearrayAlloc(w, TransportChunk)
	pr.Parse = pr.Transport + bodyTerm(p, w) + Slots(p, n) + int64(values+0.5)
	return pr, nil
}

// smallValuesCost walks the comma-separated values of the outer array and
// sums their costs.
func smallValuesCost(b []byte, c SmallCosts) (float64, error) {
	var total float64
	for len(b) > 0 {
		v, rest, err := costValue(b, c)
		if err != nil {
			return 0, err
		}
		total += v
		if len(rest) > 0 {
			if rest[0] != ',' {
				return 0, fmt.Errorf("unpriced: a byte %q between values", rest[0])
			}
			rest = rest[1:]
		}
		b = rest
	}
	return total, nil
}

// cost is one kind's calibrated cost, or an error naming a kind the
// calibration lacks.
func (c SmallCosts) cost(k SmallKind) (float64, error) {
	v, ok := c[k]
	if !ok {
		return 0, fmt.Errorf("no calibrated cost for %s", k)
	}
	return v, nil
}

// costValue prices the value at the start of b and returns what follows it.
// It reads the kinds SmallKinds calibrates and no others: a value of another
// kind (a larger integer, an escaped or non-ASCII string, a container of two
// or more members, a member name other than "") is an error, not a guess.
func costValue(b []byte, c SmallCosts) (float64, []byte, error) {
	if len(b) == 0 {
		return 0, nil, fmt.Errorf("unpriced: a value expected")
	}
	switch {
	case b[0] == '[':
		if len(b) > 1 && b[1] == ']' {
			v, err := c.cost(KindEmptyArray)
			return v, b[2:], err
		}
		inner, rest, err := costValue(b[1:], c)
		if err != nil {
			return 0, nil, err
		}
		if len(rest) == 0 || rest[0] != ']' {
			return 0, nil, fmt.Errorf("unpriced: an array of more than one member")
		}
		v, err := c.cost(KindArray1)
		return v + inner, rest[1:], err
	case b[0] == '{':
		if len(b) > 1 && b[1] == '}' {
			v, err := c.cost(KindEmptyObject)
			return v, b[2:], err
		}
		if !bytes.HasPrefix(b, []byte(`{"":`)) {
			return 0, nil, fmt.Errorf("unpriced: an object whose member name is not \"\"")
		}
		inner, rest, err := costValue(b[4:], c)
		if err != nil {
			return 0, nil, err
		}
		if len(rest) == 0 || rest[0] != '}' {
			return 0, nil, fmt.Errorf("unpriced: an object of more than one member")
		}
		v, err := c.cost(KindObject1)
		return v + inner, rest[1:], err
	case b[0] == '"':
		end := bytes.IndexByte(b[1:], '"')
		if end < 0 {
			return 0, nil, fmt.Errorf("unpriced: an unterminated string")
		}
		for _, ch := range b[1 : 1+end] {
			if ch == '\\' || ch >= 0x80 {
				return 0, nil, fmt.Errorf("unpriced: a string with an escape or a non-ASCII byte")
			}
		}
		v, err := c.cost(KindString7)
		return v + float64(end-7), b[2+end:], err // one byte a character more or less than the calibrated seven
	default:
		i := 0
		for i < len(b) && strings.IndexByte("-+.0123456789eE", b[i]) >= 0 {
			i++
		}
		num := string(b[:i])
		if i == 0 {
			return 0, nil, fmt.Errorf("unpriced: a value starting %q", b[0])
		}
		if strings.ContainsAny(num, ".eE") {
			v, err := c.cost(KindFloat)
			return v, b[i:], err
		}
		var n int
		if _, err := fmt.Sscanf(num, "%d", &n); err != nil || n < -5 || n > 256 {
			return 0, nil, fmt.Errorf("unpriced: the integer %s, outside CPython's cached small integers", num)
		}
		v, err := c.cost(KindZero)
		return v, b[i:], err
	}
}

// SmallRow is one small-values body measured through one parser on one
// interpreter: a calibrating kind or a shape checked against the model.
type SmallRow struct {
	Shape    string      `json:"shape"`    // a SmallKinds or SmallShapes name
	Role     string      `json:"role"`     // "cost" (calibrates a kind) or "check" (held against the model)
	Scale    string      `json:"scale"`    // "calibration", "sample" or "at-cap"
	Values   int64       `json:"values"`   // the values the interpreter counted in the array
	Measured Measurement `json:"measured"` // the transport and parse moments
}

// SmallRole values.
const (
	SmallRoleCost  = "cost"
	SmallRoleCheck = "check"
)

// costOf is what one calibrating row says a value of its kind costs, beyond
// the outer array's slot: the parse moment less the transport, the parser's
// body term and the slots, over the values.
func costOf(r SmallRow, p Parser) float64 {
	m := r.Measured
	return float64(m.Moments["parse"]-m.Moments["transport"]-bodyTerm(p, m.Wire)-Slots(p, r.Values)) / float64(r.Values)
}

// CostsFrom reads each parser's costs, per interpreter, from the calibrating
// rows; the key is the parser name, an at sign and the interpreter version.
func CostsFrom(rows []SmallRow) (map[string]SmallCosts, error) {
	out := map[string]SmallCosts{}
	for _, r := range rows {
		if r.Role != SmallRoleCost {
			continue
		}
		p, err := ParserNamed(r.Measured.Parser)
		if err != nil {
			return nil, err
		}
		key := costsKey(r.Measured)
		if out[key] == nil {
			out[key] = SmallCosts{}
		}
		out[key][SmallKind(r.Shape)] = costOf(r, p)
	}
	for key, c := range out {
		for _, k := range SmallKinds() {
			if _, ok := c[SmallKind(k.Name)]; !ok {
				return nil, fmt.Errorf("memmodel: small-values costs for %s lack kind %s", key, k.Name)
			}
		}
	}
	return out, nil
}

func costsKey(m Measurement) string {
	return m.Parser + "@" + m.Impl + m.Python
}

// SmallMargin is how far above a measured parse peak the model may sit: the
// calibrated costs carry each calibrating body's own fixed overhead spread
// over its values, and Fixed covers the rest; past 2% the model prices a
// mechanism it does not have.
const SmallMargin = 0.02

// SmallHolds is the model's promise for one checked row: the prediction is
// at or above the measured parse moment, and within SmallMargin of it.
func SmallHolds(pred SmallPrediction, r SmallRow) error {
	m := r.Measured.Moments["parse"]
	switch {
	case pred.Wire != r.Measured.Wire || pred.Values != r.Values:
		return fmt.Errorf("%s/%s %s: the lab builds %d wire bytes and %d values; the row measured %d and %d: re-run calibrate --small",
			r.Shape, r.Measured.Parser, r.Scale, pred.Wire, pred.Values, r.Measured.Wire, r.Values)
	case pred.Parse < m:
		return fmt.Errorf("%s/%s %s: parse measured %d > predicted %d", r.Shape, r.Measured.Parser, r.Scale, m, pred.Parse)
	case float64(pred.Parse) > float64(m)*(1+SmallMargin):
		return fmt.Errorf("%s/%s %s: predicted %d, more than %.0f%% above the measured %d", r.Shape, r.Measured.Parser, r.Scale, pred.Parse, 100*SmallMargin, m)
	}
	return nil
}

// smallShapeNamed finds a shape or a calibrating kind by name.
func smallShapeNamed(name string) (SmallShape, bool) {
	for _, s := range append(SmallShapes(), SmallKinds()...) {
		if s.Name == name {
			return s, true
		}
	}
	return SmallShape{}, false
}

// smallScaleWire is the wire size a row's scale names.
func smallScaleWire(scale string, sc Scale) (int64, error) {
	switch scale {
	case "calibration":
		return SmallCalibrationWire, nil
	case "sample":
		return SmallSampleWire, nil
	case "at-cap":
		return sc.Cap, nil
	}
	return 0, fmt.Errorf("memmodel: unknown small-values scale %q", scale)
}

// WorstSmall is the shape whose sample rows cost the most per wire byte
// under parser p, by the model.
func WorstSmall(p Parser, c SmallCosts) (SmallShape, error) {
	type scored struct {
		s SmallShape
		r float64
	}
	var all []scored
	for _, s := range SmallShapes() {
		pr, err := PredictSmall(s, SmallSampleWire, p, c)
		if err != nil {
			return SmallShape{}, err
		}
		all = append(all, scored{s, pr.Ratio()})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].r > all[j].r })
	return all[0].s, nil
}

// SmallCheck is one checked row beside the model's prediction for it.
type SmallCheck struct {
	Row  SmallRow
	Pred SmallPrediction
	Err  error // SmallHolds' answer
}

// CheckSmall prices every checked row with the costs its own interpreter's
// calibrating rows give; an error is a row the model cannot price at all.
func CheckSmall(rows []SmallRow, sc Scale) ([]SmallCheck, error) {
	costs, err := CostsFrom(rows)
	if err != nil {
		return nil, err
	}
	var out []SmallCheck
	for _, r := range rows {
		if r.Role != SmallRoleCheck {
			continue
		}
		s, ok := smallShapeNamed(r.Shape)
		if !ok {
			return nil, fmt.Errorf("memmodel: small-values row %q names a shape the lab no longer builds", r.Shape)
		}
		p, err := ParserNamed(r.Measured.Parser)
		if err != nil {
			return nil, err
		}
		c, ok := costs[costsKey(r.Measured)]
		if !ok {
			return nil, fmt.Errorf("memmodel: no calibrating rows for %s", costsKey(r.Measured))
		}
		wire, err := smallScaleWire(r.Scale, sc)
		if err != nil {
			return nil, err
		}
		pred, err := PredictSmall(s, wire, p, c)
		if err != nil {
			return nil, err
		}
		out = append(out, SmallCheck{Row: r, Pred: pred, Err: SmallHolds(pred, r)})
	}
	return out, nil
}

// MergeSmall replaces the small-values rows of c that share an interpreter
// version and parser with rows, and keeps the rest.
func (c *Calibration) MergeSmall(rows []SmallRow) {
	fresh := map[string]bool{}
	for _, r := range rows {
		fresh[costsKey(r.Measured)] = true
	}
	kept := c.Small[:0]
	for _, r := range c.Small {
		if !fresh[costsKey(r.Measured)] {
			kept = append(kept, r)
		}
	}
	c.Small = append(kept, rows...)
}

// PinnedSmallCosts are parser p's calibrated costs from the pinned
// calibration, and the interpreter they were calibrated on.
func PinnedSmallCosts(p Parser) (SmallCosts, string, error) {
	cal, err := PinnedCalibration()
	if err != nil {
		return nil, "", err
	}
	costs, err := CostsFrom(cal.Small)
	if err != nil {
		return nil, "", err
	}
	var keys []string
	for k := range costs {
		if strings.HasPrefix(k, p.Name+"@") {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, "", fmt.Errorf("memmodel: %s holds no small-values costs for %s", CalibrationFile, p.Name)
	}
	sort.Strings(keys)
	return costs[keys[0]], strings.TrimPrefix(keys[0], p.Name+"@"), nil
}
