package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// bisect finds the body cap and the deepest nesting the server answers as
// it answers a shallow one.
func (a *auditor) bisect(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	a.progress(PhaseBodyCap, "body cap")
	b.BodyCeiling = a.limits.BodyCeiling
	a.capProbe = true // an ended transport is its past_cap answer
	err := a.bodyCap(ctx, s, b)
	a.capProbe = false
	if err != nil {
		return err
	}
	if err := a.memory(ctx, b); err != nil {
		return err
	}
	a.progress(PhaseNesting, "nesting depth")
	b.DepthCeiling = a.limits.DepthCeiling
	a.bisecting = true // its steps bound its new sessions
	defer func() { a.bisecting = false }()
	return a.depth(ctx, s, c, b)
}

// pingBody is a ping with id whose body is padded with JSON whitespace to
// n bytes: whitespace inside an object is legal everywhere, so only the
// body's size can make a server refuse it.
func pingBody(n int64, id int) []byte {
	b := make([]byte, 0, n)
	b = append(b, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"ping"`...)
	for int64(len(b)) < n-1 {
		b = append(b, ' ')
	}
	return append(b, '}')
}

// bodyCap finds the largest ping body answered with a result, to the byte:
// it doubles from 1 KiB until a body is refused or the ceiling is answered,
// then bisects between the last answered and the first refused. A server
// with a cap is never sent more than twice it, nor more than the ceiling.
//
// An answer that does not come within bodyWait is not taken for a refusal
// unless the server shows it dropped the message: over stdio, when a small
// ping right after it is answered (a process that skips a line it cannot
// hold: silent), or, when that ping is not answered either, the process is
// restarted (hung: the line wedged it). Over HTTP, where a refusal has a
// status, it stops the run with an error naming the size and the wait.
func (a *auditor) bodyCap(ctx context.Context, s *session, b *Boundary) error {
	try := func(n int64) (Shape, error) {
		id := a.nextID()
		rid := json.RawMessage(strconv.Itoa(id))
		ans, err := s.sendWithin(ctx, pingBody(n, id), rid, a.bodyWait(n))
		sh := ShapeOf(ans, rid)
		if err == nil && ans.Silent {
			if sc, stdio := s.conn.(*stdioConn); stdio {
				// the small ping waits as long as the body did: a server
				// that answers in order answers it only after the body
				lid := a.nextID()
				lrid := json.RawMessage(strconv.Itoa(lid))
				lans, lerr := s.sendWithin(ctx, pingBody(64, lid), lrid, a.bodyWait(n))
				live := ShapeOf(lans, lrid)
				if lerr == nil && !live.Refused() {
					if late, ok := sc.lateAnswer(rid); ok {
						return ShapeOf(late, rid), nil // answered after its wait: slow, not dropped
					}
					return sh, nil // dropped: the server answers the next message
				}
				// the process lives and answers nothing more: the line
				// wedged it; a new process goes on
				s.conn.Close()
				ns, oerr := a.open(ctx, true)
				if oerr != nil {
					return Shape{}, fmt.Errorf("the server stopped answering after a %d-byte body: %v", n, oerr)
				}
				*s = *ns
				return Shape{Kind: KindHung}, nil
			}
			return sh, fmt.Errorf("a %d-byte ping drew no answer within %s (the answer wait plus a second per %d bytes): raise --timeout or lower --body-ceiling",
				n, a.bodyWait(n), BodyRate)
		}
		if killed := (*rssKilled)(nil); errors.As(err, &killed) {
			return Shape{}, err
		}
		if err != nil {
			// a transport that hangs up on a large body refuses it; go on
			// with a fresh session
			s.conn.Close()
			ns, oerr := a.open(ctx, true)
			if oerr != nil {
				return Shape{}, fmt.Errorf("the server stopped answering after a %d-byte body: %v", n, oerr)
			}
			*s = *ns
			return Shape{Kind: KindClosed}, nil
		}
		return sh, nil
	}
	ok := func(sh Shape) bool { return !sh.Refused() }
	lo, ceiling := int64(1<<10), a.limits.BodyCeiling
	loSh, err := try(lo)
	if err != nil {
		return err
	}
	if !ok(loSh) {
		return fmt.Errorf("a %d-byte ping is refused (%s): no body cap to bisect", lo, loSh)
	}
	var hi int64
	var hiSh Shape
	for hi == 0 {
		n := min(2*lo, ceiling)
		sh, err := try(n)
		if err != nil {
			return err
		}
		switch {
		case !ok(sh):
			hi, hiSh = n, sh
		case n == ceiling:
			b.AtCap = &sh
			return nil
		default:
			lo, loSh = n, sh
		}
	}
	lo, err = largest(lo, hi, func(n int64) (bool, error) {
		sh, err := try(n)
		if ok(sh) {
			loSh = sh
		} else {
			hiSh = sh
		}
		return ok(sh), err
	})
	if err != nil {
		return err
	}
	b.BodyCap, b.AtCap, b.PastCap = &lo, &loSh, &hiSh
	return nil
}

// nested is an arguments object nesting d levels (the object itself is
// level 1).
func nested(d int) string {
	return strings.Repeat(`{"a":`, d-1) + "{}" + strings.Repeat("}", d-1)
}

// depth bisects the deepest nesting the server answers as it answers a
// shallow one. When the carrier's baseline is a result, the nesting goes in
// params._meta (an open object every MCP method takes) and "as shallow"
// means a result: a closed schema cannot refuse it first. Otherwise it goes
// in the arguments and "as shallow" means the shape of a two-level object;
// when that shape is a refusal of a called tool (its handler refuses the
// baseline) and the ceiling's nesting draws the same, the refusal may be
// a depth bound's that looks like the handler's: it tries params._meta
// against the same call with two levels there, and, when that is alike
// too, the depth is not measured (said so in Report.NotMeasured) rather
// than reported unbounded. A tool name no tool has is refused after
// decoding, so there the same refusal means the nesting got through.
func (a *auditor) depth(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	meta := !c.absent && !c.baseShape.Refused()
	try := func(d int, inMeta bool) (Shape, error) {
		id := a.nextID()
		body := callBody(id, c.name, nested(d))
		if inMeta {
			body = []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":` + c.name +
				`,"arguments":` + object(c.base) + `,"_meta":` + nested(d) + `}}`)
		}
		_, sh, err := s.call(ctx, body, id)
		return sh, err
	}
	placements := []bool{meta}
	if !meta && !c.absent {
		placements = append(placements, true)
	}
	hi := a.limits.DepthCeiling
	for i, inMeta := range placements {
		b.DepthPlacement = "arguments"
		if inMeta {
			b.DepthPlacement = "params._meta"
		}
		base, err := try(2, inMeta)
		if err != nil {
			return err
		}
		same := func(sh Shape) bool { return sh.Same(base) }
		if meta {
			same = func(sh Shape) bool { return !sh.Refused() }
		}
		sh, err := try(hi, inMeta)
		if err != nil {
			return err
		}
		if same(sh) {
			if !c.absent && base.Refused() {
				if i < len(placements)-1 {
					continue // alike, and the shallow call refused: try the next placement
				}
				b.DepthPlacement = ""
				a.notMeasured("max_depth", "", fmt.Sprintf("the carrier %s refuses a valid call (%s), and %d levels of nesting in the arguments and in params._meta "+
					"are refused alike: a depth bound's refusal cannot be told from the handler's; give a valid call with --call", c.tool.Name, c.baseShape, hi))
				break
			}
			b.AtDepth = &sh
			break
		}
		at, past := base, sh
		lo, err := largest(2, int64(hi), func(d int64) (bool, error) {
			sh, err := try(int(d), inMeta)
			if same(sh) {
				at = sh
			} else {
				past = sh
			}
			return same(sh), err
		})
		if err != nil {
			return err
		}
		depth := int(lo)
		b.MaxDepth, b.AtDepth, b.PastDepth = &depth, &at, &past
		break
	}
	if a.obs == nil {
		return nil
	}
	a.progress(PhaseNesting, "nesting depth that reaches the handler (observed)")
	return a.observedDepth(ctx, s, c)
}

// observedDepth bisects, for an observing target, the deepest arguments
// nesting whose tools/call reaches the server's middleware.
func (a *auditor) observedDepth(ctx context.Context, s *session, c *toolProbe) error {
	reaches := func(d int64) (bool, error) {
		id := a.nextID()
		_, sh, err := s.call(ctx, callBody(id, c.name, nested(int(d))), id)
		return sh.Reached != nil && *sh.Reached, err
	}
	hi := int64(a.limits.DepthCeiling)
	if ok, err := reaches(hi); err != nil || ok {
		return err // none below the ceiling: ArgumentsMaxDepth stays null
	}
	if ok, err := reaches(1); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("a tools/call with empty arguments does not reach the middleware")
		}
		return err
	}
	lo, err := largest(1, hi, reaches)
	if err != nil {
		return err
	}
	d := int(lo)
	a.obs.ArgumentsMaxDepth = &d
	return nil
}

// largest bisects the largest n in [lo, hi) with ok(n), given ok(lo) and
// not ok(hi); ok is monotone (true below some n, false from it on).
func largest(lo, hi int64, ok func(int64) (bool, error)) (int64, error) {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		yes, err := ok(mid)
		if err != nil {
			return 0, err
		}
		if yes {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}
