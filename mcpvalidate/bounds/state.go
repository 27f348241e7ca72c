package bounds

import "time"

// What a request leaves behind, as the front gate weighs it: a session of the
// go-sdk's stateful streamable HTTP handler, an open GET stream, an open
// connection. Like the in-flight weights they are measured figures rounded
// up, not derivations. The memory lab's records are the authority
// (memmodel.go.state.KIND.cost: each unit's growth of the higher of what the
// soft memory limit counts and of VmRSS, in fresh processes at several
// counts; the check fails when a measured row exceeds the weight here), and
// a weight is raised to meet them, never the other way.
const (
	// SessionCost is one session: the SDK's ServerSession, transport and
	// connection goroutine, and the gate's own entry. Record
	// memmodel.go.state.session.cost measured about 7.8 KB (7.6 to 7.8 KB
	// across runs): about 2x.
	SessionCost = 16 << 10
	// StreamCost is one open GET (SSE) stream beyond the connection it
	// holds: the SDK's stream state, the request it hangs on, the server's
	// background read. Record memmodel.go.state.stream-alone.cost (the
	// stream row less the idle connection row) measured 10.4 KB in one run
	// and 18.6 KB in the next, past the 16 KiB first set here from a probe:
	// 24 KiB, about 1.3x the higher.
	StreamCost = 24 << 10
	// ConnCost is one open connection at its costliest state not weighed
	// elsewhere: reading a header block of MaxHeaderBytes. Record
	// memmodel.go.state.conn-header.cost measured about 33 KB at a 15 KiB
	// block (an idle keep-alive connection, memmodel.go.state.conn.cost,
	// about 19.6 KB): about 1.5x.
	ConnCost = 48 << 10
	// MaxHeaderBytes is the header block ConnCost covers: what mcpvalidate's
	// Handler.Harden sets http.Server.MaxHeaderBytes to, and the most it
	// admits. An MCP request's own headers take a few hundred bytes; 16 KiB leaves room for a bearer
	// token and a proxy's additions (Node's default, a quarter of Envoy's)
	// while keeping a slow client's header block far from net/http's 1 MiB
	// default, which would cost about 2 MB a connection.
	MaxHeaderBytes = 16 << 10
)

// The http.Server's own bounds, as Handler.Harden sets them and the memory
// lab's state rows measure under them (one place, so the two cannot drift).
// No server-wide ReadTimeout or WriteTimeout: either would also end
// long-lived SSE streams; the front gate gives each POST body its own read
// deadline, and the session table bounds streams.
const (
	// ReadHeaderTimeout bounds how long a connection may take to send its
	// headers, which arrive in one round trip from any client: so a
	// connection that sends nothing, or trickles its headers, holds its
	// slot under the connection bound for at most this long.
	ReadHeaderTimeout = 10 * time.Second
	// ConnIdleTimeout closes a keep-alive connection idle this long: long
	// enough for a client's next call to reuse it, and idle connections are
	// the first closed anyway when the connection bound is reached.
	ConnIdleTimeout = 2 * time.Minute
)

// Session table defaults (stateful mode).
const (
	// DefaultSessionBytes is the memory the session table holds by default.
	// A session is weighed with its first stream (SessionCost + StreamCost),
	// so the count it admits is derived from the weights, never typed: at
	// least twice the load lab's 2,000 held streams (TestDefaultsAdmit), so a
	// new client is admitted while they are all held. Idle sessions never
	// lock a client out whatever the size: the least recently used idle one
	// is closed to admit it.
	DefaultSessionBytes = 160 << 20
	// DefaultSessionIdle closes a session after this long without a request
	// or a stream write: the common MCP server default (30 minutes).
	// Clients keep a session alive with pings.
	DefaultSessionIdle = 30 * time.Minute
	// DefaultStreamsPerSession bounds one session's open GET streams: the
	// standalone stream the go-sdk allows once per session, and resumptions
	// (Last-Event-ID) of a few request streams beside it.
	DefaultStreamsPerSession = 4
	// DefaultStreamIdle is how long a stream that writes nothing keeps its
	// session from eviction. The go-sdk's own standalone stream writes only
	// when the server notifies, so on a quiet server a held stream stops
	// protecting its session after this long.
	DefaultStreamIdle = 5 * time.Minute
)

// Connection bound defaults (Handler.Harden).
const (
	// DefaultConnBytes is the memory open connections may hold by default,
	// at ConnCost each: a connection for every session the default table
	// admits to hold its stream on (HTTP/1.1 holds one per connection)
	// (TestDefaultsAdmit).
	DefaultConnBytes = 192 << 20
	// ConnWait is how long a new connection waits for a slot when every open
	// connection is active (idle ones are closed first, once idle for
	// ConnIdleGrace) before it is closed unanswered.
	ConnWait = 5 * time.Second
	// ConnHeaderGrace is how long a new connection may hold its slot at the
	// bound without a complete request header block: past it, it is closed
	// (oldest first) to admit another. A client sends its request in the
	// round trip after it connects, so only a silent or trickling connection
	// is this slow; without the grace, a flood of them would hold every
	// slot for ReadHeaderTimeout each and lock new clients out.
	ConnHeaderGrace = 2 * time.Second
	// ConnIdleGrace is how long a keep-alive connection must have been idle
	// before it is closed to admit another at the bound. A client between
	// two requests of one conversation is idle for a moment, and a POST
	// sent as the server closes its connection fails (HTTP clients do not
	// retry one); a connection idle longer is closed before the client
	// reuses it, and the client's next request opens another.
	ConnIdleGrace = time.Second
)
