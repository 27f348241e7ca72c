package audit_test

import (
	"context"
	"fmt"

	"github.com/theurian/boundlab/audit"
)

// A static audit reads the schemas a server publishes (here a saved
// tools/list answer) and sends nothing.
func ExampleRun_static() {
	tools, err := audit.ParseToolsList([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[
		{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string","pattern":"^[a-z]+$"}}}},
		{"name":"get","inputSchema":{"type":"object","properties":{"id":{"type":"integer","maximum":99}},"unevaluatedProperties":false}}]}}`))
	if err != nil {
		panic(err)
	}
	rep, err := audit.Run(context.Background(), audit.Config{Tools: tools})
	if err != nil {
		panic(err)
	}
	for _, t := range rep.Tools {
		fmt.Printf("%s: %s, unbounded %v, go renders %v\n", t.Name, t.Schema.Closure, t.Schema.Unbounded, t.Schema.Renders["go"])
	}
	for _, f := range rep.Findings {
		if f.Severity != audit.SeverityNote {
			fmt.Println(f.Rule, f.Tool, f.Message)
		}
	}
	fmt.Println("fails CI at warning:", audit.Fails(rep.Findings, audit.SeverityWarning))
	// Output:
	// search: open, unbounded [/properties/q: string without maxLength], go renders [pattern at /properties/q]
	// get: closed, unbounded [], go renders [maximum at /properties/id unevaluatedProperties at /]
	// BLA102 search neither additionalProperties nor unevaluatedProperties is false at the root
	// fails CI at warning: true
}
