package audit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// bisect finds the body cap and the deepest nesting the server answers as
// it answers a shallow one.
func (a *auditor) bisect(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	a.progress("body cap")
	b.BodyCeiling = a.limits.BodyCeiling
	if err := a.bodyCap(ctx, s, b); err != nil {
		return err
	}
	a.progress("nesting depth")
	b.DepthCeiling = a.limits.DepthCeiling
	return a.depth(ctx, s, c, b)
}

// pingPrefix is a ping whose body is padded with JSON whitespace to any
// length: whitespace inside an object is legal everywhere, so only the
// body's size can make a server refuse it.
const pingPrefix = `{"jsonrpc":"2.0","id":2,"method":"ping"`

func pingBody(n int64) []byte {
	b := make([]byte, 0, n)
	b = append(b, pingPrefix...)
	for int64(len(b)) < n-1 {
		b = append(b, ' ')
	}
	return append(b, '}')
}

// bodyCap bisects the largest ping body answered with a result, to the
// byte, between 1 KiB and the ceiling.
func (a *auditor) bodyCap(ctx context.Context, s *session, b *Boundary) error {
	try := func(n int64) (Shape, error) {
		_, sh, err := s.call(ctx, pingBody(n), 2)
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
	hiSh, err := try(a.limits.BodyCeiling)
	if err != nil {
		return err
	}
	if ok(hiSh) {
		b.AtCap = &hiSh
		return nil
	}
	lo, hi := int64(1<<10), a.limits.BodyCeiling
	loSh, err := try(lo)
	if err != nil {
		return err
	}
	if !ok(loSh) {
		return fmt.Errorf("a %d-byte ping is refused (%s): no body cap to bisect", lo, loSh)
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
// in the arguments and "as shallow" means the shape of a two-level object.
func (a *auditor) depth(ctx context.Context, s *session, c *toolProbe, b *Boundary) error {
	meta := !c.absent && !c.baseShape.Refused()
	b.DepthPlacement = "arguments"
	if meta {
		b.DepthPlacement = "params._meta"
	}
	try := func(d int) (Shape, error) {
		id := a.nextID()
		body := callBody(id, c.name, nested(d))
		if meta {
			body = []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":` + c.name +
				`,"arguments":` + object(c.base) + `,"_meta":` + nested(d) + `}}`)
		}
		_, sh, err := s.call(ctx, body, id)
		return sh, err
	}
	base, err := try(2)
	if err != nil {
		return err
	}
	same := func(sh Shape) bool { return sh.Same(base) }
	if meta {
		same = func(sh Shape) bool { return !sh.Refused() }
	}
	hi := a.limits.DepthCeiling
	sh, err := try(hi)
	if err != nil {
		return err
	}
	if same(sh) {
		return nil
	}
	lo, err := largest(2, int64(hi), func(d int64) (bool, error) {
		sh, err := try(int(d))
		return same(sh), err
	})
	if err != nil {
		return err
	}
	depth := int(lo)
	b.MaxDepth = &depth
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
