package audit

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
)

// OriginProbe is one request sent as a page in a browser on another site
// would send it (a foreign Origin header), or as one that reached the server
// by DNS rebinding would (a foreign Host header). The MCP transport
// requires a server to answer a foreign Origin with 403; the Host header is
// what a server on loopback can tell a rebound name by.
type OriginProbe struct {
	// Kind is foreign, null or look-alike (Origin), or foreign-host.
	Kind   string `json:"kind"`
	Header string `json:"header"` // Origin or Host
	Sent   string `json:"sent"`   // the header's value
	// Method is initialize (with no session) or tools/call (the carrier's
	// call, on the probes' session).
	Method  string  `json:"method"`
	Verdict Verdict `json:"verdict"` // served | refused
	Answer  *Shape  `json:"answer"`
	// Loopback: the target's URL names this machine, where a foreign Host
	// served is a name rebound to it (Host probes only).
	Loopback bool `json:"loopback,omitempty"`
}

// Origin values the probe sends; originLookAlike builds the third from the
// target's own host.
const (
	originForeign = "http://foreign.example"
	originNull    = "null"
	hostForeign   = "foreign.example"
)

// originHeaders are the forged headers, as name, value pairs: a foreign
// origin, the opaque origin "null" (a sandboxed frame, a file), a name that
// begins with the target's own host, and a foreign Host.
func originHeaders(target string) [][3]string {
	host, port := "localhost", ""
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		host, port = u.Hostname(), u.Port()
	}
	look := host + ".foreign.example"
	hostSent := hostForeign
	if port != "" {
		look = net.JoinHostPort(look, port)
		hostSent = net.JoinHostPort(hostForeign, port)
	}
	return [][3]string{{"foreign", "Origin", originForeign}, {"null", "Origin", originNull},
		{"look-alike", "Origin", "http://" + look}, {"foreign-host", "Host", hostSent}}
}

// origins sends initialize and the carrier's call with each forged header.
// A served initialize opened a session: it is closed again.
func (a *auditor) origins(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	h, ok := a.target.(*HTTP)
	if !ok {
		return nil // no Origin or Host over stdio: nothing to measure
	}
	a.progress(PhaseOrigin, "origin and host")
	session := ""
	if hc, ok := s.conn.(*httpConn); ok {
		session = hc.session
	}
	init := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + ProtocolVersion +
		`","capabilities":{},"clientInfo":{"name":"boundlab-audit","version":"` + a.canary + `"}}}`)
	lo := loopback(h.URL)
	for _, kv := range originHeaders(h.URL) {
		kind, hv := kv[0], kv[1:]
		a.what = hv[0] + " " + hv[1]
		ans, hdr, err := a.post(ctx, h, http.MethodPost, "", init, hv[0], hv[1])
		if err != nil {
			return err
		}
		sh := ShapeOf(ans, json.RawMessage("0"))
		v := VerdictRefused
		if !sh.Refused() {
			v = VerdictServed
			if id := hdr.Get("Mcp-Session-Id"); id != "" {
				if _, _, err := a.post(context.WithoutCancel(ctx), h, http.MethodDelete, id, nil); err != nil {
					return err
				}
			}
		}
		onLo := lo && hv[0] == "Host"
		b.Origins = append(b.Origins, OriginProbe{Kind: kind, Header: hv[0], Sent: hv[1], Method: "initialize", Verdict: v, Answer: &sh, Loopback: onLo})

		id := a.nextID()
		ans, _, err = a.post(ctx, h, http.MethodPost, session, callBody(id, c.name, a.carrierArgs(c)), hv[0], hv[1])
		if err != nil {
			return err
		}
		sh = ShapeOf(ans, json.RawMessage(strconv.Itoa(id)))
		b.Origins = append(b.Origins, OriginProbe{Kind: kind, Header: hv[0], Sent: hv[1], Method: "tools/call", Verdict: servedOrRefused(sh, b.CarrierBaseline), Answer: &sh, Loopback: onLo})
	}
	return nil
}

// loopback reports whether the target's URL names this machine: there a
// foreign Host served is a name rebound to it.
func loopback(target string) bool {
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// originFindings raises one finding per forged header a request was served
// with: every foreign Origin, and a foreign Host when the target is on
// loopback (elsewhere names the server answers to are its own business).
// The figure is how many of the two methods were served.
func (b *Boundary) originFindings() []Finding {
	var out []Finding
	at := map[[2]string]int{}
	for _, p := range b.Origins {
		if p.Verdict != VerdictServed || (p.Header == "Host" && !p.Loopback) {
			continue
		}
		k := [2]string{p.Header, p.Sent}
		if i, ok := at[k]; ok {
			out[i].Figure++
			out[i].Message += " and " + p.Method
			continue
		}
		at[k] = len(out)
		what := "a request from a foreign origin (Origin: " + p.Sent + ")"
		if p.Header == "Host" {
			what = "a request for a foreign name (Host: " + p.Sent + ") on loopback, as DNS rebinding sends it,"
		}
		out = append(out, finding(RuleCrossOrigin, "", what+" is served: "+p.Method, 1, "methods served"))
	}
	return out
}
