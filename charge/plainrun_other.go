//go:build !amd64 || purego

package charge

// vectorRuns is false: plainRun takes the portable word path only.
const vectorRuns = false

func plainRunAVX2(b []byte, odd0, odd1 byte) (n, c0, c1 int) {
	panic("charge: no vector path in this build")
}
