package gang_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/poolgate/poolgate/gang"
)

// FuzzSpec feeds arbitrary JSON through the whole pipeline. Nothing may panic; a parse
// failure is a *FieldError; a spec either fails with a *ValidationError that lists
// exactly Validate's errors, or compiles into a tree whose minimum is ready, whose
// next step from nothing completes it, and whose JSON round-trips.
func FuzzSpec(f *testing.F) {
	for _, seed := range []string{
		hierarchicalEx1, hierarchicalEx2, hierarchicalEx3, hierarchicalEx4, elasticSingle, elasticTwoLevel, elasticValidMid,
		`{"minMember": 3}`,
		`{"minMember": 2147483647}`,
		`{"minMember": 9, "subGroups": [{"name": "a", "minMember": 2147483647}, {"name": "b", "parent": "", "minMember": 1}]}`,
		`{"minSubGroup": 5, "subGroups": [{"name": "a"}, {"name": "a", "parent": "a"}, {"name": "b", "parent": "c"}, {"name": "c", "parent": "b"}]}`,
		`{"subGroups": [{"name": "p"}, {"name": "a", "parent": "p", "minMember": 1}, {"name": "b", "minMember": 1}],
		  "topologyConstraints": {"subGroups": {"p": {"requiredTopologyLevel": "rack"}, "zz": {}},
		    "subGroupSets": [{"subGroups": ["a", "b"], "constraint": {"preferredTopologyLevel": "zone"}}, {"subGroups": ["b"]}]}}`,
		`{"topologyConstraint": {"topology": "t"}, "topologyConstraints": {"global": {"requiredTopologyLevel": "zone"}}, "minMember": 1}`,
		`{"minMember": "1"}`, `[]`, `null`, `{"subGroups": [null]}`, `{`,
		`{"minMember": 2, "nodeSelector": {"model": ["V100M16", "V100M32"]}}`,
		`{"nodeSelector": {"model": ["A"]}, "subGroups": [{"name": "p", "nodeSelector": {"zone": []}}, {"name": "a", "parent": "p", "minMember": 1, "nodeSelector": {"model": ["A", "A"], "": ["x"]}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := gang.ParseSpec(data)
		if err != nil {
			var fe *gang.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("parse error %T is not a *FieldError: %v", err, err)
			}
			return
		}
		r := gang.Validate(spec)
		tree, err := gang.Compile(spec)
		if err != nil {
			var verr *gang.ValidationError
			if !errors.As(err, &verr) || len(verr.Errors) == 0 || tree != nil {
				t.Fatalf("compile error %T %v with tree %v", err, err, tree)
			}
			if !reflect.DeepEqual(verr.Errors, r.Errors) {
				t.Fatalf("Compile and Validate disagree:\n%v\n%v", verr.Errors, r.Errors)
			}
			return
		}
		if len(r.Errors) > 0 {
			t.Fatalf("compiled despite %v", r.Errors)
		}

		js, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := gang.ParseSpec(js)
		if err != nil || !reflect.DeepEqual(spec, again) {
			t.Fatalf("round trip: %v\n%s", err, js)
		}

		minPods := tree.MinPods()
		var st gang.Status
		if err := tree.Readiness(minPods.Counts, &st); err != nil || !st.Ready() {
			t.Fatalf("MinPods %v is not ready: %v", minPods.Counts, err)
		}
		var step gang.Step
		zero := make([]int64, tree.NumLeaves())
		if err := tree.NextStep(zero, minPods.Counts, &st, &step); err != nil || step.Kind != gang.StepGang || step.Total != minPods.Pods {
			t.Fatalf("from nothing with MinPods pending: %v %+v", err, step)
		}
		_ = tree.Constraints()
		_ = tree.Mermaid("fuzz")
	})
}
