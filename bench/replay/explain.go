package replay

import (
	"maps"
	"slices"
	"strings"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/explain"
)

// Explained is what the replay's samples of explanations found (Config.ExplainEvery):
// every decision a sampled cycle left pending explained (package explain), the causes
// counted, and the remedies of the first pending workload of each sample, each tried
// again on a copy of the gate (explain.ApplyRemedy on a restored snapshot, then Decide).
type Explained struct {
	// Samples is the number of cycles sampled; Decisions the pending decisions they
	// explained, Causes how many of each cause.
	Samples, Decisions int
	Causes             []CauseCount
	// Sought counts the workloads whose remedies were sought, Remedies the remedies
	// offered them (RemedyWait included), and Failed those that did not admit the
	// workload when tried again: the count that must be 0.
	Sought, Remedies, Failed int
	// Kinds counts the remedies offered by kind.
	Kinds []CauseCount
}

// CauseCount is a count of one cause, or of one kind of remedy.
type CauseCount struct {
	Name  string
	Count int
}

// explained accumulates Explained.
type explained struct {
	samples, decisions       int
	causes, kinds            map[string]int
	sought, remedies, failed int
}

// explainSample explains every decision res, a cycle not applied yet, leaves pending,
// and the remedies of the first of them, each tried again.
func (s *Sim) explainSample(res *admission.CycleResult) error {
	if s.explained.causes == nil {
		s.explained.causes, s.explained.kinds = map[string]int{}, map[string]int{}
	}
	all, err := explain.ExplainAll(s.gate, *res, explain.Options{NoRemedies: true})
	if err != nil {
		return err
	}
	s.explained.samples++
	for _, e := range all {
		s.explained.decisions++
		s.explained.causes[e.Cause.String()]++
	}
	for _, e := range all {
		if e.Cause == explain.CauseNone || e.Cause == explain.CauseInadmissible {
			continue
		}
		full, err := explain.ExplainIn(s.gate, *res, e.Workload, explain.Options{MaxChecks: remedyChecks})
		if err != nil {
			return err
		}
		s.explained.sought++
		for _, r := range full.Remedies {
			s.explained.remedies++
			s.explained.kinds[r.Kind.String()]++
			if r.Kind != explain.RemedyWait && !s.remedyAdmits(full.Decision.Workload, r) {
				s.explained.failed++
			}
		}
		break
	}
	return nil
}

// remedyChecks bounds the checks of the remedies sought in one sample: each restores a
// snapshot of the replay's gate.
const remedyChecks = 12

// remedyAdmits tries r again on a copy of the gate: carried out, does w get admitted?
func (s *Sim) remedyAdmits(w admission.Workload, r explain.Remedy) bool {
	data, err := s.gate.MarshalBinary()
	if err != nil {
		return false
	}
	cp, err := admission.Restore(data)
	if err != nil {
		return false
	}
	if w, err = explain.ApplyRemedy(cp, w, r); err != nil {
		return false
	}
	d, err := cp.Decide(w)
	return err == nil && d.Admitted()
}

// report returns what was accumulated.
func (e *explained) report() Explained {
	out := Explained{Samples: e.samples, Decisions: e.decisions, Sought: e.sought, Remedies: e.remedies, Failed: e.failed}
	for _, k := range slices.Sorted(maps.Keys(e.causes)) {
		out.Causes = append(out.Causes, CauseCount{k, e.causes[k]})
	}
	for _, k := range slices.Sorted(maps.Keys(e.kinds)) {
		out.Kinds = append(out.Kinds, CauseCount{k, e.kinds[k]})
	}
	return out
}

// counts formats counts as "name n, name n".
func counts(cs []CauseCount) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.Name + " " + group(int64(c.Count))
	}
	return strings.Join(parts, ", ")
}
