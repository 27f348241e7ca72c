package charge

// FindPython313 lets the external tests share the CPython 3.13 lookup.
var FindPython313 = findPython313
