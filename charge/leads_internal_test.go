package charge

import "testing"

// TestLeadsOKIsTheByteTest holds the SWAR leadsOK to the plain reading of
// its rule — each of the four lead bytes has one of its bits 0x1e set — over
// every mix of lead bytes 0xC0..0xDF in the four lanes, with continuation
// bytes at both ends of their range.
func TestLeadsOKIsTheByteTest(t *testing.T) {
	slow := func(x uint64) bool {
		for k := 0; k < 64; k += 16 {
			if x>>k&0x1e == 0 {
				return false
			}
		}
		return true
	}
	for a := uint64(0xc0); a <= 0xdf; a++ {
		for b := uint64(0xc0); b <= 0xdf; b++ {
			for c := uint64(0xc0); c <= 0xdf; c++ {
				for d := uint64(0xc0); d <= 0xdf; d++ {
					for _, cont := range []uint64{0x80, 0xbf} {
						x := a | cont<<8 | b<<16 | cont<<24 | c<<32 | cont<<40 | d<<48 | cont<<56
						if leadsOK(x) != slow(x) {
							t.Fatalf("leadsOK(%#x) = %v", x, leadsOK(x))
						}
					}
				}
			}
		}
	}
}
