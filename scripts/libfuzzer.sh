#!/usr/bin/env bash
# libfuzzer.sh — build every native Go fuzz target the way OSS-Fuzz and
# ClusterFuzzLite do (.clusterfuzzlite/build.sh: go-118-fuzz-build, then
# clang -fsanitize=fuzzer), and run each libFuzzer binary for N inputs from
# its seed corpus with the JSON dictionary.
#
# usage: scripts/libfuzzer.sh [-n RUNS] [-j JOBS] [-s SANITIZER] [-o DIR] [-k] [TARGET...]
#
#   -n RUNS       inputs per target (libFuzzer -runs, seeds included; default 2000)
#   -j JOBS       builds, then binaries, run at a time (default: the number of
#                 cores)
#   -s SANITIZER  address (OSS-Fuzz's default for Go, the default here) or none
#   -o DIR        work directory (default: a new one under ${TMPDIR:-/tmp},
#                 removed at the end unless -k)
#   -k            keep the work directory: binaries, seed zips and dictionaries
#                 in DIR/out, logs in DIR/logs, failing inputs in DIR/artifacts
#   TARGET...     only these targets (default: every one build.sh finds)
#
# Needs git, go with the module proxy, and clang with libFuzzer (Debian:
# apt-get install clang). go-118-fuzz-build is installed into DIR/bin at the
# version build.sh pins. Nothing in the repository changes: the tree (tracked
# and untracked, not ignored) is copied to DIR/src (and DIR/src.2 ... for
# the other build groups, see -j), where go-118-fuzz-build rewrites each
# target's file while it builds and build.sh adds go-118-fuzz-build's testing
# package to go.mod and go.sum.
#
# In DIR/bin, compile_native_go_fuzzer does what OSS-Fuzz's does for a
# non-coverage build: find the package's directory and the file defining
# `func TARGET(... *testing.F)` (grep, as OSS-Fuzz's does), run
# `go-118-fuzz-build -tags gofuzz -o TARGET.a -func TARGET DIR`, and link with
# `$CXX $CXXFLAGS $LIB_FUZZING_ENGINE TARGET.a -o $OUT/TARGET`, with OSS-Fuzz's
# flags for an address build.
#
# Exit status: 0 every target built and ran its inputs clean; 1 a build or a
# run failed (the log and any failing input are named); 3 no clang with
# libFuzzer (nothing was built).
set -u -o pipefail

runs=2000 jobs=$(nproc) sanitizer=address work="" keep=0
while getopts "n:j:s:o:kh" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	s) sanitizer=$OPTARG ;;
	o) work=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,36p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $jobs in '' | *[!0-9]* | 0) echo "libfuzzer.sh: -j takes a count of at least 1" >&2; exit 2 ;; esac
case $sanitizer in address | none) ;; *) echo "libfuzzer.sh: -s takes address or none" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo" || exit 2

if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/boundlab-libfuzzer.XXXXXX") || exit 2
else
	mkdir -p "$work" || exit 2
	work=$(cd "$work" && pwd)
fi
if [ $keep -eq 0 ]; then
	trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/bin" "$work/src" "$work/out" "$work/logs" "$work/artifacts" "$work/corpus"

# clang must link a libFuzzer binary, not only exist.
probe=$work/probe.c
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' >"$probe"
if ! command -v clang >/dev/null || ! clang -fsanitize=fuzzer "$probe" -o "$work/probe" 2>"$work/logs/probe.log"; then
	echo "libfuzzer.sh: no clang that links -fsanitize=fuzzer (Debian: apt-get install clang); nothing built"
	exit 3
fi

t0=$(date +%s)
version=$(sed -n 's/^go118=\${GO118FUZZBUILD_VERSION:-\(.*\)}$/\1/p' .clusterfuzzlite/build.sh)
if [ -z "$version" ]; then
	echo "libfuzzer.sh: no go-118-fuzz-build version in .clusterfuzzlite/build.sh" >&2
	exit 1
fi
echo "libfuzzer.sh: go-118-fuzz-build@$version, clang $(clang -dumpversion), $(go version | cut -d' ' -f3), sanitizer $sanitizer, work in $work"
if ! GOBIN=$work/bin go install "github.com/AdamKorcz/go-118-fuzz-build@$version" 2>"$work/logs/install.log"; then
	cat "$work/logs/install.log" >&2
	exit 1
fi

git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$work/src" || exit 1

cat >"$work/bin/compile_native_go_fuzzer" <<'SCRIPT'
#!/bin/bash -eu
# compile_native_go_fuzzer PATH FUNCTION FUZZER: OSS-Fuzz's non-coverage
# build of one native Go fuzz target, written out by scripts/libfuzzer.sh.
path=$1 function=$2 fuzzer=$3
dir=$(go list -tags gofuzz -f '{{.Dir}}' "$path")
files=$(grep -r -l --include='*.go' -s "$function" "$dir" || true)
if [ -z "$files" ] || [ "$(grep "func $function" $files | grep -c 'testing.F')" -ne 1 ]; then
	echo "Could not find the function: func ${function}(f *testing.F)"
	exit 0 # as OSS-Fuzz's does; build.sh checks for the binary
fi
go-118-fuzz-build -tags gofuzz -o "$fuzzer.a" -func "$function" "$dir"
$CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$fuzzer.a" -o "$OUT/$fuzzer"
SCRIPT
chmod +x "$work/bin/compile_native_go_fuzzer"

export SRC=$work OUT=$work/out SANITIZER=$sanitizer CXX=clang++ LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export CXXFLAGS="" BOUNDLAB_SEED_DIRS=1 PATH="$work/bin:$PATH"
[ "$sanitizer" = address ] && CXXFLAGS="-fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"

# The targets are built in $jobs groups at once, each group by build.sh in
# its own copy of the tree: go-118-fuzz-build rewrites a target's file in
# its package while it builds, which another build reading the same tree
# would compile. The copies share the build cache (-trimpath: a package's
# objects do not depend on its copy's directory).
wanted=("$@")
if [ ${#wanted[@]} -eq 0 ]; then
	mapfile -t wanted < <(cd "$work/src" && go run ./scripts/fuzzseeds -list | awk '{ print $2 }')
	if [ ${#wanted[@]} -eq 0 ]; then
		echo "libfuzzer.sh: scripts/fuzzseeds -list found no targets" >&2
		exit 1
	fi
fi
groups=$jobs
[ "$groups" -gt ${#wanted[@]} ] && groups=${#wanted[@]}
echo "libfuzzer.sh: building ${#wanted[@]} targets in $groups groups at once (.clusterfuzzlite/build.sh; logs $work/logs/build.N.log)"
for ((g = 2; g <= groups; g++)); do
	mkdir -p "$work/src.$g" && (cd "$work/src" && tar -cf - .) | tar -xf - -C "$work/src.$g" || exit 1
done
pids=()
for ((g = 1; g <= groups; g++)); do
	src=$work/src
	[ $g -gt 1 ] && src=$work/src.$g
	group=()
	for ((i = g - 1; i < ${#wanted[@]}; i += groups)); do
		group+=("${wanted[i]}")
	done
	(cd "$src" && FUZZ_TARGETS="${group[*]}" bash .clusterfuzzlite/build.sh) >"$work/logs/build.$g.log" 2>&1 &
	pids+=($!)
done
built=1
for ((g = 1; g <= groups; g++)); do
	if ! wait "${pids[g - 1]}"; then
		tail -40 "$work/logs/build.$g.log"
		echo "libfuzzer.sh: build group $g failed (log above, whole in $work/logs/build.$g.log)"
		built=0
	fi
done
if [ $built -eq 0 ]; then
	[ $keep -eq 0 ] && echo "libfuzzer.sh: rerun with -k to keep the logs"
	exit 1
fi
cat "$work"/logs/build.*.log | grep '^build.sh: \|_seed_corpus.zip: '

# The seed zips' encoding held to the real decoder, go-118-fuzz-build's
# F.Fuzz: its test is build-ignored in the repository, whose go.mod does not
# require that module; the copy's go.mod now does.
if ! (cd "$work/src" && sed -i '1{/^\/\/go:build ignore$/d}' internal/fuzzseed/realdecoder_test.go &&
	go test -count=1 -run '^TestEncodeIsWhatTheRealDecoderReads$' ./internal/fuzzseed/) >"$work/logs/realdecoder.log" 2>&1; then
	cat "$work/logs/realdecoder.log"
	echo "libfuzzer.sh: the seed encoding does not match go-118-fuzz-build's decoder"
	exit 1
fi
echo "libfuzzer.sh: seed encoding matches go-118-fuzz-build's decoder ($(tail -1 "$work/logs/realdecoder.log"))"
tb=$(date +%s)
echo "libfuzzer.sh: built in $((tb - t0)) s"

# run_target T: T's binary for $runs inputs; its summary row goes to
# DIR/logs/T.row, and a failure's log tail to DIR/logs/T.fail.
run_target() {
	local t=$1 bin=$work/out/$1 log=$work/logs/$1.log rc done_line secs execs rate result
	mkdir -p "$work/corpus/$t"
	# The empty directory first: libFuzzer adds what it finds there and only
	# reads the seeds. Leaks are not checked: the Go runtime's C side keeps
	# allocations for the life of the process.
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$bin" -runs="$runs" -seed=1 -timeout=60 -rss_limit_mb=4096 \
		-dict="$work/out/$t.dict" -artifact_prefix="$work/artifacts/$t-" -print_final_stats=1 \
		"$work/corpus/$t" "$work/out/${t}_seed_corpus" >"$log" 2>&1
	rc=$?
	done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)
	secs=$(sed -E 's/.* in ([0-9]+) second.*/\1/' <<<"$done_line")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	result=ok
	if [ $rc -ne 0 ] || [ -z "$done_line" ] || [ "${execs:-0}" -lt "$runs" ]; then
		result="FAIL (exit $rc, $execs inputs; log $log$(ls "$work/artifacts/$t-"* 2>/dev/null | sed 's/^/, input /' | tr -d '\n'))"
		tail -30 "$log" >"$work/logs/$t.fail"
	fi
	printf '%-28s %7s %9s %8s %s\n' "$t" "${execs:-?}" "${secs:-?}" "${rate:-?}" "$result" >"$work/logs/$t.row"
}

# The binaries are separate processes, each mostly on one core: $jobs run at
# a time (the cores), and the table lists them by name.
targets=()
for bin in "$work"/out/Fuzz*; do
	[ -x "$bin" ] && [ -f "$bin" ] && targets+=("$(basename "$bin")")
done
running=0
for t in "${targets[@]}"; do
	if [ $running -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_target "$t" &
	running=$((running + 1))
done
wait
status=0
summary=$(printf '%-28s %7s %9s %8s %s' target runs seconds execs/s result)
for t in "${targets[@]}"; do
	if [ -f "$work/logs/$t.fail" ]; then
		cat "$work/logs/$t.fail"
		status=1
	fi
	summary+=$'\n'$(cat "$work/logs/$t.row" 2>/dev/null || printf '%-28s %s' "$t" "FAIL (no result)")
	[ -f "$work/logs/$t.row" ] || status=1
done
echo
echo "$summary"
echo
echo "libfuzzer.sh: $(ls "$work"/out/Fuzz*.dict 2>/dev/null | wc -l) targets, build $((tb - t0)) s, runs $(($(date +%s) - tb)) s ($jobs at a time); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $status -ne 0 ] && [ $keep -eq 0 ]; then
	echo "libfuzzer.sh: rerun with -k to keep the logs and inputs"
fi
exit $status
