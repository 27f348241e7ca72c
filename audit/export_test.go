package audit

import (
	"bytes"
	"encoding/json"
)

// AdmitsForTest is admits on a schema's JSON.
func AdmitsForTest(schema, lit string) bool {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader([]byte(schema)))
	dec.UseNumber() // as parseSchema reads a schema
	if dec.Decode(&m) != nil {
		return false
	}
	return admits(m, lit)
}

// AuditSchemaForTest is the static audit of one schema.
func AuditSchemaForTest(schema string) *SchemaAudit { return auditSchema([]byte(schema)) }
