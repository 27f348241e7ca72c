#!/usr/bin/env bash
# Mutation testing of boundlab's production path with gremlins v0.6.0 (a tool,
# installed into a temporary GOBIN; not a dependency of the module).
#
#   scripts/mutation.sh [PKG...]          PKG: charge, mcpvalidate (default: both)
#
# For each package it runs gremlins over the package's own files (the lab and
# test-helper subpackages left out: charge/internal, charge/reference,
# mcpvalidate/mcpvalidatetest, mcpvalidate/mark3labs), one worker unless WORKERS
# says more, and writes
#
#   results/mutation/PKG.run.json  gremlins' report (every mutant, its status)
#                                  with the run's context (commit, files, go)
#   results/mutation/PKG.log       gremlins' log (the LIVED and TIMED OUT lines)
#
# and prints killed / lived / not covered / timed out / not viable per package.
# Environment:
#   FILES="a.go b.go"   mutate only these files of the package (a subset run;
#                       the report then covers only them: say so when pinning)
#   GREMLINS_FLAGS="--arithmetic-base=false ..."  further gremlins flags, e.g. to
#                       run only some mutator types (recorded in the run)
#   GREMLINS_TIMEOUT_COEFFICIENT  (default 10: the test run's time under
#                       coverage times 10; timeouts stay rare on 2 cores)
#   WORKERS=N           gremlins workers (default 1; each runs its own go test,
#                       so N > 1 makes each mutant's run slower: keep the
#                       timeout coefficient generous; recorded in the run)
#   OUT=DIR             where the reports go (default results/mutation)
#   MUTATION_COMMIT=X   the commit to record, for a run from an exported tree
set -euo pipefail
cd "$(dirname "$0")/.."

version=v0.6.0
coef=${GREMLINS_TIMEOUT_COEFFICIENT:-10}
workers=${WORKERS:-1}
out=${OUT:-results/mutation}
gobin=$(mktemp -d)
trap 'rm -rf "$gobin"' EXIT
GOBIN=$gobin go install "github.com/go-gremlins/gremlins/cmd/gremlins@$version"
mkdir -p "$out"

# Subpackages left out, as gremlins names files (relative to the package).
declare -A skip=(
	[charge]='^(internal|reference)/'
	[mcpvalidate]='^(mcpvalidatetest|mark3labs)/'
)

pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(charge mcpvalidate)
for pkg in "${pkgs[@]}"; do
	[ -n "${skip[$pkg]:-}" ] || { echo "mutation.sh: unknown package $pkg" >&2; exit 2; }
	excl=(-E "${skip[$pkg]}")
	if [ -n "${FILES:-}" ]; then
		for f in $(cd "$pkg" && ls *.go | grep -v '_test\.go$'); do
			case " $FILES " in *" $f "*) ;; *) excl+=(-E "^${f//./\\.}\$") ;; esac
		done
	fi
	echo "== gremlins $version over ./$pkg (timeout coefficient $coef, $workers worker(s)${FILES:+, files: $FILES}${GREMLINS_FLAGS:+, $GREMLINS_FLAGS})"
	start=$(date +%s)
	# -count=1: gremlins sets every mutant's timeout from its coverage run's
	# time; a cached coverage run (well under a second) would time out
	# mutants whose tests merely take their usual few seconds.
	# -vet=off: a mutant is killed by the tests failing, not by go vet (which
	# go test otherwise runs first, on every mutant).
	GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1 -vet=off" "$gobin/gremlins" unleash --workers "$workers" --timeout-coefficient "$coef" \
		${GREMLINS_FLAGS:-} "${excl[@]}" -o "$out/$pkg.json" "./$pkg" >"$out/$pkg.log" 2>&1 || true
	echo "   $(( $(date +%s) - start ))s"
	# The run's context beside gremlins' report: what was mutated, at which
	# commit, with which toolchain (package mutation reads both).
	jq -n --arg pkg "$pkg" --arg files "${FILES:-}" --arg flags "${GREMLINS_FLAGS:-}" --arg coef "$coef" --arg workers "$workers" --arg version "$version" \
		--arg commit "${MUTATION_COMMIT:-$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- "$pkg" || echo +dirty)}" \
		--arg go "$(go env GOVERSION)" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--arg cpu "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs" \
		--slurpfile report "$out/$pkg.json" \
		'{package: $pkg, files: $files, flags: $flags, timeout_coefficient: ($coef|tonumber), workers: ($workers|tonumber), gremlins: $version,
		  commit: $commit, go: $go, date: $date, machine: $cpu, report: $report[0]}' >"$out/$pkg.run.json"
	rm "$out/$pkg.json"
	jq -r '.report.files[].mutations[].status' "$out/$pkg.run.json" | sort | uniq -c |
		awk -v p="$pkg" 'BEGIN{printf "   %s:", p} {n=$1; $1=""; printf "%s%s %d", sep, tolower($0), n; sep=","} END{print ""}'
	jq -r '.report | "   efficacy \(.test_efficacy)%, mutant coverage \(.mutations_coverage)%"' "$out/$pkg.run.json"
done
