package gang_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

func TestParseSpecKAIFields(t *testing.T) {
	spec := mustParse(t, `{
	  "minMember": 0, "minSubGroup": 1, "queue": "osmo-pool-ns-team", "priorityClassName": "normal",
	  "markUnschedulable": true, "schedulingBackoff": 1, "futureField": {"x": [1, 2]},
	  "topologyConstraint": {"preferredTopologyLevel": "rack", "requiredTopologyLevel": "zone", "topology": "default"},
	  "subGroups": [
	    {"name": "a", "minMember": 2, "topologyConstraint": {"requiredTopologyLevel": "rack"}, "unknown": 1},
	    {"name": "b", "parent": null, "minMember": 1, "minSubGroup": null}
	  ]
	}`)
	assert.Equal(t, gang.Spec{
		MinMember:         new(int32(0)),
		MinSubGroup:       new(int32(1)),
		Queue:             "osmo-pool-ns-team",
		PriorityClassName: "normal",
		TopologyConstraint: &gang.TopologyConstraint{
			PreferredTopologyLevel: "rack", RequiredTopologyLevel: "zone", Topology: "default",
		},
		SubGroups: []gang.SubGroup{
			{Name: "a", MinMember: new(int32(2)), TopologyConstraint: &gang.TopologyConstraint{RequiredTopologyLevel: "rack"}},
			{Name: "b", MinMember: new(int32(1))},
		},
	}, spec)
}

func TestParseSpecTopologyConstraintsForm(t *testing.T) {
	spec := mustParse(t, hierarchicalEx2)
	tc := spec.TopologyConstraints
	require.NotNil(t, tc)
	assert.Nil(t, tc.Global)
	assert.Equal(t, gang.TopologyConstraint{RequiredTopologyLevel: "rack"}, tc.SubGroups["decode-leaders"])
	assert.Equal(t, []gang.SubGroupSet{
		{SubGroups: []string{"decode-workers", "decode-leaders"}, Constraint: gang.TopologyConstraint{RequiredTopologyLevel: "block"}},
		{SubGroups: []string{"prefill-workers", "prefill-leaders"}, Constraint: gang.TopologyConstraint{RequiredTopologyLevel: "block"}},
	}, tc.SubGroupSets)
	assert.Equal(t, "decode", *spec.SubGroups[1].Parent)
}

// Field names match exactly, as the Kubernetes API server does; encoding/json alone
// would accept "MinMember" for "minMember".
func TestParseSpecCaseSensitive(t *testing.T) {
	spec := mustParse(t, `{"MinMember": 3, "subgroups": [{"name": "a"}]}`)
	assert.Nil(t, spec.MinMember)
	assert.Nil(t, spec.SubGroups)
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`{"minMember": "8"}`, `spec.minMember: want an integer in the int32 range, got "8"`},
		{`{"minMember": 2.5}`, `spec.minMember: want an integer in the int32 range, got 2.5`},
		{`{"minMember": 3000000000}`, `spec.minMember: want an integer in the int32 range, got 3000000000`},
		{`{"queue": 7}`, `spec.queue: want a string, got 7`},
		{`{"subGroups": {"name": "a"}}`, `spec.subGroups: want an array, got {"name": "a"}`},
		{`{"subGroups": [{"name": "a"}, 3]}`, `spec.subGroups[1]: want an object, got 3`},
		{`{"subGroups": [{"name": "a", "parent": 1}]}`, `spec.subGroups[0].parent: want a string, got 1`},
		{`{"subGroups": [{"name": "a", "minSubGroup": true}]}`, `spec.subGroups[0].minSubGroup: want an integer in the int32 range, got true`},
		{`{"subGroups": [{"name": "a", "topologyConstraint": "rack"}]}`, `spec.subGroups[0].topologyConstraint: want an object, got "rack"`},
		{`{"topologyConstraints": {"subGroups": {"a": {"requiredTopologyLevel": 1}}}}`,
			`spec.topologyConstraints.subGroups[a].requiredTopologyLevel: want a string, got 1`},
		{`{"topologyConstraints": {"subGroupSets": [{"subGroups": ["a", null]}]}}`,
			`spec.topologyConstraints.subGroupSets[0].subGroups[1]: want a string, got null`},
		{`{"topologyConstraints": {"global": []}}`, `spec.topologyConstraints.global: want an object, got []`},
		// At most 40 bytes of the value, cut at a rune boundary.
		{`{"minMember": "ééééééééééééééééééééééé"}`,
			`spec.minMember: want an integer in the int32 range, got "ééééééééééééééééééé…`},
		{`[1]`, `spec: want an object, got [1]`},
		{`{"minMember": 1`, `spec: invalid JSON: unexpected end of JSON input`},
		{``, `spec: invalid JSON: unexpected end of JSON input`},
	}
	for _, tt := range tests {
		_, err := gang.ParseSpec([]byte(tt.in))
		assert.EqualError(t, err, tt.want, "ParseSpec(%s)", tt.in)
		var fe *gang.FieldError
		assert.True(t, errors.As(err, &fe))
	}
}

// JSON is UTF-8. encoding/json reads every byte that is not as U+FFFD, so a spec
// with selector keys "\xff" and "\xfe" would come back with one key, and queues "\xff"
// and "\xfe" as the same queue: such input is refused where it is read, as a Spec
// embedded in a host's type is.
func TestParseSpecRefusesInputThatIsNotUTF8(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\"queue\": \"\xff\"}", "spec: is not UTF-8 (byte 11)"},
		{"{\"nodeSelector\": {\"\xff\": [\"a\"], \"\xfe\": [\"b\"]}}", "spec: is not UTF-8 (byte 19)"},
		{"{\"nodeSelector\": {\"model\": [\"A\xed\xa0\x80\"]}}", "spec: is not UTF-8 (byte 30)"},
		{"{\"subGroups\": [{\"name\": \"a\", \"minMember\": 1, \"topologyConstraint\": {\"requiredTopologyLevel\": \"r\xc3\"}}]}",
			"spec: is not UTF-8 (byte 95)"},
	} {
		_, err := gang.ParseSpec([]byte(tt.in))
		assert.EqualError(t, err, tt.want, "%q", tt.in)
		assert.ErrorIs(t, err, gang.ErrJSON)

		var obj struct {
			Spec gang.Spec `json:"spec"`
		}
		err = json.Unmarshal([]byte(`{"spec": `+tt.in+`}`), &obj)
		assert.EqualError(t, err, tt.want, "embedded %q", tt.in)
	}
	spec, err := gang.ParseSpec([]byte(`{"queue": "é\u00e9", "nodeSelector": {"modèle": ["ü"]}}`))
	require.NoError(t, err)
	assert.Equal(t, "éé", spec.Queue)
	assert.Equal(t, map[string][]string{"modèle": {"ü"}}, spec.NodeSelector)
}

// UnmarshalJSON on a nil *Spec has nowhere to decode to: it says so with a typed
// error instead of panicking.
func TestSpecUnmarshalJSONIntoNil(t *testing.T) {
	var s *gang.Spec
	var err error
	require.NotPanics(t, func() { err = s.UnmarshalJSON([]byte(`{}`)) })
	assert.EqualError(t, err, "spec: cannot decode into a nil *Spec")
	assert.ErrorIs(t, err, gang.ErrNilBuffer)
	var fe *gang.FieldError
	assert.ErrorAs(t, err, &fe)
}

func TestParseSpecNull(t *testing.T) {
	spec, err := gang.ParseSpec([]byte(` null `))
	require.NoError(t, err)
	assert.Equal(t, gang.Spec{}, spec)
}

// A Spec embedded in a host's own type decodes with the same rules, and its JSON
// round-trips.
func TestSpecJSONRoundTrip(t *testing.T) {
	var obj struct {
		Kind string    `json:"kind"`
		Spec gang.Spec `json:"spec"`
	}
	in := `{"kind": "PodGroup", "spec": ` + hierarchicalEx2 + `}`
	require.NoError(t, json.Unmarshal([]byte(in), &obj))
	assert.Equal(t, mustParse(t, hierarchicalEx2), obj.Spec)

	out, err := json.Marshal(obj.Spec)
	require.NoError(t, err)
	again, err := gang.ParseSpec(out)
	require.NoError(t, err)
	assert.Equal(t, obj.Spec, again)

	err = json.Unmarshal([]byte(`{"spec": {"minMember": "x"}}`), &obj)
	var fe *gang.FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "spec.minMember", fe.Path)
}
