package charge

// nameIndex indexes the names of objects past linearNames names by hash, for
// duplicate lookups. It is an open-addressing multiset of 8-byte slots, each
// holding the generation that wrote it, 16 bits of the name's hash and the
// name's index in scanner.list. It is sized once for the most names a
// document can hold, so it never grows mid-document, and starting a new
// document costs one generation increment instead of a clear. A slot only
// nominates a candidate: the caller checks that the index lies in the current
// object's names and compares the names themselves, so a stale or colliding
// slot cannot cause a wrong answer.
type nameIndex struct {
	slots []uint64
	gen   uint64 // 16 bits; 0 marks a slot never written
	used  int
}

const (
	genShift  = 48
	fragShift = 32
	fragMask  = 0xffff
)

// ready sizes the table for up to names entries at a load factor of at most
// one half.
func (x *nameIndex) ready(names int) {
	n := 1 << 10
	for n < 2*names {
		n <<= 1
	}
	if len(x.slots) < n {
		x.slots = make([]uint64, n)
		x.gen = 1
	}
	if x.gen == 0 {
		x.gen = 1
	}
}

// next returns the candidate list index at or after probe position i for
// hash, and the position after it; ok is false once the probe reaches an
// empty slot.
func (x *nameIndex) next(hash uint64, i uint64) (at int32, after uint64, ok bool) {
	mask := uint64(len(x.slots) - 1)
	frag := hash >> 48
	for ; ; i = (i + 1) & mask {
		sl := x.slots[i]
		if sl>>genShift != x.gen {
			return 0, i, false
		}
		if (sl>>fragShift)&fragMask == frag {
			return int32(uint32(sl)), (i + 1) & mask, true
		}
	}
}

// first is where the probe for hash starts.
func (x *nameIndex) first(hash uint64) uint64 { return hash & uint64(len(x.slots)-1) }

// add stores the list index at under hash.
func (x *nameIndex) add(hash uint64, at int32) {
	mask := uint64(len(x.slots) - 1)
	i := hash & mask
	for x.slots[i]>>genShift == x.gen {
		i = (i + 1) & mask
	}
	x.slots[i] = x.gen<<genShift | (hash>>48)<<fragShift | uint64(uint32(at))
	x.used++
}

// release forgets every entry, keeping the slots for the next document.
func (x *nameIndex) release() {
	if x.used == 0 {
		return
	}
	x.used = 0
	x.gen = (x.gen + 1) & fragMask
	if x.gen == 0 { // wrapped: slots of an old generation could match again
		clear(x.slots)
		x.gen = 1
	}
}
