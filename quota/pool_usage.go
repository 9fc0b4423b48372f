package quota

import (
	"github.com/poolgate/poolgate/naming"
)

// WithLedgers returns a copy of p whose usage is what ledger says, for a host whose
// scheduler keeps the usage itself (admission.Gate does): ledger is asked once for every
// top-level pool, for its direct usage, and once for every ACTIVE or DELETING subpool.
// ARCHIVED subpools hold nothing. The copy records no workflows: what Start recorded in
// p is replaced, not carried over, and Start and Finish on the copy count on top of the
// ledgers it was given. Whether a delete archives at once, and what Reconcile drains,
// then follow the scheduler's running counts.
//
// It is refused, with a *PoolError of rule ErrInvalidLedger naming the pool, for a
// negative or Unlimited amount, a negative running count, or usage without a running
// workflow to hold it; and, naming no pool, for a nil ledger. p is never changed.
func (p *PoolSet) WithLedgers(ledger func(naming.Name) Ledger) (*PoolSet, error) {
	const op = "set ledgers"
	if ledger == nil {
		return nil, poolErr(op, naming.Name{}, ErrInvalidLedger, "a nil ledger function")
	}
	c := p.Clone()
	c.init()
	clear(c.runs)
	for _, name := range c.names {
		l := ledger(name)
		if err := checkLedger(op, name, l); err != nil {
			return nil, err
		}
		r := c.pools[name]
		r.ledger = l
		c.pools[name] = r
		for _, s := range c.kids[name] {
			r := c.subs[s]
			if !r.state.Live() {
				continue
			}
			l := ledger(s)
			if err := checkLedger(op, s, l); err != nil {
				return nil, err
			}
			r.ledger = l
			c.subs[s] = r
		}
	}
	return c, nil
}

// checkLedger reports why l cannot be the ledger of name.
func checkLedger(op string, name naming.Name, l Ledger) error {
	switch {
	case l.Used < 0 || l.LowUsed < 0 || l.Running < 0:
		return poolErr(op, name, ErrInvalidLedger, "negative usage or running count")
	case l.Used.IsUnlimited() || l.LowUsed.IsUnlimited() || l.Total().IsUnlimited():
		return poolErr(op, name, ErrInvalidLedger, "usage Unlimited")
	case l.Running == 0 && (l.Used > 0 || l.LowUsed > 0):
		return poolErr(op, name, ErrInvalidLedger, "usage "+l.Total().String()+" with no running workflow")
	}
	return nil
}
