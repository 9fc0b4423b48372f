package quota

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/poolgate/poolgate/naming"
)

// poolName parses a pool or subpool name known to be valid.
func poolName(s string) naming.Name {
	n, err := naming.Parse(s)
	if err != nil {
		panic(err)
	}
	return n
}

// describePools renders everything observable about p, one line per pool and per
// subpool, ARCHIVED history and the history of removed parents included.
func describePools(p *PoolSet) string {
	roots := slices.Clone(p.names)
	for r := range p.kids {
		if _, ok := p.pools[r]; !ok {
			roots = append(roots, r)
		}
	}
	slices.SortFunc(roots, naming.Compare)
	if len(roots) == 0 {
		return "no pools\n"
	}
	var b strings.Builder
	for _, root := range roots {
		if info, ok := p.Pool(root); ok {
			fmt.Fprintf(&b, "%s %s quota=%s unallocated=%s used=%s low=%s running=%d available=%s\n",
				root, info.Config.Status, info.Config.Quota, info.Unallocated, info.Ledger.Used, info.Ledger.LowUsed, info.Ledger.Running, info.Available())
		} else {
			fmt.Fprintf(&b, "%s removed\n", root)
		}
		for s := range p.Subpools(root) {
			fmt.Fprintf(&b, "  %s %s quota=%s effective=%s used=%s low=%s running=%d available=%s\n",
				s.Name, s.State, s.Quota, s.EffectiveQuota(), s.Ledger.Used, s.Ledger.LowUsed, s.Ledger.Running, s.Available())
		}
	}
	return b.String()
}

// checkPoolInvariants recomputes every derived number of p from scratch and reports the
// first disagreement with what p holds.
func checkPoolInvariants(p *PoolSet) error {
	if len(p.names) != len(p.pools) || !slices.IsSortedFunc(p.names, naming.Compare) {
		return fmt.Errorf("names %v do not list the %d pools in order", p.names, len(p.pools))
	}
	ledgers := map[naming.Name]Ledger{}
	for id, w := range p.runs {
		if w.ID != id {
			return fmt.Errorf("workflow %q stored under %q", w.ID, id)
		}
		l := ledgers[w.Pool]
		if w.Priority.Guaranteed() {
			l.Used += w.GPUs
		} else {
			l.LowUsed += w.GPUs
		}
		l.Running++
		ledgers[w.Pool] = l
		if w.Pool.IsSubpool() {
			if s, ok := p.subs[w.Pool]; !ok || !s.state.Live() {
				return fmt.Errorf("workflow %q runs in %s, which is not live", id, w.Pool)
			}
		} else if _, ok := p.pools[w.Pool]; !ok {
			return fmt.Errorf("workflow %q runs in missing pool %s", id, w.Pool)
		}
	}
	total := 0
	for root, kids := range p.kids {
		if !slices.IsSortedFunc(kids, naming.Compare) {
			return fmt.Errorf("subpools of %s not sorted: %v", root, kids)
		}
		total += len(kids)
		for _, k := range kids {
			if k.Root() != root {
				return fmt.Errorf("%s listed under %s", k, root)
			}
			if _, ok := p.subs[k]; !ok {
				return fmt.Errorf("%s listed but not stored", k)
			}
		}
	}
	if total != len(p.subs) {
		return fmt.Errorf("%d subpools listed, %d stored", total, len(p.subs))
	}
	for n, s := range p.subs {
		if s.ledger != ledgers[n] {
			return fmt.Errorf("%s ledger %+v, workflows say %+v", n, s.ledger, ledgers[n])
		}
		if s.state == Archived && s.ledger != (Ledger{}) {
			return fmt.Errorf("ARCHIVED %s has usage %+v", n, s.ledger)
		}
		if s.quota < 0 || s.quota.IsUnlimited() {
			return fmt.Errorf("%s quota %s", n, s.quota)
		}
		if _, ok := p.pools[n.Root()]; !ok && s.state.Live() {
			return fmt.Errorf("live %s without parent", n)
		}
	}
	for n, r := range p.pools {
		if r.ledger != ledgers[n] {
			return fmt.Errorf("%s ledger %+v, workflows say %+v", n, r.ledger, ledgers[n])
		}
		var effective Quantity
		live := 0
		for _, k := range p.kids[n] {
			s := p.subs[k]
			effective += s.effective()
			if s.state.Live() {
				live++
			}
		}
		if r.allocated != effective || r.live != live {
			return fmt.Errorf("%s holds allocated %s live %d, subpools say %s and %d", n, r.allocated, r.live, effective, live)
		}
		if live > 0 && r.cfg.Quota.IsUnlimited() {
			return fmt.Errorf("%s is Unlimited with %d subpools", n, live)
		}
		if u := r.unallocated(); u < 0 || !u.IsUnlimited() && effective+u != r.cfg.Quota {
			return fmt.Errorf("%s: unallocated %s, effective %s, quota %s", n, u, effective, r.cfg.Quota)
		}
		if rule, _ := p.checkConfig(r.cfg); rule != 0 {
			return fmt.Errorf("%s config %+v breaks %v", n, r.cfg, rule)
		}
	}
	return checkFlavorInvariants(p)
}

// checkFlavorInvariants checks the quotas per flavor: without flavors there are none;
// with them, every subpool's shares sum to its quota, and the ACTIVE subpools of a pool
// hold no more of a flavor than the pool's quota of it and nothing of a flavor it does
// not offer, nor do DELETING ones.
func checkFlavorInvariants(p *PoolSet) error {
	if p.fl == nil {
		if len(p.shares) > 0 {
			return fmt.Errorf("shares %v without flavors", p.shares)
		}
		return nil
	}
	for n, s := range p.subs {
		shares, ok := p.shares[n]
		if !ok || len(shares) != len(p.fl.flavors) {
			return fmt.Errorf("%s has shares %v for %d flavors", n, shares, len(p.fl.flavors))
		}
		var sum Quantity
		for _, q := range shares {
			if q < 0 {
				return fmt.Errorf("%s has shares %v", n, shares)
			}
			sum += q
		}
		if sum != s.quota {
			return fmt.Errorf("%s has quota %s and shares %v", n, s.quota, shares)
		}
	}
	for n, r := range p.pools {
		for i, f := range p.fl.flavors {
			var held Quantity
			for _, k := range p.kids[n] {
				if s := p.subs[k]; s.state.Live() && p.shares[k][i] > 0 {
					if _, offered := r.cfg.FlavorQuota(f.Name); !offered {
						return fmt.Errorf("%s holds %s of %s, which %s does not offer", k, p.shares[k][i], f.Name, n)
					}
					if s.state == Active {
						held += p.shares[k][i]
					}
				}
			}
			if fq, _ := r.cfg.FlavorQuota(f.Name); held > fq.Quota {
				return fmt.Errorf("%s: subpools hold %s of %s, quota %s", n, held, f.Name, fq.Quota)
			}
		}
	}
	return nil
}

// samePools reports whether a and b hold the same state, nil and empty maps alike.
func samePools(a, b *PoolSet) bool {
	norm := func(p *PoolSet) PoolSet {
		c := *p.Clone()
		if len(c.pools) == 0 && len(c.subs) == 0 && len(c.runs) == 0 {
			return PoolSet{}
		}
		if len(c.names) == 0 {
			c.names = nil
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
