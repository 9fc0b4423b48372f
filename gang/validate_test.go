package gang_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

// fe is an expected field error: path and message.
type fe struct{ path, msg string }

func fieldErrors(fes []*gang.FieldError) []fe {
	out := []fe{}
	for _, e := range fes {
		out = append(out, fe{e.Path, e.Message})
	}
	return out
}

func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []fe
	}{
		{
			name: "duplicate names",
			spec: `{"subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 1}, {"name": "a", "minMember": 2}]}`,
			want: []fe{{"spec.subGroups[2].name", `duplicate SubGroup name "a": already used by spec.subGroups[0]`}},
		},
		{
			name: "empty and invalid names",
			spec: `{"subGroups": [{"minMember": 1}, {"name": "-a", "minMember": 1}, {"name": "a b", "minMember": 1},
			  {"name": "` + strings.Repeat("x", 64) + `", "minMember": 1}]}`,
			want: []fe{
				{"spec.subGroups[0].name", "SubGroup name must not be empty"},
				{"spec.subGroups[1].name", `SubGroup name "-a" is not a valid label value: must start and end with a letter or digit`},
				{"spec.subGroups[2].name", `SubGroup name "a b" is not a valid label value: must contain only letters, digits, '-', '_' and '.', has " "`},
				{"spec.subGroups[3].name", `SubGroup name "` + strings.Repeat("x", 64) + `" is not a valid label value: must be at most 63 characters, has 64`},
			},
		},
		{
			name: "missing parent",
			spec: `{"subGroups": [{"name": "decode"}, {"name": "decode-workers", "parent": "decod", "minMember": 4}]}`,
			want: []fe{
				{"spec.subGroups[1].parent", `parent "decod" of SubGroup "decode-workers" does not exist`},
				{"spec.subGroups[0].minMember", `leaf SubGroup "decode" needs minMember of at least 1`},
			},
		},
		{
			name: "cycle",
			spec: `{"subGroups": [{"name": "top", "minMember": 1}, {"name": "b", "parent": "c"}, {"name": "c", "parent": "d"},
			  {"name": "d", "parent": "b"}, {"name": "e", "parent": "d", "minMember": 1}]}`,
			want: []fe{{"spec.subGroups[1].parent", `SubGroup "b" is in a parent cycle: b -> c -> d -> b`}},
		},
		{
			name: "self-parent",
			spec: `{"subGroups": [{"name": "a", "parent": "a", "minMember": 1}, {"name": "b", "minMember": 1}]}`,
			want: []fe{{"spec.subGroups[0].parent", `SubGroup "a" is its own parent`}},
		},
		{
			name: "both fields on one node",
			spec: `{"subGroups": [{"name": "decode", "minMember": 5, "minSubGroup": 2},
			  {"name": "w", "parent": "decode", "minMember": 4}, {"name": "l", "parent": "decode", "minMember": 1},
			  {"name": "leaf", "minMember": 2, "minSubGroup": 1}]}`,
			// Each node breaks two rules, exclusivity and a leaf or mid-level rule, and
			// gets an error for each.
			want: []fe{
				{"spec.subGroups[0].minSubGroup", `SubGroup "decode" sets both minMember (5) and minSubGroup (2); they are mutually exclusive`},
				{"spec.subGroups[3].minSubGroup", `SubGroup "leaf" sets both minMember (2) and minSubGroup (1); they are mutually exclusive`},
				{"spec.subGroups[0].minMember", `minMember (5) is not allowed on mid-level SubGroup "decode" (2 child SubGroups); use minSubGroup to count child SubGroups`},
				{"spec.subGroups[3].minSubGroup", `minSubGroup is not allowed on leaf SubGroup "leaf": it has no child SubGroups`},
			},
		},
		{
			name: "both fields on the PodGroup",
			spec: `{"minMember": 24, "minSubGroup": 9, "subGroups": [{"name": "a", "minMember": 1}]}`,
			want: []fe{
				{"spec.minSubGroup", "PodGroup sets both minMember (24) and minSubGroup (9); they are mutually exclusive"},
				{"spec.minSubGroup", "minSubGroup (9) exceeds the number of direct child SubGroups (1)"},
			},
		},
		{
			name: "minMember 0 next to minSubGroup is unset",
			spec: `{"minMember": 0, "minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 1}]}`,
			want: []fe{},
		},
		{
			name: "minSubGroup on a leaf",
			spec: `{"subGroups": [{"name": "prefill-0", "minSubGroup": 1}]}`,
			want: []fe{
				{"spec.subGroups[0].minMember", `leaf SubGroup "prefill-0" needs minMember of at least 1`},
				{"spec.subGroups[0].minSubGroup", `minSubGroup is not allowed on leaf SubGroup "prefill-0": it has no child SubGroups`},
			},
		},
		{
			name: "leaf without minMember",
			spec: `{"subGroups": [{"name": "a"}, {"name": "b", "minMember": 0}, {"name": "c", "minMember": -2}]}`,
			want: []fe{
				{"spec.subGroups[0].minMember", `leaf SubGroup "a" needs minMember of at least 1`},
				{"spec.subGroups[1].minMember", `leaf SubGroup "b" needs minMember of at least 1, got 0`},
				{"spec.subGroups[2].minMember", `leaf SubGroup "c" needs minMember of at least 1, got -2`},
			},
		},
		{
			name: "minMember on a mid-level SubGroup",
			spec: `{"subGroups": [{"name": "decode", "minMember": 2},
			  {"name": "w", "parent": "decode", "minMember": 4}, {"name": "l", "parent": "decode", "minMember": 1}]}`,
			want: []fe{{"spec.subGroups[0].minMember", `minMember (2) is not allowed on mid-level SubGroup "decode" (2 child SubGroups); use minSubGroup to count child SubGroups`}},
		},
		{
			name: "minSubGroup 0",
			spec: `{"minSubGroup": 0, "subGroups": [{"name": "decode", "minSubGroup": 0},
			  {"name": "w", "parent": "decode", "minMember": 4}, {"name": "l", "parent": "decode", "minMember": 1}]}`,
			want: []fe{
				{"spec.minSubGroup", "minSubGroup (0) must be at least 1"},
				{"spec.subGroups[0].minSubGroup", `minSubGroup (0) of SubGroup "decode" must be at least 1`},
			},
		},
		{
			name: "minSubGroup above the child count",
			spec: `{"minSubGroup": 2, "subGroups": [{"name": "decode", "minSubGroup": 3},
			  {"name": "w", "parent": "decode", "minMember": 4}, {"name": "l", "parent": "decode", "minMember": 1}]}`,
			want: []fe{
				{"spec.minSubGroup", "minSubGroup (2) exceeds the number of direct child SubGroups (1)"},
				{"spec.subGroups[0].minSubGroup", `minSubGroup (3) of SubGroup "decode" exceeds the number of direct child SubGroups (2)`},
			},
		},
		{
			name: "PodGroup without SubGroups",
			spec: `{"minSubGroup": 1}`,
			want: []fe{{"spec.minSubGroup", "minSubGroup (1) is not allowed on a PodGroup without SubGroups"}},
		},
		{
			name: "PodGroup without SubGroups and an explicit minMember 0",
			spec: `{"minMember": 0}`,
			want: []fe{{"spec.minMember", "PodGroup without SubGroups needs minMember of at least 1, got 0"}},
		},
		{
			name: "PodGroup without SubGroups and a negative minMember and a minSubGroup",
			spec: `{"minMember": -1, "minSubGroup": 0}`,
			want: []fe{
				{"spec.minSubGroup", "PodGroup sets both minMember (-1) and minSubGroup (0); they are mutually exclusive"},
				{"spec.minMember", "PodGroup without SubGroups needs minMember of at least 1, got -1"},
				{"spec.minSubGroup", "minSubGroup (0) is not allowed on a PodGroup without SubGroups"},
			},
		},
		{
			name: "negative PodGroup floor",
			spec: `{"minMember": -1, "subGroups": [{"name": "a", "minMember": 1}]}`,
			want: []fe{{"spec.minMember", "minMember (-1) must not be negative"}},
		},
		{
			name: "a SubGroup in two SubGroupSets",
			spec: `{"subGroups": [{"name": "a", "minMember": 1}, {"name": "b", "minMember": 1}, {"name": "c", "minMember": 1}],
			  "topologyConstraints": {"subGroupSets": [
			    {"subGroups": ["a", "b"], "constraint": {"requiredTopologyLevel": "block"}},
			    {"subGroups": ["c", "b", "c"], "constraint": {"requiredTopologyLevel": "block"}}]}}`,
			want: []fe{
				{"spec.topologyConstraints.subGroupSets[1].subGroups[1]", `SubGroup "b" is already in spec.topologyConstraints.subGroupSets[0]; a SubGroup belongs to at most one SubGroupSet`},
				{"spec.topologyConstraints.subGroupSets[1].subGroups[2]", `SubGroup "c" is listed twice in this SubGroupSet`},
			},
		},
		{
			name: "a constraint naming an unknown SubGroup",
			spec: `{"subGroups": [{"name": "a", "minMember": 1}],
			  "topologyConstraints": {
			    "subGroups": {"zz": {"requiredTopologyLevel": "rack"}, "a": {"requiredTopologyLevel": "rack"}},
			    "subGroupSets": [{"subGroups": ["a", "y"], "constraint": {"requiredTopologyLevel": "block"}},
			                     {"subGroups": [], "constraint": {"requiredTopologyLevel": "block"}}]}}`,
			want: []fe{
				{"spec.topologyConstraints.subGroups[zz]", `topology constraint names unknown SubGroup "zz"`},
				{"spec.topologyConstraints.subGroupSets[0].subGroups[1]", `SubGroupSet names unknown SubGroup "y"`},
				{"spec.topologyConstraints.subGroupSets[1].subGroups", "SubGroupSet lists no SubGroups"},
			},
		},
		{
			name: "one scope given two different constraints",
			spec: `{"topologyConstraint": {"requiredTopologyLevel": "zone"},
			  "subGroups": [{"name": "a", "minMember": 1, "topologyConstraint": {"requiredTopologyLevel": "rack"}}],
			  "topologyConstraints": {"global": {"requiredTopologyLevel": "block"},
			    "subGroups": {"a": {"requiredTopologyLevel": "hostname"}}}}`,
			want: []fe{
				{"spec.topologyConstraints.global", "conflicts with spec.topologyConstraint; give the PodGroup's constraint once"},
				{"spec.topologyConstraints.subGroups[a]", `conflicts with spec.subGroups[0].topologyConstraint; give the constraint of SubGroup "a" once`},
			},
		},
		{
			name: "a non-laminar constraint set",
			// p = {a, a2}, q = {b}; the set {a, b} cuts p.
			spec: `{"subGroups": [{"name": "p"}, {"name": "a", "parent": "p", "minMember": 1}, {"name": "a2", "parent": "p", "minMember": 1},
			    {"name": "q"}, {"name": "b", "parent": "q", "minMember": 1}],
			  "topologyConstraints": {
			    "subGroups": {"p": {"requiredTopologyLevel": "block"}},
			    "subGroupSets": [{"subGroups": ["a", "b"], "constraint": {"requiredTopologyLevel": "zone"}}]}}`,
			want: []fe{{"spec.topologyConstraints.subGroupSets[0]",
				`overlaps the topology constraint of SubGroup "p" without nesting: both cover SubGroup "a", only this one covers "b", only that one covers "a2"`}},
		},
		{
			name: "a non-laminar set whose first leaf no other constraint covers",
			spec: `{"subGroups": [{"name": "b", "minMember": 1}, {"name": "p"}, {"name": "a", "parent": "p", "minMember": 1}, {"name": "a2", "parent": "p", "minMember": 1}],
			  "topologyConstraints": {
			    "subGroups": {"p": {"requiredTopologyLevel": "block"}},
			    "subGroupSets": [{"subGroups": ["b", "a"], "constraint": {"requiredTopologyLevel": "zone"}}]}}`,
			want: []fe{{"spec.topologyConstraints.subGroupSets[0]",
				`overlaps the topology constraint of SubGroup "p" without nesting: both cover SubGroup "a", only this one covers "b", only that one covers "a2"`}},
		},
		{
			name: "non-laminar sets",
			spec: `{"subGroups": [{"name": "p", "minSubGroup": 1}, {"name": "a", "parent": "p", "minMember": 1}, {"name": "b", "minMember": 1}, {"name": "c", "minMember": 1}],
			  "topologyConstraints": {"subGroupSets": [
			    {"subGroups": ["p", "b"], "constraint": {"requiredTopologyLevel": "zone"}},
			    {"subGroups": ["a", "c"], "constraint": {"preferredTopologyLevel": "rack"}}]}}`,
			want: []fe{{"spec.topologyConstraints.subGroupSets[1]",
				`overlaps the topology constraint of spec.topologyConstraints.subGroupSets[0] without nesting: both cover SubGroup "a", only this one covers "c", only that one covers "b"`}},
		},
		{
			name: "every group in order",
			spec: `{"minMember": 3, "minSubGroup": 1, "subGroups": [
			    {"name": "x", "minSubGroup": 1},
			    {"name": "x", "parent": "nope", "minMember": 1},
			    {"name": "m", "minMember": 2},
			    {"name": "k", "parent": "m", "minMember": 1},
			    {"name": "s", "parent": "s"}],
			  "topologyConstraints": {"subGroupSets": [{"subGroups": ["k"]}, {"subGroups": ["k", "ghost"]}]}}`,
			want: []fe{
				{"spec.subGroups[1].name", `duplicate SubGroup name "x": already used by spec.subGroups[0]`},
				{"spec.subGroups[1].parent", `parent "nope" of SubGroup "x" does not exist`},
				{"spec.subGroups[4].parent", `SubGroup "s" is its own parent`},
				{"spec.minSubGroup", "PodGroup sets both minMember (3) and minSubGroup (1); they are mutually exclusive"},
				{"spec.subGroups[0].minMember", `leaf SubGroup "x" needs minMember of at least 1`},
				{"spec.subGroups[0].minSubGroup", `minSubGroup is not allowed on leaf SubGroup "x": it has no child SubGroups`},
				{"spec.subGroups[2].minMember", `minMember (2) is not allowed on mid-level SubGroup "m" (1 child SubGroups); use minSubGroup to count child SubGroups`},
				{"spec.topologyConstraints.subGroupSets[1].subGroups[0]", `SubGroup "k" is already in spec.topologyConstraints.subGroupSets[0]; a SubGroup belongs to at most one SubGroupSet`},
				{"spec.topologyConstraints.subGroupSets[1].subGroups[1]", `SubGroupSet names unknown SubGroup "ghost"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := mustParse(t, tt.spec)
			r := gang.Validate(spec)
			assert.Equal(t, tt.want, fieldErrors(r.Errors))
			tree, err := gang.Compile(spec)
			if len(tt.want) == 0 {
				assert.NoError(t, err)
				assert.NotNil(t, tree)
				return
			}
			assert.Nil(t, tree)
			var verr *gang.ValidationError
			require.True(t, errors.As(err, &verr))
			assert.Equal(t, tt.want, fieldErrors(verr.Errors))
			var first *gang.FieldError
			require.True(t, errors.As(err, &first), "errors.As reaches the field errors")
			assert.Equal(t, tt.want[0], fe{first.Path, first.Message})
		})
	}
}

func TestValidateWarnings(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []fe
	}{
		{
			name: "minMember counting SubGroups, as the hierarchical-PodGroup design wrote it",
			spec: `{"minMember": 2, "subGroups": [{"name": "decode", "minMember": 4}, {"name": "prefill", "minMember": 1}]}`,
			want: []fe{{"spec.minMember", "minMember (2) with SubGroups is a floor on descendant pods, and the SubGroups already need at least 5 pods; to count SubGroups, use minSubGroup"}},
		},
		{
			name: "a floor above the SubGroups' minimum is meant",
			spec: `{"minMember": 6, "subGroups": [{"name": "decode", "minMember": 4}, {"name": "prefill", "minMember": 1}]}`,
			want: []fe{},
		},
		{
			name: "constraints without effect and repeated ones",
			spec: `{"topologyConstraint": {"requiredTopologyLevel": "zone"},
			  "subGroups": [{"name": "a", "minMember": 1, "topologyConstraint": {"topology": "t"}}, {"name": "b", "minMember": 1, "topologyConstraint": {}}],
			  "topologyConstraints": {"global": {"requiredTopologyLevel": "zone"},
			    "subGroups": {"b": {}},
			    "subGroupSets": [{"subGroups": ["a"], "constraint": {}}]}}`,
			want: []fe{
				{"spec.subGroups[0].topologyConstraint", `names topology "t" but no topology level; it has no effect`},
				{"spec.topologyConstraints.global", "repeats spec.topologyConstraint"},
				{"spec.topologyConstraints.subGroups[b]", "sets no topology level; it has no effect"},
				{"spec.topologyConstraints.subGroupSets[0].constraint", "sets no topology level; it has no effect"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := mustParse(t, tt.spec)
			r := gang.Validate(spec)
			assert.Empty(t, r.Errors)
			assert.Equal(t, tt.want, fieldErrors(r.Warnings))
			tree, err := gang.Compile(spec)
			require.NoError(t, err)
			assert.Equal(t, tt.want, fieldErrors(tree.Warnings()))
		})
	}
}

func TestValidationErrorText(t *testing.T) {
	_, err := gang.Compile(mustParse(t, `{"subGroups": [{"name": "a"}, {"name": "a", "minMember": 1}]}`))
	assert.EqualError(t, err, "invalid PodGroup spec: 2 problems\n"+
		"\tspec.subGroups[1].name: duplicate SubGroup name \"a\": already used by spec.subGroups[0]\n"+
		"\tspec.subGroups[0].minMember: leaf SubGroup \"a\" needs minMember of at least 1")

	// The returned errors are copies: editing them changes nothing for the next caller.
	spec := mustParse(t, `{"subGroups": [{"name": "a"}]}`)
	r := gang.Validate(spec)
	var verr *gang.ValidationError
	require.True(t, errors.As(r.Err(), &verr))
	verr.Errors[0].Message = "changed"
	assert.Equal(t, `leaf SubGroup "a" needs minMember of at least 1`, r.Errors[0].Message)
	assert.NoError(t, gang.Result{}.Err())
}

// Every string a tree keeps besides names must be UTF-8: the tree's spec is kept as
// JSON, which writes each other byte as U+FFFD, so selectors "\xff" and "\xfe" would
// make equal trees and two such keys one key. Each is refused with its own path, after
// every other rule.
func TestValidateRefusesTextThatIsNotUTF8(t *testing.T) {
	level := func(s string) *gang.TopologyConstraint {
		return &gang.TopologyConstraint{RequiredTopologyLevel: s}
	}
	spec := gang.Spec{
		Queue:              "q\xff",
		PriorityClassName:  "\xc3",
		TopologyConstraint: &gang.TopologyConstraint{PreferredTopologyLevel: "\xfe", Topology: "t\xff"},
		MinSubGroup:        new(int32(0)),
		SubGroups: []gang.SubGroup{
			{Name: "a", MinMember: new(int32(1)), TopologyConstraint: level("ra\xffck"),
				NodeSelector: map[string][]string{"\xff": {"x"}, "\xfe": {"y"}, "model": {"ok", "\xed\xa0\x80"}}},
			{Name: "b", MinMember: new(int32(1))},
		},
		TopologyConstraints: &gang.TopologyConstraints{
			Global:       &gang.TopologyConstraint{PreferredTopologyLevel: "\xfe", Topology: "t\xff"}, // a repeat
			SubGroups:    map[string]gang.TopologyConstraint{"b": *level("\xff")},
			SubGroupSets: []gang.SubGroupSet{{SubGroups: []string{"a"}, Constraint: *level("\xfe")}},
		},
	}
	r := gang.Validate(spec)
	assert.Equal(t, []fe{
		{"spec.minSubGroup", "minSubGroup (0) must be at least 1"},
		{"spec.queue", `queue "q\xff" is not UTF-8 (byte 1)`},
		{"spec.priorityClassName", `priorityClassName "\xc3" is not UTF-8 (byte 0)`},
		{"spec.topologyConstraint.preferredTopologyLevel", `topology level "\xfe" is not UTF-8 (byte 0)`},
		{"spec.topologyConstraint.topology", `topology "t\xff" is not UTF-8 (byte 1)`},
		{"spec.subGroups[0].topologyConstraint.requiredTopologyLevel", `topology level "ra\xffck" is not UTF-8 (byte 2)`},
		{`spec.subGroups[0].nodeSelector["model"][1]`, `node selector of SubGroup "a" lists a value "\xed\xa0\x80" for "model" that is not UTF-8 (byte 0)`},
		{`spec.subGroups[0].nodeSelector["\xfe"]`, `node selector of SubGroup "a" has a key "\xfe" that is not UTF-8 (byte 0)`},
		{`spec.subGroups[0].nodeSelector["\xff"]`, `node selector of SubGroup "a" has a key "\xff" that is not UTF-8 (byte 0)`},
		{"spec.topologyConstraints.global.preferredTopologyLevel", `topology level "\xfe" is not UTF-8 (byte 0)`},
		{"spec.topologyConstraints.global.topology", `topology "t\xff" is not UTF-8 (byte 1)`},
		{"spec.topologyConstraints.subGroups[b].requiredTopologyLevel", `topology level "\xff" is not UTF-8 (byte 0)`},
		{"spec.topologyConstraints.subGroupSets[0].constraint.requiredTopologyLevel", `topology level "\xfe" is not UTF-8 (byte 0)`},
	}, fieldErrors(r.Errors))
	for _, e := range r.Errors[1:] {
		assert.ErrorIs(t, e, gang.ErrNotUTF8, e.Path)
	}
	_, err := gang.Compile(spec)
	assert.ErrorIs(t, err, gang.ErrNotUTF8)

	// The PodGroup without SubGroups carries a selector too; a tree is never made of
	// one that JSON would rewrite, so no two such trees can be called equal.
	for _, sel := range []map[string][]string{
		{"model": {"\xff"}}, {"model": {"\xfe"}}, {"\xff": {"a"}, "\xfe": {"b"}},
	} {
		tree, err := gang.Compile(gang.Spec{MinMember: new(int32(1)), NodeSelector: sel})
		assert.ErrorIs(t, err, gang.ErrNotUTF8, "%q", sel)
		assert.Nil(t, tree)
	}
	_, err = gang.Compile(gang.Spec{MinMember: new(int32(1)), NodeSelector: map[string][]string{"model": {"é", "\u00ff"}}, Queue: "ü"})
	assert.NoError(t, err, "UTF-8 beyond ASCII is text like any other")
}
