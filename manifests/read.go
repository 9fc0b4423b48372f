package manifests

import (
	"errors"
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// What both readers share: splitting the inputs into objects, naming them, typed access
// to their fields with errors that say where, and the report of what no reader took.

// object is one Kubernetes object of the inputs.
type object struct {
	// input and item locate it: the argument, and the index in its List or -1.
	input, item int
	apiVersion  string
	kind        string
	// name is metadata.name; for a namespaced object, "namespace/name", whose parts
	// are short and namespace.
	name             string
	short, namespace string
	root             *value
}

// group returns the API group of the object's apiVersion and its version.
func (o *object) group() (group, version string) {
	g, v, found := strings.Cut(o.apiVersion, "/")
	if !found {
		return "", g
	}
	return g, v
}

// fail returns a *ReadError about the field at path of o, whose value is v.
func (o *object) fail(class error, path string, v *value, rule string) *ReadError {
	return o.failText(class, path, valueText(v), rule)
}

// failText is fail for a value given as text.
func (o *object) failText(class error, path, text, rule string) *ReadError {
	e := &ReadError{Input: o.input, Item: o.item, Kind: o.kind, Name: o.name, Path: path, Value: text, Rule: rule, Class: class}
	if o.name == "" {
		// Not identified yet: the path is the argument's.
		e.Kind, e.Path = "", o.locate(path)
	}
	return e
}

// locate returns the path of the object's field path inside its argument.
func (o *object) locate(path string) string {
	if o.item < 0 {
		return path
	}
	p := index("items", o.item)
	if path != "" {
		p += "." + path
	}
	return p
}

// splitInputs parses every argument and returns its objects: the argument itself, or
// the items of a List (kind List, or a kind ending in List with items, as an API
// server lists one kind).
func splitInputs(inputs [][]byte) ([]*object, error) {
	var out []*object
	for i, data := range inputs {
		root, why := parseJSON(data)
		if why != "" {
			return nil, &ReadError{Input: i, Item: -1, Rule: why, Class: ErrSyntax}
		}
		top := &object{input: i, item: -1, root: root}
		if root.kind != jsonObject {
			return nil, &ReadError{Input: i, Item: -1, Rule: "is " + jsonKindNames[root.kind] + ", not a Kubernetes object", Class: ErrSyntax}
		}
		if err := top.identify("", ""); err != nil {
			return nil, err
		}
		items := root.peek("items")
		if top.kind != "List" && (!strings.HasSuffix(top.kind, "List") || items == nil) {
			out = append(out, top)
			continue
		}
		listed, err := top.expand()
		if err != nil {
			return nil, err
		}
		out = append(out, listed...)
	}
	return out, nil
}

// identify reads the object's apiVersion and kind, which default to apiVersion and
// kind when absent (the items of a typed list).
func (o *object) identify(apiVersion, kind string) error {
	for _, f := range [...]struct {
		key string
		out *string
		def string
	}{{"apiVersion", &o.apiVersion, apiVersion}, {"kind", &o.kind, kind}} {
		v := o.root.member(f.key)
		switch {
		case v == nil && f.def != "":
			*f.out = f.def
		case v == nil || v.kind != jsonString || v.text == "":
			return &ReadError{Input: o.input, Item: o.item, Path: o.locate(f.key), Value: valueText(v),
				Rule: "must name the object's " + f.key, Class: ErrUnknownKind}
		default:
			*f.out = v.text
		}
	}
	return nil
}

// expand returns the items of List o.
func (o *object) expand() ([]*object, error) {
	for i, k := range o.root.keys {
		switch k {
		case "apiVersion", "kind", "metadata", "items":
		default:
			return nil, o.fail(ErrInvalidValue, k, o.root.vals[i], "is no field of a List, which holds apiVersion, kind, metadata and items")
		}
	}
	items := o.root.member("items")
	if items == nil || items.kind != jsonArray {
		return nil, o.fail(ErrInvalidValue, "items", items, "must be the array of the List's objects")
	}
	// A typed list (ClusterQueueList) may leave out its items' apiVersion and kind.
	apiVersion, kind := "", ""
	if o.kind != "List" {
		apiVersion, kind = o.apiVersion, strings.TrimSuffix(o.kind, "List")
	}
	out := make([]*object, 0, len(items.vals))
	for j, v := range items.vals {
		item := &object{input: o.input, item: j, root: v}
		if v.kind != jsonObject {
			return nil, &ReadError{Input: o.input, Item: j, Path: index("items", j), Value: valueText(v),
				Rule: "is " + jsonKindNames[v.kind] + ", not a Kubernetes object", Class: ErrSyntax}
		}
		if err := item.identify(apiVersion, kind); err != nil {
			return nil, err
		}
		if item.kind == "List" || (strings.HasSuffix(item.kind, "List") && v.peek("items") != nil) {
			return nil, item.failText(ErrUnknownKind, "kind", item.kind, "is a List inside a List")
		}
		out = append(out, item)
	}
	return out, nil
}

// readName reads metadata.name and, when namespaced, metadata.namespace, which must then
// be set. The rest of metadata (labels, annotations, uid, managedFields, …) is the
// object's bookkeeping, not configuration: it is taken unread.
func (o *object) readName(namespaced bool) error {
	meta := o.root.member("metadata")
	if meta != nil && meta.kind != jsonObject {
		return o.fail(ErrInvalidValue, "metadata", meta, "must be an object")
	}
	name := meta.member("name")
	if name == nil || name.kind != jsonString || name.text == "" {
		return o.fail(ErrInvalidValue, "metadata.name", name, "must name the "+o.kind)
	}
	ns := meta.member("namespace")
	switch {
	case ns != nil && ns.kind != jsonString:
		return o.fail(ErrInvalidValue, "metadata.namespace", ns, "must be a string")
	case !namespaced:
		o.name, o.short = name.text, name.text
	case ns == nil || ns.text == "":
		return o.fail(ErrInvalidValue, "metadata.namespace", ns,
			"must be set: a "+o.kind+" is namespaced, and kubectl prints its namespace")
	default:
		o.name, o.short, o.namespace = ns.text+"/"+name.text, name.text, ns.text
	}
	meta.whole = true
	return nil
}

// checkObjectName refuses a name that no API server takes: metadata.name not a
// Kubernetes object name (a DNS-1123 subdomain), metadata.namespace not a DNS-1123
// label. The tree names cohorts and queues by these names, so a name that is none
// would reach it as read, or collide with another ("ns/x" + "y" and "ns" + "x/y").
func (o *object) checkObjectName() error {
	if err := naming.ValidateObjectName(o.short); err != nil {
		e := o.failText(ErrInvalidValue, "metadata.name", o.short, nameRule(err))
		e.Err = err
		return e
	}
	if o.namespace == "" {
		return nil
	}
	if err := naming.ValidateObjectName(o.namespace); err != nil || len(o.namespace) > maxNamespaceLen || strings.Contains(o.namespace, ".") {
		e := o.failText(ErrInvalidValue, "metadata.namespace", o.namespace, "must be a DNS-1123 label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit")
		e.Err = err
		return e
	}
	return nil
}

// maxNamespaceLen is the longest namespace name, a DNS-1123 label.
const maxNamespaceLen = 63

// spec returns the object's spec, which may be absent (nil).
func (o *object) spec() (*value, error) {
	return o.objectAt(o.root, "", "spec")
}

// objectAt returns member key of parent (at path) when it is an object, nil when
// absent.
func (o *object) objectAt(parent *value, path, key string) (*value, error) {
	v := parent.member(key)
	if v != nil && v.kind != jsonObject {
		return nil, o.fail(ErrInvalidValue, join(path, key), v, "must be an object")
	}
	return v, nil
}

// arrayAt returns member key of parent when it is an array, nil when absent.
func (o *object) arrayAt(parent *value, path, key string) (*value, error) {
	v := parent.member(key)
	if v != nil && v.kind != jsonArray {
		return nil, o.fail(ErrInvalidValue, join(path, key), v, "must be an array")
	}
	return v, nil
}

// stringAt returns member key of parent when it is a string, and whether it is set.
func (o *object) stringAt(parent *value, path, key string) (string, bool, error) {
	v := parent.member(key)
	switch {
	case v == nil:
		return "", false, nil
	case v.kind != jsonString:
		return "", false, o.fail(ErrInvalidValue, join(path, key), v, "must be a string")
	}
	return v.text, true, nil
}

// quantityAt returns the quantity member key of parent as an amount of resource, and
// whether it is set; a Kubernetes quantity is a string or a number, and a quota or a
// limit is never negative.
func (o *object) quantityAt(parent *value, path, key, resource string) (quota.Quantity, bool, error) {
	v := parent.member(key)
	if v == nil {
		return 0, false, nil
	}
	p := join(path, key)
	if v.kind != jsonString && v.kind != jsonNumber {
		return 0, false, o.fail(ErrInvalidValue, p, v, "must be a Kubernetes quantity, a string or a number")
	}
	q, err := ParseQuantity(resource, v.text)
	if err != nil {
		return 0, false, o.failText(ErrInvalidValue, p, v.text, err.(*ReadError).Rule+" of "+resource)
	}
	if q < 0 {
		return 0, false, o.failText(ErrInvalidValue, p, v.text, "must not be negative")
	}
	return q, true, nil
}

// weightAt returns the fair-sharing weight member key of parent, a non-negative
// Kubernetes quantity held in thousandths, and whether it is set.
func (o *object) weightAt(parent *value, path, key string) (quota.Weight, bool, error) {
	v := parent.member(key)
	if v == nil {
		return quota.Weight{}, false, nil
	}
	p := join(path, key)
	if v.kind != jsonString && v.kind != jsonNumber {
		return quota.Weight{}, false, o.fail(ErrInvalidValue, p, v, "must be a Kubernetes quantity, a string or a number")
	}
	m, why := parseScaled(v.text, 3, "thousandths, in which poolgate holds weights")
	if why == "" && m < 0 {
		why = "must not be negative"
	}
	if why != "" {
		return quota.Weight{}, false, o.failText(ErrInvalidValue, p, v.text, why)
	}
	w, err := quota.WeightOfThousandths(m)
	if err != nil {
		return quota.Weight{}, false, o.failText(ErrInvalidValue, p, v.text, err.Error())
	}
	return w, true, nil
}

// report appends to c a Field for every field of o that no reader took, with the note
// that note gives for its path.
func (o *object) report(c *Config, note func(path string) string) {
	untaken(o.root, "", func(path string, v *value) {
		c.Unmodelled = append(c.Unmodelled, Field{Kind: o.kind, Name: o.name, Path: path, Value: valueText(v), Note: note(path)})
	})
}

// reportObject appends to c one Field for all of o, a kind that poolgate does not
// model.
func (o *object) reportObject(c *Config, note string) {
	c.Unmodelled = append(c.Unmodelled, Field{Kind: o.kind, Name: o.name, Note: note})
}

// nameRule returns what a naming error says of its input, without the input, which
// the *ReadError quotes already: "must start with a letter".
func nameRule(err error) string {
	var ne *naming.NameError
	if !errors.As(err, &ne) {
		return err.Error()
	}
	s := ne.Rule.Error()
	if ne.Detail != "" {
		s += " (" + ne.Detail + ")"
	}
	return s
}

// quote is strconv.Quote, short for the rules' texts.
func quote(s string) string { return strconv.Quote(s) }
