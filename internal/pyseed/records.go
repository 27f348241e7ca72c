package pyseed

import (
	"context"
	"fmt"

	"strings"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/memmodel"
	"github.com/theurian/boundlab/results"
)

// Producer is the name pyseed's records are pinned under.
const Producer = "pyseed"

func init() {
	results.Register(results.Producer{Name: Producer, Records: func() ([]results.Record, error) {
		return Records(context.Background())
	}})
}

// SampleWire is the size every shape is measured at; the worst per parser
// is measured again at the cap.
const SampleWire = memmodel.SmallSampleWire

var parsers = []string{"pydantic_core.from_json", "json.loads"}

func shortParser(p string) string {
	if strings.HasPrefix(p, "pydantic") {
		return "pydantic_core"
	}
	return "json"
}

// Records asks every question and states the answers.
func Records(ctx context.Context) ([]results.Record, error) {
	py, err := Python(ctx)
	if err != nil {
		return nil, err
	}
	var f Facts
	if err := run(ctx, py, nil, &f, "facts"); err != nil {
		return nil, err
	}
	var c Chunk
	if err := run(ctx, py, nil, &c, "chunk", "100000"); err != nil {
		return nil, err
	}
	recs := factRecords(f)
	recs = append(recs, chunkRecord(c, f.Python))
	small, err := smallRecords(ctx, py)
	if err != nil {
		return nil, err
	}
	return append(recs, small...), nil
}

func build(mods map[string]string) results.Build {
	b := results.CurrentBuild()
	b.Modules = mods
	return b
}

func factRecords(f Facts) []results.Record {
	sdk := build(map[string]string{"cpython": f.Python, "mcp (python)": "importable"})
	js := build(map[string]string{"cpython": f.Python, "jsonschema (python)": f.Jsonschema, "referencing (python)": f.Referencing})
	src := "internal/pyseed/pyseed.py facts, one fresh CPython process: "
	var out []results.Record
	add := func(id, title string, v float64, unit, instance, how, seedValue string, fig int, b results.Build) {
		out = append(out, results.Record{ID: "pyseed." + id, Title: title, Value: v, Unit: unit, Instance: instance,
			Method: results.Measured, Source: src + how, SeedValue: seedValue, SeedFigure: fig, Build: b})
	}
	add("sdk.default-body-cap", "the Python MCP SDK's default body cap", float64(f.SDKDefaultBody), "bytes",
		"mcp.server.transport_security.DEFAULT_MAX_REQUEST_BODY_SIZE", "the constant read from the imported SDK", "4 MiB", 7, sdk)
	add("sdk.bare-413-bytes", "the body of the SDK's bare 413 refusal", float64(f.Bare413Bytes), "bytes",
		fmt.Sprintf("RequestBodyLimitMiddleware(app, 8) driven as ASGI with a 16-byte body; status %d", f.Bare413Status),
		"the http.response.body bytes the middleware sent", "22", 10, sdk)
	add("sdk.validate-python-peak", "jsonrpc_message_adapter.validate_python's own peak over a parsed tools/call", float64(f.ValidatePythonPeak), "bytes",
		"a tools/call whose arguments hold one 4 MiB ASCII string, parsed by pydantic_core.from_json first",
		"tracemalloc peak during validate_python(raw, by_name=False), above the parsed message", "0.0 MiB", 34, sdk)
	add("sdk.validate-python-same-leaf", "validate_python hands back the very same string object (1) or a copy (0)", float64(f.ValidatePythonSameLeaf), "boolean",
		"the same call: the validated message's arguments string is the parsed one", "`is` identity", "1", 34, sdk)
	add("sdk.mcp-types-extra-forbid", `occurrences of extra="forbid" in the SDK's mcp_types package`, float64(f.ExtraForbid), "occurrences",
		"every .py file under mcp_types", "a count over the installed package's source", "0", 63, sdk)
	add("sdk.unknown-key-kept", "an unknown argument key survives the tool's argument model (1) or is dropped (0)", float64(f.UnknownKeyKept), "boolean",
		`MCPServer tool search(query: str, limit: int = 10), arguments {"query": "q", "unknown_key": 1}`,
		"fn_metadata.validate_arguments, the kwargs the handler would receive", "0", 63, sdk)
	add("sdk.tools-with-additional-properties", "tools whose SDK-derived input schema carries additionalProperties", float64(f.ToolsWithAdditional), "tools",
		fmt.Sprintf("an MCPServer with %d tools (one with two parameters, one with one, one with none)", f.Tools),
		"MCPServer.list_tools(), input_schema keys", "0", 64, sdk)
	for _, kw := range []string{"required", "const", "maximum"} {
		add("jsonschema.names-instance."+kw, "jsonschema's "+kw+" message names the failing instance's value (1) or not (0)", float64(f.NamesInstance[kw]), "boolean",
			"Draft202012Validator, a failing instance carrying 987654321", "iter_errors, whether the marker is in a message", "0", 37, js)
	}
	add("jsonschema.repr-kind-exceptions", "strings whose repr's PEP 393 kind is not the kind of their widest printable code point", float64(f.ReprKindExceptions), "strings",
		fmt.Sprintf("%d seeded random strings of 1-12 code points from ASCII, C0, DEL/C1, Latin-1, 2-byte, U+0600, CJK, U+2028, emoji, tags and unassigned astral", f.ReprKindStrings),
		"max(map(ord, repr(s))) against the printable code points of s", "0", 38, js)
	var names []string
	for k := range f.CompositionCells {
		names = append(names, k)
	}
	working := 0
	for _, k := range names {
		working += f.CompositionCells[k]
	}
	add("jsonschema.composition.working-cells", "of Decision 1's six compositions, those that admit the valid document and refuse the unknown key", float64(working), "cells",
		fmt.Sprintf("%d cells: forms $ref + additionalProperties, allOf + additionalProperties, allOf + unevaluatedProperties, each with the context schema closed and open; working: %s",
			len(names), workingCells(f.CompositionCells)),
		"Draft202012Validator over a referencing registry, is_valid on {projectId, body, itemId} and on it plus an unknown key", "1", 61, js)
	return out
}

func workingCells(cells map[string]int) string {
	var w []string
	for k, v := range cells {
		if v == 1 {
			w = append(w, k)
		}
	}
	if len(w) == 0 {
		return "none"
	}
	return strings.Join(w, ", ")
}

func chunkRecord(c Chunk, python string) results.Record {
	hi := c.Readings[0]
	for _, r := range c.Readings {
		hi = max(hi, r)
	}
	return results.Record{ID: "pyseed.chunk-transient.measured", Title: "the seed's chunked fallback's transient, the highest of three readings",
		Value: float64(hi), Unit: "bytes (tracemalloc peak)", Instance: fmt.Sprintf("a leaf of one U+1F600 and 99,999 U+E0001; chunks of %d code points; readings %v", c.ChunkCodePoints, c.Readings),
		Method: results.Measured, Tolerance: float64(hi / 200), Source: "internal/pyseed/pyseed.py chunk 100000: tracemalloc peak of the chunked repr width",
		SeedValue: "360,548-361,156", SeedFigure: 55, Build: build(map[string]string{"cpython": python})}
}

func smallRecords(ctx context.Context, py string) ([]results.Record, error) {
	var out []results.Record
	worst := map[string]memmodel.SmallShape{}
	worstPer := map[string]float64{}
	measure := func(s memmodel.SmallShape, p string, wire int64, scale string, seedPer, seedPeak string) error {
		parser, err := memmodel.ParserNamed(p)
		if err != nil {
			return err
		}
		m, n, err := memmodel.MeasureSmall(ctx, py, s, wire, parser)
		if err != nil {
			return err
		}
		b := build(map[string]string{"cpython": m.Python, shortParser(p): m.ParserVersion})
		id := fmt.Sprintf("pyseed.small.%s.%s.%s", shortParser(p), s.Name, scale)
		inst := fmt.Sprintf("a tools/call whose arguments' one member is an array of %s values: %s; %s wire bytes", results.Thousands(n), s.What, results.Thousands(m.Wire))
		src := "memmodel.MeasureSmall (memmodel/calibrate.py, family small) through " + p + ": tracemalloc, the transport's bytearray and bytes (64 KiB reads), then the parse; one fresh process"
		parse, transport := m.Moments["parse"], m.Moments["transport"]
		parseOnly := parse - transport
		per := float64(parseOnly) / float64(n)
		out = append(out,
			results.Record{ID: id + ".peak", Title: "a body of many small values: the parse moment's peak (transport buffers included)", Value: float64(parse),
				Unit: "bytes (tracemalloc peak)", Instance: inst, Method: results.Measured, Tolerance: float64(parse / 100), Source: src, SeedValue: seedPeak, SeedFigure: figIf(seedPeak), Build: b},
			results.Record{ID: id + ".per-value", Title: "what the parse holds per value, beyond the transport's buffers", Value: per,
				Unit: "bytes per value", Instance: inst, Method: results.Measured, Tolerance: per / 100, Source: src, SeedValue: seedPer, SeedFigure: figIf(seedPer), Build: b},
			results.Record{ID: id + ".parse-ratio", Title: "the parse's own peak over the wire bytes (the transport's 2x comes on top)", Value: float64(parseOnly) / float64(m.Wire),
				Unit: "x wire bytes", Instance: inst, Method: results.Measured, Tolerance: float64(parseOnly) / float64(m.Wire) / 100, Source: src, Build: b},
		)
		if scale == "sample" && per*float64(n)/float64(m.Wire) > worstPer[p] {
			worstPer[p], worst[p] = per*float64(n)/float64(m.Wire), s
		}
		return nil
	}
	for _, s := range memmodel.SmallShapes() {
		for _, p := range parsers {
			seedPer := ""
			if s.Name == "short-strings" && strings.HasPrefix(p, "pydantic") {
				seedPer = "46" // the seed: "~46 bytes a value" of distinct short strings
			}
			if err := measure(s, p, SampleWire, "sample", seedPer, ""); err != nil {
				return nil, err
			}
		}
	}
	cp := charge.BodyCap(charge.DefaultLimits(), charge.EnsureASCII, charge.Raw).Cap
	for _, p := range parsers {
		seedPeak := ""
		if strings.HasPrefix(p, "pydantic") {
			seedPeak = "< 10 MiB" // the seed: MAX_PARAMS_NODES "caps it at a few MiB"
		}
		if err := measure(worst[p], p, cp, "at-cap", "", seedPeak); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// figIf is figure 35 when the record carries one of its values.
func figIf(seedValue string) int {
	if seedValue == "" {
		return 0
	}
	return 35
}
