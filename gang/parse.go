package gang

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

// ParseSpec decodes a PodGroup spec from JSON (the value of a PodGroup's "spec").
//
// Decoding follows the Kubernetes API server rather than encoding/json's defaults:
// field names match exactly (case-sensitively), unknown fields are ignored, and null
// means absent. A value of the wrong type is an error that names the field path, e.g.
// spec.subGroups[2].minMember: want an integer in the int32 range, got "8". Input that
// is not UTF-8 is refused (ErrJSON), never read as other text. ParseSpec only decodes;
// Validate and Compile check the meaning.
func ParseSpec(data []byte) (Spec, error) {
	var s Spec
	err := decodeTop(data, &s)
	return s, err
}

// UnmarshalJSON decodes s with the rules of ParseSpec, so a Spec embedded in a host's
// own types decodes the same way. A nil s is refused (ErrNilBuffer): there is nowhere
// to decode to.
func (s *Spec) UnmarshalJSON(data []byte) error {
	if s == nil {
		return &FieldError{Path: "spec", Message: "cannot decode into a nil *Spec", Rule: ErrNilBuffer}
	}
	var d Spec
	if err := decodeTop(data, &d); err != nil {
		return err
	}
	*s = d
	return nil
}

// decodeTop decodes a whole spec. JSON is UTF-8; encoding/json would read every byte
// that is not as U+FFFD, so a queue, selector or level read so would not be the one
// written, and two selector keys could become one.
func decodeTop(data []byte, s *Spec) error {
	if !utf8.Valid(data) {
		at := notUTF8(string(data))
		return &FieldError{Path: "spec", Message: "is not UTF-8 (byte " + strconv.Itoa(at) + ")", Rule: ErrJSON}
	}
	return decodeSpec(data, "spec", s)
}

func decodeSpec(raw json.RawMessage, path string, s *Spec) error {
	fields, err := decodeObject(raw, path)
	if err != nil || fields == nil {
		return err
	}
	if s.MinMember, err = decodeInt32(fields, path, "minMember"); err != nil {
		return err
	}
	if s.MinSubGroup, err = decodeInt32(fields, path, "minSubGroup"); err != nil {
		return err
	}
	if s.Queue, err = decodeString(fields, path, "queue"); err != nil {
		return err
	}
	if s.PriorityClassName, err = decodeString(fields, path, "priorityClassName"); err != nil {
		return err
	}
	if s.TopologyConstraint, err = decodeConstraintField(fields, path, "topologyConstraint"); err != nil {
		return err
	}
	if raw, ok := fields["topologyConstraints"]; ok && !isNull(raw) {
		var tc TopologyConstraints
		if err := decodeConstraints(raw, path+".topologyConstraints", &tc); err != nil {
			return err
		}
		s.TopologyConstraints = &tc
	}
	if s.NodeSelector, err = decodeSelector(fields, path); err != nil {
		return err
	}
	items, err := decodeArray(fields, path, "subGroups")
	if err != nil {
		return err
	}
	for i, item := range items {
		var sg SubGroup
		if err := decodeSubGroup(item, fmt.Sprintf("%s.subGroups[%d]", path, i), &sg); err != nil {
			return err
		}
		s.SubGroups = append(s.SubGroups, sg)
	}
	return nil
}

func decodeSubGroup(raw json.RawMessage, path string, sg *SubGroup) error {
	fields, err := decodeObject(raw, path)
	if err != nil || fields == nil {
		return err
	}
	if sg.Name, err = decodeString(fields, path, "name"); err != nil {
		return err
	}
	if raw, ok := fields["parent"]; ok && !isNull(raw) {
		p, err := decodeString(fields, path, "parent")
		if err != nil {
			return err
		}
		sg.Parent = &p
	}
	if sg.MinMember, err = decodeInt32(fields, path, "minMember"); err != nil {
		return err
	}
	if sg.MinSubGroup, err = decodeInt32(fields, path, "minSubGroup"); err != nil {
		return err
	}
	if sg.TopologyConstraint, err = decodeConstraintField(fields, path, "topologyConstraint"); err != nil {
		return err
	}
	sg.NodeSelector, err = decodeSelector(fields, path)
	return err
}

// decodeSelector decodes a nodeSelector: an object of label keys, each with an array of
// strings. Absent, null and {} are all "no selector" (nil), as omitempty writes it back;
// a key whose value is null keeps a nil value set, which Validate rejects as empty.
func decodeSelector(fields map[string]json.RawMessage, path string) (map[string][]string, error) {
	raw, ok := fields["nodeSelector"]
	if !ok || isNull(raw) {
		return nil, nil
	}
	path += ".nodeSelector"
	m, err := decodeObject(raw, path)
	if err != nil || len(m) == 0 {
		return nil, err
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // decode errors must not depend on map order
	out := make(map[string][]string, len(m))
	for _, k := range keys {
		field := fmt.Sprintf("%s[%q]", path, k)
		var vals []json.RawMessage
		if err := json.Unmarshal(m[k], &vals); err != nil {
			return nil, typeError(field, "an array of strings", m[k])
		}
		var set []string
		if !isNull(m[k]) {
			set = make([]string, 0, len(vals))
		}
		for j, v := range vals {
			var s string
			if err := json.Unmarshal(v, &s); err != nil || isNull(v) {
				return nil, typeError(fmt.Sprintf("%s[%d]", field, j), "a string", v)
			}
			set = append(set, s)
		}
		out[k] = set
	}
	return out, nil
}

func decodeConstraints(raw json.RawMessage, path string, tc *TopologyConstraints) error {
	fields, err := decodeObject(raw, path)
	if err != nil || fields == nil {
		return err
	}
	if tc.Global, err = decodeConstraintField(fields, path, "global"); err != nil {
		return err
	}
	if raw, ok := fields["subGroups"]; ok && !isNull(raw) {
		m, err := decodeObject(raw, path+".subGroups")
		if err != nil {
			return err
		}
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names) // decode errors must not depend on map order
		// {} is absent, as omitempty writes it.
		if len(m) > 0 {
			tc.SubGroups = make(map[string]TopologyConstraint, len(m))
		}
		for _, name := range names {
			var c TopologyConstraint
			if err := decodeConstraint(m[name], path+".subGroups["+name+"]", &c); err != nil {
				return err
			}
			tc.SubGroups[name] = c
		}
	}
	items, err := decodeArray(fields, path, "subGroupSets")
	if err != nil {
		return err
	}
	for i, item := range items {
		setPath := fmt.Sprintf("%s.subGroupSets[%d]", path, i)
		sf, err := decodeObject(item, setPath)
		if err != nil {
			return err
		}
		var set SubGroupSet
		members, err := decodeArray(sf, setPath, "subGroups")
		if err != nil {
			return err
		}
		for j, m := range members {
			var name string
			if err := json.Unmarshal(m, &name); err != nil || isNull(m) {
				return typeError(fmt.Sprintf("%s.subGroups[%d]", setPath, j), "a string", m)
			}
			set.SubGroups = append(set.SubGroups, name)
		}
		if raw, ok := sf["constraint"]; ok {
			if err := decodeConstraint(raw, setPath+".constraint", &set.Constraint); err != nil {
				return err
			}
		}
		tc.SubGroupSets = append(tc.SubGroupSets, set)
	}
	return nil
}

func decodeConstraintField(fields map[string]json.RawMessage, path, name string) (*TopologyConstraint, error) {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var c TopologyConstraint
	if err := decodeConstraint(raw, path+"."+name, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func decodeConstraint(raw json.RawMessage, path string, c *TopologyConstraint) error {
	fields, err := decodeObject(raw, path)
	if err != nil || fields == nil {
		return err
	}
	if c.PreferredTopologyLevel, err = decodeString(fields, path, "preferredTopologyLevel"); err != nil {
		return err
	}
	if c.RequiredTopologyLevel, err = decodeString(fields, path, "requiredTopologyLevel"); err != nil {
		return err
	}
	c.Topology, err = decodeString(fields, path, "topology")
	return err
}

// decodeObject returns the members of a JSON object, or nil for null.
func decodeObject(raw json.RawMessage, path string) (map[string]json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return nil, typeError(path, "an object", raw)
		}
		return nil, &FieldError{Path: path, Message: "invalid JSON: " + err.Error(), Rule: ErrJSON}
	}
	return fields, nil
}

// decodeArray returns the elements of fields[name], or nil when absent or null.
func decodeArray(fields map[string]json.RawMessage, path, name string) ([]json.RawMessage, error) {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, typeError(path+"."+name, "an array", raw)
	}
	return items, nil
}

func decodeString(fields map[string]json.RawMessage, path, name string) (string, error) {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", typeError(path+"."+name, "a string", raw)
	}
	return s, nil
}

func decodeInt32(fields map[string]json.RawMessage, path, name string) (*int32, error) {
	raw, ok := fields[name]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var v int32
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, typeError(path+"."+name, "an integer in the int32 range", raw)
	}
	return &v, nil
}

func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// typeError shows at most 40 bytes of the offending value so that a huge document
// does not end up in an error message.
func typeError(path, want string, raw json.RawMessage) *FieldError {
	got := bytes.TrimSpace(raw)
	if len(got) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(got[cut]) {
			cut--
		}
		got = append(got[:cut:cut], "…"...)
	}
	return &FieldError{Path: path, Message: "want " + want + ", got " + string(got), Rule: ErrJSON}
}
