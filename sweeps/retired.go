package sweeps

import (
	"fmt"
	"regexp"

	"github.com/theurian/boundlab/charge"
	"github.com/theurian/boundlab/results"
)

const (
	seedRound2 = "ADR-0031 Amendment 1, addendum round two (2026-09-15)"
	seedRound3 = "ADR-0031 Amendment 1, addendum round three (2026-09-15)"
	labAttr    = "boundlab sweeps, re-deriving ADR-0031 Amendment 1 from live constants"
)

func retired(id, title string, value float64, unit, instance string, rt results.Retirement) results.Record {
	return results.Record{ID: id, Title: title, Value: value, Unit: unit, Instance: instance,
		Method: results.Retired, Source: "the seed, ADR-0031 (" + rt.Attribution + ")", Build: results.CurrentBuild(), Retirement: &rt}
}

// RetiredRecords are the seed's withdrawn figures, each with its correction:
// the five its addenda withdraw, and those the lab's re-derivation corrects.
// A correction quotes the live record that replaces the figure.
func RetiredRecords(l charge.Limits) ([]results.Record, error) {
	ds, err := Derivations(l)
	if err != nil {
		return nil, err
	}
	by := map[string]Derivation{}
	for _, d := range ds {
		by[d.ID] = d
	}
	sh, sdk, in := by["python-raw-codepoint-shipped"], by["python-raw-codepoint-sdk4mib"], by["python-raw-codepoint-interim"]
	astral, ok := sh.ClassReach(0x1000c)
	if !ok {
		return nil, fmt.Errorf("sweeps: no class holds U+1000C")
	}
	pyDoc := DocumentWorst(charge.Python, l)
	x := func(r Reach) string { return fmt.Sprintf("%s characters (%.2fx)", thousands(r.Render), r.Ratio()) }

	return []results.Record{
		retired("retired.seed.memory-ascii-row-as-bound", "per-request memory recorded as one multiple of the wire bytes",
			3.0, "x wire bytes", "an all-ASCII body at 26,214,400 wire bytes (the seed's favourable instance)",
			results.Retirement{
				Claim:       `per-request memory is "roughly 3.0x the wire bytes, 75.1 MiB"`,
				Correction:  "that is the all-ASCII row only: PEP 393 sizes a str by its widest member, so one astral character takes the same request to 7.00x (175.1 MiB), and a render-refused body reaches 38.04x (seed round three); the memmodel records hold the rows",
				Attribution: seedRound2,
				Keys:        []string{`(?i)roughly 3\.0x`, `(?i)3\.0x the wire bytes, 75\.1 MiB`},
			}),
		retired("retired.seed.every-leaf-charged", "the pre-fix charge described as charging every leaf",
			float64(l.MaxParamsRenderedChars), "characters", "a string at the budget plus 99,995 full-precision floats (the seed's counterexample)",
			results.Retirement{
				Claim:       `the render charge charged "every leaf what repr renders it as"`,
				Correction:  fmt.Sprintf("float and None were charged 0: that request was charged 12,582,906 and rendered 15,182,796 characters, 1.207x (seed round two). charge now charges every leaf and member name its exact width; the widest whole render it admits is worstrender.document.python.exact, %s characters, within the composed ceiling worstrender.document.python.ceiling", thousands(pyDoc.Render)),
				Attribution: seedRound2,
				Keys:        []string{`(?i)every leaf what repr renders`, `(?i)charg\w* every leaf`, `(?i)every leaf (is|was) charged`},
			}),
		retired("retired.seed.interim-reach-filed-under-shipped-cap", "the interim cap's reproduction printed under the shipped cap's name",
			53476811, "characters", "a body of U+0600 at the interim 2x cap (17,825,792 bytes), measured by the seed",
			results.Retirement{
				Claim: `"53,476,811 characters, 4.25x the budget, widening the breach 3.2x" at the shipped 3x cap`,
				Correction: fmt.Sprintf("those figures belong to the interim 2x cap (%s bytes), where the lab derives %s for U+0600 alone (worstrender.python-raw-codepoint-interim.class, the count differing from the seed's measurement by the envelope) and %s for a two-class mix (worstrender.python-raw-codepoint-interim.mix); at the shipped cap the worst one-class string renders %s (worstrender.python-raw-codepoint-shipped.class)",
					thousands(in.Scenario.Transport), x(in.WorstPure), x(in.Worst), x(sh.WorstPure)),
				Attribution: seedRound2,
				Keys:        []string{`53,476,811`, `53476811`, `4\.25x`, `(?i)widening the breach`},
			}),
		retired("retired.seed.two-term-memory-model", "the two-term memory model",
			7.0, "x wire bytes", "a body of \"\\x7f\" x 3,145,717 plus one U+1F600, 3,145,848 wire bytes (the seed's family-(ii) counterexample)",
			results.Retirement{
				Claim:       `peak memory is the transport's buffers plus the parse's peak ("all four rows are those two terms and nothing else"; "the multiple is set by the body's widest code point, not by its length")`,
				Correction:  "jsonschema's message construction is a third term on refusal paths, composed as a maximum over moments, not a sum: that body predicted 7.00x and measured 38.04x, 114.1 MiB (seed round three); the memmodel records hold the model",
				Attribution: seedRound3,
				Keys:        []string{`(?i)two-term (memory )?model`, `(?i)set by the body's widest code point`, `(?i)those two terms and nothing else`},
			}),
		retired("retired.seed.chunk-transient-320kb", "the chunked fallback's transient priced at one term",
			320, "KiB", "the charge's chunked fallback over a leaf of non-printable astral characters with one printable astral",
			results.Retirement{
				Claim:       `the chunked transient is _CHUNK_CODE_POINTS * 10 * 4, "320 KB"`,
				Correction:  "the expression builds the repr output and the concatenated slice it reprs: (10 + 1) * 4 bytes per code point, ~352 KiB, measured 360,548 to 361,156 bytes (seed round three). boundlab's gate has no such transient: it charges in one pass without building a render",
				Attribution: seedRound3,
				Keys:        []string{`320 ?KB`, `320 ?KiB`},
			}),
		retired("retired.seed.sdk4mib-reach", "the SDK default's worst render counted over the whole body",
			16777216, "characters", "a 4 MiB body of raw U+007F with no envelope",
			results.Retirement{
				Claim:          `"the worst reachable render was 16,777,216 characters — 1.33x the 12 MiB budget" under the SDK's 4 MiB default`,
				Correction:     fmt.Sprintf("16,777,216 is 4 x the whole body, which leaves no room for the request around the string; with a real minimal tools/call envelope (%s bytes) the gate admits %s code points and they render %s (worstrender.python-raw-codepoint-sdk4mib.class). The 1.33x stands", thousands(sdk.WorstPure.Instance().Envelope()), thousands(sdk.WorstPure.Admitted), x(sdk.WorstPure)),
				Attribution:    labAttr,
				Counterexample: "worstrender.python-raw-codepoint-sdk4mib.class",
				Keys:           []string{`16,777,216`, `16777216`},
			}),
		retired("retired.seed.astral-count", "non-printable astral code points admitted at the shipped cap, counted over the whole body",
			6553600, "code points", "a 26,214,400-byte body of raw non-printable astral code points with no envelope",
			results.Retirement{
				Claim:          `a non-printable astral character "is transport-bound at 6,553,600 of them (5.21x)"`,
				Correction:     fmt.Sprintf("6,553,600 is the whole cap over 4 bytes; with a real minimal tools/call envelope the gate admits %s (worstrender.python-raw-codepoint-shipped.class-astral-nonprintable.admitted), rendering %s. The 5.21x stands", thousands(astral.Admitted), x(astral)),
				Attribution:    labAttr,
				Counterexample: "worstrender.python-raw-codepoint-shipped.class-astral-nonprintable.admitted",
				Keys:           []string{`6,553,600`, `6553600`},
			}),
		retired("retired.seed.worst-over-every-escape-class", "6.00x stated as the worst over every body",
			sh.WorstPure.Ratio(), "x budget", "a string of U+0600 alone at the shipped cap",
			results.Retirement{
				Claim:          `75,497,472 characters, 6.00x the budget, is "the worst over every escape class and not over one body someone tried"`,
				Correction:     fmt.Sprintf("it is the worst one-class string; a string mixing two classes saturates the charge and the transport at once and renders %s (worstrender.python-raw-codepoint-shipped.mix: %s). At the interim cap the same holds: %s (worstrender.python-raw-codepoint-interim.mix)", x(sh.Worst), sh.Worst.Classes(), x(in.Worst)),
				Attribution:    labAttr,
				Counterexample: "worstrender.python-raw-codepoint-shipped.mix-ratio",
				Keys:           []string{`(?i)worst over every escape class`},
			}),
	}, nil
}

// NoteRetiredNumbers names the retired record whose figure a record's value
// or instance happens to equal (16,777,216 is both the seed's withdrawn
// 4 MiB reach and 2,796,202 x 6 + 4), so a reader, and verify's retired-quote
// check, sees it is the same number and not the withdrawn claim. Any
// producer whose figures can meet such a number (a 16 MiB line cap) runs
// its records through it.
func NoteRetiredNumbers(l charge.Limits, recs []results.Record) ([]results.Record, error) {
	retired, err := RetiredRecords(l)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		text := results.Thousands(int64(recs[i].Value)) + " " + recs[i].Instance
		for _, ret := range retired {
			if ret.Retirement == nil {
				continue
			}
			for _, k := range ret.Retirement.Keys {
				re, err := regexp.Compile(k)
				if err != nil {
					return nil, err
				}
				if re.MatchString(text) {
					recs[i].Instance += fmt.Sprintf(" (the same number as the seed's withdrawn claim %s, not that claim)", ret.ID)
					break
				}
			}
		}
	}
	return recs, nil
}
