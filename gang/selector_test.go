package gang_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/gang"
)

func TestParseNodeSelector(t *testing.T) {
	spec := mustParse(t, `{"subGroups": [
	  {"name": "workers", "minMember": 4, "nodeSelector": {"model": ["V100M32", "V100M16", "V100M32"], "zone": []}},
	  {"name": "leader", "minMember": 1, "nodeSelector": {}},
	  {"name": "other", "minMember": 1, "nodeSelector": null},
	  {"name": "nulls", "minMember": 1, "nodeSelector": {"model": null}}
	]}`)
	// Parsing keeps what the JSON says; {} and null are "no selector", as omitempty
	// writes them back, and a key whose values are null keeps no values.
	assert.Equal(t, map[string][]string{"model": {"V100M32", "V100M16", "V100M32"}, "zone": {}}, spec.SubGroups[0].NodeSelector)
	assert.Nil(t, spec.SubGroups[1].NodeSelector)
	assert.Nil(t, spec.SubGroups[2].NodeSelector)
	assert.Equal(t, map[string][]string{"model": nil}, spec.SubGroups[3].NodeSelector)

	root := mustParse(t, `{"minMember": 2, "nodeSelector": {"model": ["A10"]}}`)
	assert.Equal(t, map[string][]string{"model": {"A10"}}, root.NodeSelector)

	for _, tt := range []struct{ in, path, msg string }{
		{`{"nodeSelector": []}`, "spec.nodeSelector", "want an object, got []"},
		{`{"nodeSelector": {"model": "A10"}}`, `spec.nodeSelector["model"]`, `want an array of strings, got "A10"`},
		{`{"subGroups": [{"name": "a", "nodeSelector": {"b": ["x"], "a": [1]}}]}`, `spec.subGroups[0].nodeSelector["a"][0]`, "want a string, got 1"},
		{`{"subGroups": [{"name": "a", "nodeSelector": {"a": ["x", null]}}]}`, `spec.subGroups[0].nodeSelector["a"][1]`, "want a string, got null"},
	} {
		_, err := gang.ParseSpec([]byte(tt.in))
		var fe *gang.FieldError
		require.ErrorAs(t, err, &fe, tt.in)
		assert.Equal(t, tt.path, fe.Path, tt.in)
		assert.Equal(t, tt.msg, fe.Message, tt.in)
		assert.ErrorIs(t, err, gang.ErrJSON)
	}
}

func TestValidateNodeSelector(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want []fe
		rule []gang.Rule
	}{{
		name: "on a mid-level SubGroup and on a PodGroup with SubGroups",
		spec: `{"nodeSelector": {"model": ["A"]}, "subGroups": [{"name": "decode", "nodeSelector": {"model": ["A"]}},
		  {"name": "w", "parent": "decode", "minMember": 2}]}`,
		want: []fe{
			{"spec.nodeSelector", "the PodGroup has child SubGroups; a node selector belongs on the leaves that hold pods"},
			{"spec.subGroups[0].nodeSelector", `SubGroup "decode" has child SubGroups; a node selector belongs on the leaves that hold pods`},
		},
		rule: []gang.Rule{gang.ErrSelectorOnInner, gang.ErrSelectorOnInner},
	}, {
		name: "empty value sets and an unnamed key",
		spec: `{"subGroups": [{"name": "w", "minMember": 2, "nodeSelector": {"zone": [], "model": null, "": ["x"]}}]}`,
		want: []fe{
			{`spec.subGroups[0].nodeSelector[""]`, `node selector of SubGroup "w" has a key without a name`},
			{`spec.subGroups[0].nodeSelector["model"]`, `node selector of SubGroup "w" lists no value for "model"; give at least one`},
			{`spec.subGroups[0].nodeSelector["zone"]`, `node selector of SubGroup "w" lists no value for "zone"; give at least one`},
		},
		rule: []gang.Rule{gang.ErrEmptySelector, gang.ErrEmptySelector, gang.ErrEmptySelector},
	}, {
		name: "after a leaf's other rules, in field order",
		spec: `{"subGroups": [{"name": "w", "minSubGroup": 1, "nodeSelector": {"model": []}}]}`,
		want: []fe{
			{"spec.subGroups[0].minMember", `leaf SubGroup "w" needs minMember of at least 1`},
			{"spec.subGroups[0].minSubGroup", `minSubGroup is not allowed on leaf SubGroup "w": it has no child SubGroups`},
			{`spec.subGroups[0].nodeSelector["model"]`, `node selector of SubGroup "w" lists no value for "model"; give at least one`},
		},
		rule: []gang.Rule{gang.ErrLeafMinMember, gang.ErrLeafMinSubGroup, gang.ErrEmptySelector},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gang.Validate(mustParse(t, tt.spec))
			assert.Equal(t, tt.want, fieldErrors(r.Errors))
			for i, e := range r.Errors {
				assert.ErrorIs(t, e, tt.rule[i], "error %d", i)
			}
		})
	}
}

func TestTreeNodeSelector(t *testing.T) {
	tree, err := gang.Compile(mustParse(t, `{"subGroups": [
	  {"name": "decode"},
	  {"name": "workers", "parent": "decode", "minMember": 4, "nodeSelector": {"model": ["V100M32", "V100M16", "V100M32"], "pool": ["a"]}},
	  {"name": "leader", "parent": "decode", "minMember": 1}]}`))
	require.NoError(t, err)
	w, _ := tree.Lookup("workers")
	l, _ := tree.Lookup("leader")
	d, _ := tree.Lookup("decode")
	sel := tree.NodeSelector(w)
	assert.Equal(t, map[string][]string{"model": {"V100M16", "V100M32"}, "pool": {"a"}}, sel, "values sorted, repeats dropped")
	sel["model"][0] = "changed"
	assert.Equal(t, []string{"V100M16", "V100M32"}, tree.NodeSelector(w)["model"], "a copy")
	assert.Nil(t, tree.NodeSelector(l))
	assert.Nil(t, tree.NodeSelector(d))
	assert.Nil(t, tree.NodeSelector(-1))
	assert.Nil(t, tree.NodeSelector(tree.Len()))

	one, err := gang.Compile(mustParse(t, `{"minMember": 3, "nodeSelector": {"model": ["A10"]}}`))
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"model": {"A10"}}, one.NodeSelector(gang.Root), "a PodGroup without SubGroups is its own leaf")
}

// FuzzNodeSelector puts arbitrary JSON where a leaf's nodeSelector goes. Parsing either
// fails with a *FieldError under that path, or yields a selector that Validate accepts
// exactly when every key is named and lists a value, that round-trips through JSON, and
// that the compiled tree keeps as sorted sets of the same values.
func FuzzNodeSelector(f *testing.F) {
	for _, seed := range []string{
		`{"model": ["V100M16", "V100M32"]}`, `{"model": ["A"], "zone": ["z1", "z1"]}`, `{}`, `null`,
		`{"model": []}`, `{"": ["x"]}`, `{"model": null}`, `{"model": "A"}`, `[]`, `{"a": [1]}`, `{"a": ["\u00e9", ""]}`, `{`,
		"{\"\xff\": [\"a\"], \"\xfe\": [\"b\"]}", "{\"model\": [\"\xff\"]}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc := `{"subGroups": [{"name": "w", "minMember": 2, "nodeSelector": ` + string(data) + `}]}`
		spec, err := gang.ParseSpec([]byte(doc))
		if err != nil {
			var fe *gang.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("parse error %T is not a *FieldError: %v", err, err)
			}
			// Broken JSON anywhere is reported at the spec; a selector of the wrong
			// type at the selector.
			if !errors.Is(err, gang.ErrJSON) || (fe.Path != "spec" && !strings.HasPrefix(fe.Path, "spec.subGroups[0].nodeSelector")) {
				t.Fatalf("parse error at %q: %v", fe.Path, err)
			}
			return
		}
		sel := spec.SubGroups[0].NodeSelector
		valid := true
		for k, vs := range sel {
			valid = valid && k != "" && len(vs) > 0
		}
		r := gang.Validate(spec)
		if valid != (len(r.Errors) == 0) {
			t.Fatalf("selector %v: errors %v", sel, r.Errors)
		}
		for _, e := range r.Errors {
			if !errors.Is(e, gang.ErrEmptySelector) {
				t.Fatalf("selector %v: unexpected error %v", sel, e)
			}
		}
		js, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := gang.ParseSpec(js)
		if err != nil || !reflect.DeepEqual(spec, again) {
			t.Fatalf("round trip: %v\n%s", err, js)
		}
		if !valid {
			return
		}
		tree, err := gang.Compile(spec)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := tree.Lookup("w")
		got := tree.NodeSelector(w)
		if len(got) != len(sel) {
			t.Fatalf("compiled %v from %v", got, sel)
		}
		for k, vs := range sel {
			for _, v := range vs {
				if !contains(got[k], v) {
					t.Fatalf("compiled %v lost %q=%q", got, k, v)
				}
			}
			for i := 1; i < len(got[k]); i++ {
				if got[k][i-1] >= got[k][i] {
					t.Fatalf("compiled values %v are not sorted sets", got[k])
				}
			}
			for _, v := range got[k] {
				if !contains(vs, v) {
					t.Fatalf("compiled %v added %q=%q", got, k, v)
				}
			}
		}
	})
}

func contains(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
