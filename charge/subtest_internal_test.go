package charge

import "github.com/theurian/boundlab/charge/internal/testname"

// caseName is the module's one subtest-naming rule (internal/testname).
var caseName = testname.Case
