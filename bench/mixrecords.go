package bench

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/theurian/boundlab/results"
)

// MinMixtureSeeds is the fewest seeds a saved BenchmarkMixture run may hold:
// a minimum over fewer says little about the distribution.
const MinMixtureSeeds = 50

// The mixture's records: the gate's throughput in multiples of jsontext's
// (jsontext's median time over the gate's, per seed), its minimum and median
// over the seeds, and the seed of the minimum.
const (
	mixtureMinID     = "bench.mixture.jsontext-over-gate.min"
	mixtureMedianID  = "bench.mixture.jsontext-over-gate.median"
	mixtureMinSeedID = "bench.mixture.jsontext-over-gate.min-seed"
)

// mixtureRecords reads a saved BenchmarkMixture run: one ratio per seed, then
// their minimum (with the worst seed's own interval), their median and the
// seed of the minimum.
func mixtureRecords(s *Samples, source string, build results.Build, machine string) ([]results.Record, error) {
	// On-CPU time where the samples report it: on a loaded machine the
	// wall time also counts the minutes a thread waited for a CPU.
	unit := "sec/op"
	for _, k := range s.Order {
		if k.Family == "BenchmarkMixture" && len(s.Values[k][CPUTimeUnit]) > 0 {
			unit = CPUTimeUnit
		}
	}
	rows := s.CompareTo(unit, func(Key) string { return "gate" })
	type seedRatio struct {
		seed int
		row  Row
	}
	var per []seedRatio
	for _, r := range rows {
		if r.Family != "BenchmarkMixture" || r.Impl != "jsontext" {
			continue
		}
		seed, err := strconv.Atoi(strings.TrimPrefix(r.Group, "seed="))
		if err != nil || !strings.HasPrefix(r.Group, "seed=") {
			return nil, fmt.Errorf("%s: BenchmarkMixture group %q names no seed", source, r.Group)
		}
		if math.IsNaN(r.Ratio) {
			return nil, fmt.Errorf("%s: BenchmarkMixture seed %d has no gate sample", source, seed)
		}
		per = append(per, seedRatio{seed, r})
	}
	if len(per) < MinMixtureSeeds {
		return nil, fmt.Errorf("%s: BenchmarkMixture holds %d seeds, fewer than %d", source, len(per), MinMixtureSeeds)
	}
	sort.Slice(per, func(i, j int) bool {
		if per[i].row.Ratio != per[j].row.Ratio {
			return per[i].row.Ratio < per[j].row.Ratio
		}
		return per[i].seed < per[j].seed
	})
	worst := per[0]
	ratios := make([]float64, len(per))
	for i, p := range per {
		ratios[i] = p.row.Ratio
	}
	median := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		median = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	seeds := fmt.Sprintf("seeds 1..%d", len(per))
	size := s.Config["mix-bytes"]
	if size == "" {
		size = "262144"
	}
	inst := fmt.Sprintf("BenchmarkMixture: documents drawn by bench.Mixture(seed, %s bytes), %s; %s", size, seeds, machine)
	cmd := s.Config["command"]
	v, m := round3(worst.row.Ratio), round3(median)
	return []results.Record{{
		ID:       mixtureMinID,
		Title:    "jsontext time over gate time on the worst seed of the mixture of realistic JSON text",
		Value:    v,
		Unit:     "ratio of median " + unit,
		Instance: inst,
		Method:   results.Measured,
		Source: fmt.Sprintf("%s (%s), n=%d per impl and seed, read by bench.SuiteRecords: the least over the seeds of benchmath AssumeNothing medians (jsontext over gate), seed %d, its 95%% interval [%.3g, %.3g], U-test p=%.3g",
			source, cmd, worst.row.N, worst.seed, worst.row.RatioLo, worst.row.RatioHi, worst.row.P),
		Tolerance: round3(math.Max(0.5*v, math.Max(worst.row.RatioHi-v, v-worst.row.RatioLo))),
		Build:     build,
	}, {
		ID:        mixtureMedianID,
		Title:     "jsontext time over gate time, median over the seeds of the mixture of realistic JSON text",
		Value:     m,
		Unit:      "ratio of median " + unit,
		Instance:  inst,
		Method:    results.Measured,
		Source:    fmt.Sprintf("%s (%s), read by bench.SuiteRecords: the median over %d seeds of each seed's ratio of benchmath AssumeNothing medians (jsontext over gate)", source, cmd, len(per)),
		Tolerance: round3(0.5 * m),
		Build:     build,
	}, {
		ID:       mixtureMinSeedID,
		Title:    "The seed of the mixture on which the gate's lead over jsontext is least",
		Value:    float64(worst.seed),
		Unit:     "seed",
		Instance: inst,
		Method:   results.Measured,
		Source:   fmt.Sprintf("%s (%s), read by bench.SuiteRecords: the seed whose jsontext-over-gate ratio is least (%s)", source, cmd, mixtureMinID),
		Build:    build,
	}}, nil
}
