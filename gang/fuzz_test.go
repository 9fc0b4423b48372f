package gang_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

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
		// Bytes that are not UTF-8, which encoding/json would read as U+FFFD.
		"{\"queue\": \"\xff\"}", "{\"minMember\": 1, \"nodeSelector\": {\"\xff\": [\"a\"], \"\xfe\": [\"b\"]}}",
		"{\"minMember\": 1, \"nodeSelector\": {\"model\": [\"\xfe\"]}}",
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
		if !utf8.Valid(data) {
			t.Fatalf("parsed input that is not UTF-8 into %+v", spec)
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

// FuzzSpecStrings puts arbitrary strings where a Spec built in Go keeps text: the
// queue, a node-selector key and value, a topology level. Compile either refuses text
// that is not UTF-8 (ErrNotUTF8) or makes a tree whose Spec is the spec given and
// compiles into an equal tree; and two trees are equal only when their strings are.
func FuzzSpecStrings(f *testing.F) {
	f.Add("q", "model", "A10", "rack", "A100")
	f.Add("\xff", "\xff", "\xfe", "\xfd", "\xfe")
	f.Add("", "m", "\xff", "", "\xfe")
	f.Add("é", "\u00e9", "\xed\xa0\x80", "r\x00", "\uFFFD")
	f.Fuzz(func(t *testing.T, queue, key, value, level, other string) {
		build := func(value string) gang.Spec {
			return gang.Spec{
				MinMember:          new(int32(1)),
				Queue:              queue,
				NodeSelector:       map[string][]string{key: {value}},
				TopologyConstraint: &gang.TopologyConstraint{RequiredTopologyLevel: level},
			}
		}
		spec := build(value)
		tree, err := gang.Compile(spec)
		text := utf8.ValidString(queue) && utf8.ValidString(key) && utf8.ValidString(value) && utf8.ValidString(level)
		switch {
		case !text:
			if !errors.Is(err, gang.ErrNotUTF8) {
				t.Fatalf("compiled text that is not UTF-8: %v", err)
			}
			return
		case key == "":
			if !errors.Is(err, gang.ErrEmptySelector) {
				t.Fatalf("compiled a selector key without a name: %v", err)
			}
			return
		case err != nil:
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tree.Spec(), spec) {
			t.Fatalf("Spec() = %+v, compiled from %+v", tree.Spec(), spec)
		}
		again, err := gang.Compile(tree.Spec())
		if err != nil || !again.Equal(tree) {
			t.Fatalf("the tree's spec compiles into another tree: %v", err)
		}
		if o, err := gang.Compile(build(other)); err == nil && o.Equal(tree) != (other == value) {
			t.Fatalf("values %q and %q: Equal is %v", value, other, o.Equal(tree))
		}
	})
}
