package manifests

import (
	"errors"
	"strconv"
)

// The classes of refusal, for errors.Is on a *ReadError. ReadError.Rule says the rule in
// words.
var (
	// ErrSyntax: an input is not one JSON value, its value is not a JSON object, or an
	// object repeats a key or nests too deep.
	ErrSyntax = errors.New("syntax error")
	// ErrUnknownKind: an object's apiVersion and kind are not ones the reader reads.
	ErrUnknownKind = errors.New("unknown kind")
	// ErrInvalidValue: a field's value breaks a rule of its own (a malformed quantity, a
	// negative quota, a strategy Kueue does not know, a missing name, a value of the
	// wrong JSON type).
	ErrInvalidValue = errors.New("invalid value")
	// ErrDuplicate: two objects, or two entries of one object, claim the same name.
	ErrDuplicate = errors.New("duplicate")
	// ErrUnknownReference: a field names an object that the inputs do not hold (a
	// flavor, a ClusterQueue, a parent queue).
	ErrUnknownReference = errors.New("unknown reference")
	// ErrTree: the objects were read, but the quota tree refuses them (a cycle of
	// cohorts, say); the *quota.TreeError is wrapped too.
	ErrTree = errors.New("refused by the quota tree")
)

// ReadError reports input that the readers refuse: where it is, what it holds and the
// rule it breaks. Fields that poolgate does not model are not errors: a Config lists
// them in Unmodelled.
type ReadError struct {
	// Input is the index of the argument the object came from, and Item its index in
	// that argument's List, or -1 for an argument that is one object. Both are -1 for
	// an error of ParseQuantity or of Config.NewTree.
	Input, Item int
	// Kind and Name identify the object ("ClusterQueue", "team-a"), once known. A
	// LocalQueue's Name is "namespace/name".
	Kind, Name string
	// Path is the JSON path of the field inside the object ("spec.cohortName",
	// "spec.resourceGroups[0].flavors[1].name"), or inside the argument when the
	// object is not identified yet ("items[2].kind"); "" for the input as a whole. For
	// ParseQuantity it is the resource.
	Path string
	// Value is the field's value: a string's text, a number's digits, the JSON text
	// of anything else; "" when the field is absent.
	Value string
	// Rule is the rule the value breaks.
	Rule string
	// Class is the class of the rule (ErrSyntax, ErrInvalidValue, …), which errors.Is
	// matches.
	Class error
	// Err is the refusal of another package that the rule stands on (a
	// *naming.NameError, a *quota.TreeError), so that errors.Is matches its rule too;
	// nil for none.
	Err error
}

// Error returns, for instance:
//
//	ClusterQueue "team-a": spec.queueingStrategy "Fifo": must be StrictFIFO or BestEffortFIFO
//	input 1: items[0].kind "Queue": is read by ReadKAI
func (e *ReadError) Error() string {
	s := ""
	switch {
	case e.Kind != "":
		s = e.Kind + " " + strconv.Quote(e.Name) + ": "
	case e.Input >= 0:
		s = "input " + strconv.Itoa(e.Input) + ": "
	}
	if e.Path != "" {
		s += e.Path + " " + strconv.Quote(e.Value) + ": "
	}
	return s + e.Rule
}

// Unwrap returns the error's Class and, when set, Err.
func (e *ReadError) Unwrap() []error {
	var out []error
	for _, err := range [...]error{e.Class, e.Err} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}
