package manifests

import (
	"errors"
	"maps"
	"strconv"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/quota"
)

// Config is what a reader took from a set of objects: plain data that a host may look
// at and change before it builds a tree or a gate from it.
type Config struct {
	// Tree is the quota tree the objects describe, for NewTree or Build.
	Tree quota.TreeSpec
	// Queues maps the name a workload gives for its queue to the tree's queue it is
	// charged to: for Kueue, a LocalQueue's "namespace/name" to its ClusterQueue; for
	// KAI, where work names its leaf queue itself, every leaf queue to itself.
	Queues map[string]string
	// Strategies holds the queueing strategy of every ClusterQueue, for
	// admission.Options.Strategies; nil for KAI, whose queues have none.
	Strategies map[string]admission.Strategy
	// FairSharing reports whether the objects show fair sharing at work, for
	// admission.Options.FairSharing (see ReadKueue and ReadKAI for when).
	FairSharing bool
	// Unmodelled lists, in input order, every field of the objects that poolgate does
	// not model, so that nothing the objects say is dropped unseen.
	Unmodelled []Field

	// origins maps a node of Tree to the object it came from, for the errors of
	// NewTree; nodes a host adds are named by their node name alone.
	origins map[string]origin
}

// origin is the object a tree node came from, and the path of its parent field.
type origin struct {
	kind, parentPath string
}

// Field is one field of an object that poolgate does not model.
type Field struct {
	// Kind and Name identify the object ("ClusterQueue", "team-a"); a LocalQueue's
	// Name is "namespace/name".
	Kind, Name string
	// Path is the field's JSON path inside the object ("spec.preemption"), or ""
	// for an object of a kind poolgate does not model at all.
	Path string
	// Value is the field's value: a string's or a number's text, the compact JSON of
	// anything else.
	Value string
	// Note says what the field does, and what poolgate does instead.
	Note string
}

// String returns, for instance,
//
//	ClusterQueue "team-a": spec.stopPolicy = Hold: stops admission to the queue; poolgate has no stopped queues
func (f Field) String() string {
	s := f.Kind + " " + strconv.Quote(f.Name) + ": "
	if f.Path != "" {
		s += f.Path + " = " + f.Value + ": "
	}
	return s + f.Note
}

// NewTree builds the quota tree of c: quota.NewTree(c.Tree), with a refusal returned
// as a *ReadError of class ErrTree that names the object the refused node came from
// and wraps the *quota.TreeError, so that errors.Is(err, quota.ErrCycle) holds for a
// cycle of cohorts. Use it, or Build, rather than calling quota.NewTree yourself.
func (c *Config) NewTree() (*quota.Tree, error) {
	if c == nil {
		return nil, &ReadError{Input: -1, Item: -1, Rule: "nil Config", Class: ErrTree}
	}
	t, err := quota.NewTree(c.Tree)
	if err == nil {
		return t, nil
	}
	e := &ReadError{Input: -1, Item: -1, Rule: err.Error(), Class: ErrTree, Err: err}
	var te *quota.TreeError
	if errors.As(err, &te) && te.Node != "" {
		e.Kind, e.Name = "node", te.Node
		if o, ok := c.origins[te.Node]; ok {
			e.Kind = o.kind
			if errors.Is(err, quota.ErrCycle) || errors.Is(err, quota.ErrUnknownParent) || errors.Is(err, quota.ErrParentIsQueue) {
				e.Path = o.parentPath
				e.Value = c.parentOf(te.Node)
			}
		}
	}
	return nil, e
}

// parentOf returns the parent the spec of node names.
func (c *Config) parentOf(node string) string {
	for _, ns := range c.Tree.Nodes {
		if ns.Name == node {
			return ns.Parent
		}
	}
	return ""
}

// Build returns an admission gate on the tree of c: NewTree, then admission.New with o,
// where o's strategies are the Config's with o.Strategies set over them (a host's own
// choice wins), and fair sharing is on when c.FairSharing or o.FairSharing is. To turn
// off what the objects turned on, change c first. The gate's errors are
// admission's own.
func (c *Config) Build(o admission.Options) (*admission.Gate, error) {
	t, err := c.NewTree()
	if err != nil {
		return nil, err
	}
	strategies := maps.Clone(c.Strategies)
	if len(o.Strategies) > 0 {
		if strategies == nil {
			strategies = make(map[string]admission.Strategy, len(o.Strategies))
		}
		maps.Copy(strategies, o.Strategies)
	}
	o.Strategies = strategies
	o.FairSharing = o.FairSharing || c.FairSharing
	return admission.New(t, o)
}
