#!/usr/bin/env bash
# libfuzzer.sh — build every native Go fuzz target the way OSS-Fuzz and
# ClusterFuzzLite do (.clusterfuzzlite/build.sh: go-118-fuzz-build, then
# clang -fsanitize=fuzzer), and run each libFuzzer binary for N inputs from
# its seed corpus with the JSON dictionary.
#
# usage: scripts/libfuzzer.sh [-n RUNS] [-s SANITIZER] [-o DIR] [-k] [TARGET...]
#
#   -n RUNS       inputs per target (libFuzzer -runs, seeds included; default 2000)
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
# and untracked, not ignored) is copied to DIR/src, where go-118-fuzz-build
# rewrites each target's file while it builds and build.sh adds
# go-118-fuzz-build's testing package to go.mod and go.sum.
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

runs=2000 sanitizer=address work="" keep=0
while getopts "n:s:o:kh" opt; do
	case $opt in
	n) runs=$OPTARG ;;
	s) sanitizer=$OPTARG ;;
	o) work=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,33p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
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
export CXXFLAGS="" BOUNDLAB_SEED_DIRS=1 FUZZ_TARGETS="$*" PATH="$work/bin:$PATH"
[ "$sanitizer" = address ] && CXXFLAGS="-fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
echo "libfuzzer.sh: building (.clusterfuzzlite/build.sh; log $work/logs/build.log)"
if ! (cd "$work/src" && bash .clusterfuzzlite/build.sh) >"$work/logs/build.log" 2>&1; then
	tail -40 "$work/logs/build.log"
	echo "libfuzzer.sh: the build failed (log above, whole in $work/logs/build.log)"
	[ $keep -eq 0 ] && echo "libfuzzer.sh: rerun with -k to keep it"
	exit 1
fi
grep '^build.sh: \|_seed_corpus.zip: ' "$work/logs/build.log"

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

status=0
summary=$(printf '%-28s %7s %9s %8s %s' target runs seconds execs/s result)
for bin in "$work"/out/Fuzz*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	t=$(basename "$bin")
	mkdir -p "$work/corpus/$t"
	log=$work/logs/$t.log
	# The empty directory first: libFuzzer adds what it finds there and only
	# reads the seeds. Leaks are not checked: the Go runtime's C side keeps
	# allocations for the life of the process.
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} "$bin" -runs="$runs" -seed=1 -timeout=60 -rss_limit_mb=4096 \
		-dict="$work/out/$t.dict" -artifact_prefix="$work/artifacts/$t-" -print_final_stats=1 \
		"$work/corpus/$t" "$work/out/${t}_seed_corpus" >"$log" 2>&1
	rc=$?
	done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)
	n=$(sed -E 's/^Done ([0-9]+) runs.*/\1/' <<<"$done_line")
	secs=$(sed -E 's/.* in ([0-9]+) second.*/\1/' <<<"$done_line")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	result=ok
	if [ $rc -ne 0 ] || [ -z "$done_line" ] || [ "${execs:-0}" -lt "$runs" ]; then
		result="FAIL (exit $rc, $execs inputs; log $log$(ls "$work/artifacts/$t-"* 2>/dev/null | sed 's/^/, input /' | tr -d '\n'))"
		status=1
		tail -30 "$log"
	fi
	summary+=$'\n'$(printf '%-28s %7s %9s %8s %s' "$t" "${execs:-?}" "${secs:-?}" "${rate:-?}" "$result")
done
echo
echo "$summary"
echo
echo "libfuzzer.sh: $(ls "$work"/out/Fuzz*.dict 2>/dev/null | wc -l) targets, build $((tb - t0)) s, runs $(($(date +%s) - tb)) s; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $status -ne 0 ] && [ $keep -eq 0 ]; then
	echo "libfuzzer.sh: rerun with -k to keep the logs and inputs"
fi
exit $status
