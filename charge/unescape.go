package charge

// AppendUnescaped appends the decoded content of a JSON string the gate
// admitted (raw: the bytes between its quotes) to dst: the gate's own escape
// decoder, for a caller that reads strings inside a document the gate scanned
// (a JSON-RPC envelope's member names). On content the gate did not admit the
// result is undefined.
func AppendUnescaped(dst, raw []byte) []byte { return appendUnescaped(dst, raw) }
