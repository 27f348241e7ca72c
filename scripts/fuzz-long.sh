#!/usr/bin/env bash
# fuzz-long.sh — run each native fuzz target for N minutes, one at a time, and
# report execs/s and the new corpus entries each run added.
#
# usage: scripts/fuzz-long.sh [-m MINUTES] [-p PARALLEL] [-o LOGDIR] [PKG[:TARGET]...]
#
#   -m MINUTES   fuzz time per target (default 10)
#   -p PARALLEL  fuzz workers per target (go test -parallel; default 1, the
#                machine is shared)
#   -o LOGDIR    where each target's go test output goes (default
#                /tmp/boundlab-fuzz-long)
#   PKG[:TARGET] packages (./fuzz/, ./charge/) or single targets
#                (./fuzz/:FuzzRefusals); default: every Fuzz* in ./fuzz/ and
#                ./charge/...
#
# New corpus entries are counted in the fuzz cache (go env GOCACHE)/fuzz/,
# which is where go test keeps what it finds interesting; a failing input is
# written to the package's testdata/fuzz/<Target>/ by go test itself and the
# run is reported FAIL with its log. Copy cache entries worth keeping into
# testdata/fuzz/<Target>/ to make them regression corpus.
set -u -o pipefail

minutes=10 parallel=1 logdir=/tmp/boundlab-fuzz-long
while getopts "m:p:o:h" opt; do
	case $opt in
	m) minutes=$OPTARG ;;
	p) parallel=$OPTARG ;;
	o) logdir=$OPTARG ;;
	*) sed -n '2,22p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cd "$(dirname "$0")/.." || exit 2
mkdir -p "$logdir"
module=$(go list -m)
cache=$(go env GOCACHE)/fuzz

specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
	specs=(./fuzz/ ./charge/...)
fi

# Expand packages into pkg:target pairs.
targets=()
for spec in "${specs[@]}"; do
	if [[ $spec == *:* ]]; then
		targets+=("$spec")
		continue
	fi
	for pkg in $(go list "$spec"); do
		dir=./${pkg#"$module"/}
		[ "$pkg" = "$module" ] && dir=.
		for t in $(go test -list '^Fuzz' "$dir" 2>/dev/null | grep '^Fuzz'); do
			targets+=("$dir:$t")
		done
	done
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz-long: no fuzz targets found" >&2
	exit 2
fi

count_entries() { # pkgpath target
	local d="$cache/$1/$2"
	if [ -d "$d" ]; then find "$d" -type f | wc -l; else echo 0; fi
}

status=0
summary=$(printf '%-44s %8s %10s %9s %8s %s\n' target minutes execs execs/s new result)
for spec in "${targets[@]}"; do
	dir=${spec%%:*} target=${spec#*:}
	pkgpath=$(go list "$dir")
	before=$(count_entries "$pkgpath" "$target")
	log="$logdir/$(echo "$dir" | tr -c 'A-Za-z0-9\n' _)_$target.log"
	echo "fuzz-long: $dir $target for ${minutes}m (log $log)" >&2
	start=$(date +%s)
	go test "$dir" -run '^$' -fuzz "^${target}\$" -fuzztime "${minutes}m" -parallel "$parallel" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	after=$(count_entries "$pkgpath" "$target")
	last=$(grep -E '^fuzz: elapsed: .*execs: [0-9]+' "$log" | tail -1)
	execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
	# "elapsed: 1h2m3s" -> seconds
	fuzzsecs=$(sed -E 's/^fuzz: elapsed: ([0-9hms]+),.*/\1/' <<<"$last" | awk '{
		s = 0; n = ""
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c ~ /[0-9]/) { n = n c; continue }
			if (c == "h") s += n * 3600; else if (c == "m") s += n * 60; else if (c == "s") s += n
			n = ""
		}
		print s
	}')
	[ -z "$execs" ] && execs=0
	[ -z "$fuzzsecs" ] || [ "$fuzzsecs" -eq 0 ] && fuzzsecs=$secs
	rate=$(awk -v e="$execs" -v s="$fuzzsecs" 'BEGIN{ if (s > 0) printf "%.0f", e/s; else print 0 }')
	result=ok
	if [ $rc -ne 0 ]; then
		result="FAIL (see $log)"
		status=1
	fi
	summary+=$'\n'$(printf '%-44s %8s %10s %9s %8s %s' "$dir:$target" "$minutes" "$execs" "$rate" "$((after - before))" "$result")
done
echo
echo "$summary"
echo
echo "machine: $(go version), GOMAXPROCS/NumCPU $(nproc), $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
