package admission

import (
	"testing"

	"github.com/poolgate/poolgate/quota"
)

// FuzzCheck: any submission against seedPools' pool set either is malformed (an error)
// or gets a decision whose outcome, reason and message agree.
func FuzzCheck(f *testing.F) {
	f.Add("team", int8(0), int64(15), int64(1), false)
	f.Add("team--a", int8(-1), int64(31), int64(0), false)
	f.Add("team--d", int8(1), int64(1), int64(1), true)
	f.Add("fix", int8(0), int64(8), int64(9), true)
	f.Add("a--b--c", int8(0), int64(0), int64(0), false)
	f.Add("", int8(3), int64(-1), int64(1<<62), false)
	pools := seedPools(f)
	f.Fuzz(func(t *testing.T, pool string, prio int8, g1, g2 int64, admin bool) {
		s := Submission{Pool: pool, Priority: quota.Priority(prio), Admin: admin,
			Groups: []TaskGroup{{"one", g1}, {"two", g2}}}
		d, err := Check(pools, s)
		if err != nil {
			if s.Priority.IsValid() && g1 >= 0 && g2 >= 0 {
				t.Fatalf("well-formed submission refused as malformed: %v", err)
			}
			return
		}
		switch d.Outcome {
		case Admit:
			if d.Reason != ReasonNone || d.Message() != "" {
				t.Fatalf("admission with reason %v / message %q", d.Reason, d.Message())
			}
		case Reject:
			if d.Reason == ReasonNone || len(d.Message()) < len("Pool ") || d.Message()[:5] != "Pool " {
				t.Fatalf("rejection %v with message %q", d.Reason, d.Message())
			}
			if (d.Reason == ReasonGroupCap || d.Reason == ReasonParentCap) && s.Priority == quota.Low {
				t.Fatalf("LOW rejected for quota: %+v", d)
			}
		default:
			t.Fatalf("static outcome %v", d.Outcome)
		}
	})
}
