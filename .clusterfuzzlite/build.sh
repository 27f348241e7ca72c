#!/bin/bash -eu
# build.sh — every native Go fuzz target in boundlab built as a libFuzzer
# binary in $OUT, as OSS-Fuzz and ClusterFuzzLite build Go targets
# (compile_native_go_fuzzer: go-118-fuzz-build, then $CXX $CXXFLAGS
# $LIB_FUZZING_ENGINE), each with <target>_seed_corpus.zip and <target>.dict.
#
# Runs in OSS-Fuzz's base-builder-go image from the repository's root (the
# Dockerfile's WORKDIR); an OSS-Fuzz project's own build.sh runs this one.
# scripts/libfuzzer.sh runs it outside the image, with the same tools.
#
# The targets are not listed here: `go run ./scripts/fuzzseeds -list` finds
# every `func FuzzX(f *testing.F)` in a _test.go file (the set .ci/run's fuzz
# smokes run), so a new target is built without an edit here. A binary is
# named by its target.
#
# go-118-fuzz-build's testing package is added to go.mod in the copy of the
# tree this runs in; boundlab's go.mod does not require it (it would reach
# every adopter's module graph).
#
# Optional, for scripts/libfuzzer.sh: FUZZ_TARGETS (names to build, default
# all), BOUNDLAB_SEED_DIRS=1 (the seed inputs also as directories in $OUT).

go118=${GO118FUZZBUILD_VERSION:-v0.0.0-20250520111509-a70c2aa677fa}
go get "github.com/AdamKorcz/go-118-fuzz-build/testing@$go118"

targets=$(go run ./scripts/fuzzseeds -list)
if [ -z "$targets" ]; then
	echo "build.sh: no fuzz targets found" >&2
	exit 1
fi
wanted=" ${FUZZ_TARGETS:-} "
built=()
while read -r dir target importpath; do
	if [ -n "${FUZZ_TARGETS:-}" ] && [[ $wanted != *" $target "* ]]; then
		continue
	fi
	# compile_native_go_fuzzer finds the target's file by grepping the package
	# directory, subdirectories too, for the target's name, and its coverage
	# build copies the one file it finds: the name must be in one .go file.
	named=$(grep -r -l --include='*.go' -s "$target" "$dir" || true)
	if [ "$(wc -w <<<"$named")" -ne 1 ]; then
		echo "build.sh: $target is named in more than one .go file under $dir (OSS-Fuzz's coverage build needs one):" $named >&2
		exit 1
	fi
	start=$(date +%s)
	# From the target's directory: go-118-fuzz-build writes its main package
	# into the working directory, and that package must be allowed to import
	# the target's (an internal package only from within its parent).
	(cd "$dir" && compile_native_go_fuzzer "$importpath" "$target" "$target")
	# compile_native_go_fuzzer reports a target it cannot find and exits 0.
	if [ ! -f "$OUT/$target" ]; then
		echo "build.sh: $target: compile_native_go_fuzzer left no binary in \$OUT" >&2
		exit 1
	fi
	# compile_native_go_fuzzer leaves the archive and its cgo header in the
	# package's directory: go hashes a directory's .h files into its
	# package's build, so a header left there would make every later build
	# recompile that package and every package that imports it.
	rm -f "$dir/$target.a" "$dir/$target.h"
	cp .clusterfuzzlite/json.dict "$OUT/$target.dict"
	built+=("$target")
	echo "build.sh: $target built in $(($(date +%s) - start)) s"
done <<<"$targets"
if [ ${#built[@]} -eq 0 ]; then
	echo "build.sh: none of FUZZ_TARGETS ($FUZZ_TARGETS) is a target" >&2
	exit 1
fi

# The seed corpora: each target's F.Add seeds and testdata/fuzz/<target>/
# files, encoded as go-118-fuzz-build's libFuzzer entry point decodes them.
go run ./scripts/fuzzseeds -out "$OUT" ${BOUNDLAB_SEED_DIRS:+-dirs} "${built[@]}"
