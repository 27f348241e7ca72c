package charge

// FindPython313 lets the external tests share the CPython 3.13 lookup.
var FindPython313 = findPython313

// SetChunkBytes shrinks how far g's string scan runs between budget checks,
// so tests reach chunk boundaries and the trip path with short documents.
func SetChunkBytes(g *Gate, n int) { g.chunk = max(n, 1) }

// CaseName lets the external tests name their subtests as the internal ones
// do.
var CaseName = caseName
