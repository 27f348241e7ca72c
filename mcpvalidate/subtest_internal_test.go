package mcpvalidate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/theurian/boundlab/mcpvalidate/internal/testname"
)

// caseName is the module's one subtest-naming rule (internal/testname).
var caseName = testname.Case

// docName names the i-th document of a generated table: its index, which
// keeps apart documents whose first runes agree (so -run 'TestX/^07_' picks
// one), then caseName of its first 24 runes, which says what it is.
func docName(i int, doc string) string {
	rs := []rune(doc)
	if len(rs) > 24 {
		rs = rs[:24]
	}
	return fmt.Sprintf("%02d_%s", i, caseName(string(rs)))
}

// TestDocName holds docName to its doc: the index, then the first runes
// named as -run can select them.
func TestDocName(t *testing.T) {
	if got, want := docName(7, `{"a":1,"b":[`+strings.Repeat("0,", 40)+`0]}`), "07_a_1_b_0_0_0_0_0_0"; got != want {
		t.Errorf("docName = %q, want %q", got, want)
	}
}
