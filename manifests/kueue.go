package manifests

import (
	"strconv"
	"strings"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
	"github.com/poolgate/poolgate/quota"
)

// kueueGroup is the API group of Kueue's objects.
const kueueGroup = "kueue.x-k8s.io"

// ReadKueue reads Kueue's objects, as `kubectl get -o json` prints them, into a
// Config. Each argument is one JSON object or a List of them. It reads the
// kueue.x-k8s.io/v1beta1 and v1beta2 ResourceFlavors, Cohorts, ClusterQueues and
// LocalQueues of Kueue v0.19, in any order:
//
//   - a ResourceFlavor is a flavor of the tree, its spec.nodeLabels the flavor's
//     labels. Its name must also be a valid pool name, poolgate's rule for flavors.
//   - a Cohort is a cohort node under spec.parentName, with quota on the (resource,
//     flavor) pairs its spec.resourceGroups give and the weight of
//     spec.fairSharing.weight.
//   - a ClusterQueue is a queue node under its cohort (spec.cohort in v1beta1,
//     spec.cohortName in v1beta2), with a resource group per spec.resourceGroups
//     entry (its coveredResources and its flavors in order), nominalQuota,
//     borrowingLimit and lendingLimit per pair, its flavorFungibility (v1beta1's
//     Borrow and Preempt are MayStopSearch), its fairSharing weight, and its
//     queueingStrategy in Strategies.
//   - a LocalQueue maps "namespace/name" to its spec.clusterQueue in Queues.
//
// A cohort that a ClusterQueue or a Cohort names but no Cohort object defines is a
// cohort all the same, with no quota, as in Kueue. Cohorts and ClusterQueues share
// one name space in the tree, so a Cohort and a ClusterQueue of the same name are
// refused (ErrDuplicate); so are a flavor or a ClusterQueue that a reference names but
// the inputs lack (ErrUnknownReference). Kueue's webhook rules are applied here too,
// so that the error names the field: limits only with a parent, a ClusterQueue's
// lendingLimit at most its nominalQuota, each flavor listing the covered resources in
// order, a resource and a flavor in one group only, a fungibility preference only with
// both steps TryNextFlavor.
//
// FairSharing is set when a ClusterQueue or a Cohort sets spec.fairSharing, or its
// status carries fairSharing, which Kueue records only when fair sharing is on in its
// own configuration (which is no object, and not read here).
//
// The other configuration kinds of Kueue's API (AdmissionCheck, Topology,
// WorkloadPriorityClass, …) and Workloads are reported in Unmodelled, an entry each;
// another apiVersion or kind is refused (ErrUnknownKind).
func ReadKueue(objects ...[]byte) (*Config, error) {
	objs, err := splitInputs(objects)
	if err != nil {
		return nil, err
	}
	r := &kueueReader{cfg: &Config{Queues: map[string]string{}, Strategies: map[string]admission.Strategy{}, origins: map[string]origin{}},
		flavors: map[string]bool{}, kinds: map[string]string{}, locals: map[string]bool{}}
	for _, o := range objs {
		if err := r.read(o); err != nil {
			return nil, err
		}
	}
	if err := r.link(); err != nil {
		return nil, err
	}
	return r.cfg, nil
}

// kueueReader holds what ReadKueue has read so far.
type kueueReader struct {
	cfg *Config
	// flavors holds the names of the ResourceFlavors read.
	flavors map[string]bool
	// kinds holds, per name of a node read, its kind: Cohort or ClusterQueue.
	kinds map[string]string
	// nodes are the nodes read, in input order; pairs the pairs each names.
	nodes []quota.NodeSpec
	pairs [][]string
	// locals holds the LocalQueues read, by "namespace/name".
	locals map[string]bool
	// refs are the references to other objects, in input order, checked once all
	// objects are read.
	refs []reference
}

// reference is a field that names another object.
type reference struct {
	o    *object
	path string
	to   string // "ResourceFlavor", "Cohort" or "ClusterQueue"
	name string
}

func (r *kueueReader) read(o *object) error {
	group, version := o.group()
	switch {
	case group == kaiGroup:
		return o.failText(ErrUnknownKind, "kind", o.kind, o.apiVersion+" "+o.kind+" is read by ReadKAI")
	case group != kueueGroup:
		return o.failText(ErrUnknownKind, "kind", o.kind, o.apiVersion+" "+o.kind+" is no Kueue object")
	}
	switch o.kind {
	case "ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue":
	default:
		note, ok := kueueOtherKinds(o.kind)
		if !ok {
			return o.failText(ErrUnknownKind, "kind", o.kind, "is no kind of "+kueueGroup+" that ReadKueue knows")
		}
		if err := o.readName(o.kind == "Workload"); err != nil {
			return err
		}
		o.reportObject(r.cfg, note)
		return nil
	}
	if version != "v1beta1" && version != "v1beta2" {
		return o.failText(ErrUnknownKind, "apiVersion", o.apiVersion, "is no version ReadKueue reads: Kueue v0.19 serves "+o.kind+" as v1beta1 and v1beta2")
	}
	if err := o.readName(o.kind == "LocalQueue"); err != nil {
		return err
	}
	if o.kind != "ResourceFlavor" { // a flavor's name has poolgate's stricter rule (flavor)
		if err := o.checkObjectName(); err != nil {
			return err
		}
	}
	// Status is what Kueue observed, not configuration.
	status := o.root.takeWhole("status")
	spec, err := o.spec()
	if err != nil {
		return err
	}
	switch o.kind {
	case "ResourceFlavor":
		err = r.flavor(o, spec)
	case "Cohort":
		err = r.cohort(o, spec, version)
	case "ClusterQueue":
		err = r.clusterQueue(o, spec, version)
	case "LocalQueue":
		err = r.localQueue(o, spec)
	}
	if err != nil {
		return err
	}
	if status.peek("fairSharing") != nil && o.kind != "LocalQueue" {
		r.cfg.FairSharing = true
	}
	o.report(r.cfg, kueueNote(o.kind, version))
	return nil
}

// kueueOtherKinds returns what poolgate makes of a kind of Kueue's API that it does not
// read, and whether kind is one.
func kueueOtherKinds(kind string) (string, bool) {
	switch kind {
	case "AdmissionCheck":
		return "admission checks are not modelled: poolgate admits on quota and placement alone", true
	case "Topology":
		return "a Topology is not read: give the gate a topology.Cluster with its levels", true
	case "Workload":
		return "a Workload is work, not configuration: submit it to the gate, or record it with AddRunning", true
	case "WorkloadPriorityClass":
		return "poolgate's priorities are HIGH, NORMAL and LOW: the host maps priority classes to them", true
	case "ProvisioningRequestConfig":
		return "provisioning requests are not modelled", true
	case "MultiKueueConfig", "MultiKueueCluster":
		return "MultiKueue is not modelled: a gate admits to one cluster", true
	}
	return "", false
}

// kueueNote returns the notes of the fields of a kind that ReadKueue leaves.
func kueueNote(kind, version string) func(path string) string {
	return func(path string) string {
		switch kind + " " + path {
		case "ResourceFlavor spec.nodeTaints":
			return "taints of the flavor's nodes: poolgate places by node labels alone"
		case "ResourceFlavor spec.tolerations":
			return "tolerations Kueue adds to admitted pods: poolgate changes no pods"
		case "ResourceFlavor spec.topologyName":
			return "topology-aware scheduling: give the gate a topology.Cluster instead"
		case "ClusterQueue spec.namespaceSelector":
			return "which namespaces may submit: poolgate knows no namespaces, so the host checks it"
		case "ClusterQueue spec.preemption":
			return "preemption policies: poolgate preempts LOW work only, by its own rules"
		case "ClusterQueue spec.admissionChecks", "ClusterQueue spec.admissionChecksStrategy":
			return "admission checks: poolgate admits on quota and placement alone"
		case "ClusterQueue spec.stopPolicy", "LocalQueue spec.stopPolicy":
			return "stops admission: poolgate has no stopped queues, so the host holds the work back"
		case "ClusterQueue spec.admissionScope", "LocalQueue spec.fairSharing":
			return "admission fair sharing among LocalQueues: poolgate orders a queue's work by priority and submission"
		case "ClusterQueue spec.concurrentAdmissionPolicy":
			return "concurrent admission on several flavors: poolgate gives work one flavor per resource group"
		}
		return "not a field of a " + version + " " + kind + " that ReadKueue knows"
	}
}

// flavor reads a ResourceFlavor.
func (r *kueueReader) flavor(o *object, spec *value) error {
	if err := naming.ValidatePool(o.name); err != nil {
		e := o.failText(ErrInvalidValue, "metadata.name", o.name, nameRule(err)+": poolgate's flavor names follow its pool-name rule")
		e.Err = err
		return e
	}
	if r.flavors[o.name] {
		return o.failText(ErrDuplicate, "metadata.name", o.name, "is the name of an earlier ResourceFlavor")
	}
	r.flavors[o.name] = true
	labels, err := o.objectAt(spec, "spec", "nodeLabels")
	if err != nil {
		return err
	}
	f := quota.Flavor{Name: o.name}
	if labels != nil {
		labels.whole = true
		f.Labels = make(map[string]string, len(labels.keys))
		for i, k := range labels.keys {
			v := labels.vals[i]
			if k == "" || v.kind != jsonString {
				return o.fail(ErrInvalidValue, join("spec.nodeLabels", k), v, "must be a label: a non-empty key and a string value")
			}
			f.Labels[k] = v.text
		}
	}
	r.cfg.Tree.Flavors = append(r.cfg.Tree.Flavors, f)
	return nil
}

// claim records o, a Cohort or a ClusterQueue, as the node of its name.
func (r *kueueReader) claim(o *object) error {
	switch prev, ok := r.kinds[o.name]; {
	case ok && prev == o.kind:
		return o.failText(ErrDuplicate, "metadata.name", o.name, "is the name of an earlier "+o.kind)
	case ok:
		return o.failText(ErrDuplicate, "metadata.name", o.name,
			"is also the name of "+prev+" "+quote(o.name)+": poolgate's tree names cohorts and queues in one name space")
	}
	r.kinds[o.name] = o.kind
	return nil
}

// addNode records ns, read from o, whose parent field is at parentPath.
func (r *kueueReader) addNode(o *object, ns quota.NodeSpec, pairs []string, parentPath string) {
	r.nodes = append(r.nodes, ns)
	r.pairs = append(r.pairs, pairs)
	r.cfg.origins[ns.Name] = origin{kind: o.kind, parentPath: parentPath}
	if ns.Parent != "" {
		r.refs = append(r.refs, reference{o: o, path: parentPath, to: "Cohort", name: ns.Parent})
	}
}

// renamed refuses the field another version of the API has in place of the one this
// version reads, which would otherwise go unread.
func renamed(o *object, spec *value, field, other, otherVersion, version string) error {
	if v := spec.peek(other); v != nil {
		return o.fail(ErrInvalidValue, "spec."+other, v,
			"is the field of "+otherVersion+"; a "+version+" "+o.kind+" gives it as spec."+field)
	}
	return nil
}

// cohort reads a Cohort.
func (r *kueueReader) cohort(o *object, spec *value, version string) error {
	if err := r.claim(o); err != nil {
		return err
	}
	if err := renamed(o, spec, "parentName", "parent", "kueue.x-k8s.io/v1alpha1", version); err != nil {
		return err
	}
	parent, _, err := o.stringAt(spec, "spec", "parentName")
	if err != nil {
		return err
	}
	ns := quota.CohortSpec(o.name, parent)
	var pairs []string
	_, ns.Quotas, pairs, err = r.resourceGroups(o, spec, parent != "", "spec.parentName")
	if err != nil {
		return err
	}
	if ns.Weight, err = r.fairSharing(o, spec); err != nil {
		return err
	}
	r.addNode(o, ns, pairs, "spec.parentName")
	return nil
}

// clusterQueue reads a ClusterQueue.
func (r *kueueReader) clusterQueue(o *object, spec *value, version string) error {
	if err := r.claim(o); err != nil {
		return err
	}
	field, other, otherVersion := "cohortName", "cohort", "kueue.x-k8s.io/v1beta1"
	if version == "v1beta1" {
		field, other, otherVersion = "cohort", "cohortName", "kueue.x-k8s.io/v1beta2"
	}
	if err := renamed(o, spec, field, other, otherVersion, version); err != nil {
		return err
	}
	parent, _, err := o.stringAt(spec, "spec", field)
	if err != nil {
		return err
	}
	parentPath := "spec." + field
	ns := quota.QueueSpec(o.name, parent)
	var pairs []string
	ns.Groups, ns.Quotas, pairs, err = r.resourceGroups(o, spec, parent != "", parentPath)
	if err != nil {
		return err
	}
	if ns.Fungibility, err = fungibility(o, spec, version); err != nil {
		return err
	}
	if ns.Weight, err = r.fairSharing(o, spec); err != nil {
		return err
	}
	strategy, _, err := o.stringAt(spec, "spec", "queueingStrategy")
	if err != nil {
		return err
	}
	switch strategy {
	case "", "BestEffortFIFO":
		r.cfg.Strategies[o.name] = admission.BestEffortFIFO
	case "StrictFIFO":
		r.cfg.Strategies[o.name] = admission.StrictFIFO
	default:
		return o.failText(ErrInvalidValue, "spec.queueingStrategy", strategy, "must be StrictFIFO or BestEffortFIFO")
	}
	// Values that say what poolgate does anyway are taken, not reported: all
	// namespaces may submit, admission is not stopped, no admission fair sharing.
	if sel := spec.peek("namespaceSelector"); sel != nil && sel.kind == jsonObject && len(sel.keys) == 0 {
		spec.member("namespaceSelector")
	}
	if stop := spec.peek("stopPolicy"); stop != nil && stop.kind == jsonString && stop.text == "None" {
		spec.member("stopPolicy")
	}
	if scope := spec.peek("admissionScope"); scope != nil && scope.compact() == `{"admissionMode":"NoAdmissionFairSharing"}` {
		spec.takeWhole("admissionScope")
	}
	r.addNode(o, ns, pairs, parentPath)
	return nil
}

// localQueue reads a LocalQueue.
func (r *kueueReader) localQueue(o *object, spec *value) error {
	if r.locals[o.name] {
		return o.failText(ErrDuplicate, "metadata.name", o.name, "is the name of an earlier LocalQueue of its namespace")
	}
	r.locals[o.name] = true
	cq, _, err := o.stringAt(spec, "spec", "clusterQueue")
	if err != nil {
		return err
	}
	if cq == "" {
		return o.failText(ErrInvalidValue, "spec.clusterQueue", cq, "must name the LocalQueue's ClusterQueue")
	}
	if stop := spec.peek("stopPolicy"); stop != nil && stop.kind == jsonString && stop.text == "None" {
		spec.member("stopPolicy")
	}
	r.cfg.Queues[o.name] = cq
	r.refs = append(r.refs, reference{o: o, path: "spec.clusterQueue", to: "ClusterQueue", name: cq})
	return nil
}

// fairSharing reads spec.fairSharing: the weight, and that fair sharing is at work.
func (r *kueueReader) fairSharing(o *object, spec *value) (quota.Weight, error) {
	fs, err := o.objectAt(spec, "spec", "fairSharing")
	if err != nil || fs == nil {
		return quota.Weight{}, err
	}
	r.cfg.FairSharing = true
	w, _, err := o.weightAt(fs, "spec.fairSharing", "weight")
	return w, err
}

// resourceGroups reads spec.resourceGroups of a ClusterQueue or a Cohort: the groups,
// the quotas per pair and the pairs in the order the groups give them. hasParent
// tells whether limits are allowed; parentPath names the parent field for the rule.
func (r *kueueReader) resourceGroups(o *object, spec *value, hasParent bool, parentPath string) ([]quota.ResourceGroup, map[string]quota.NodeQuota, []string, error) {
	rgs, err := o.arrayAt(spec, "spec", "resourceGroups")
	if err != nil || rgs == nil {
		return nil, nil, nil, err
	}
	var groups []quota.ResourceGroup
	quotas := map[string]quota.NodeQuota{}
	var pairs []string
	seenRes, seenFl := map[string]string{}, map[string]string{}
	for gi, rg := range rgs.vals {
		gp := index("spec.resourceGroups", gi)
		if rg.kind != jsonObject {
			return nil, nil, nil, o.fail(ErrInvalidValue, gp, rg, "must be an object")
		}
		res, err := coveredResources(o, rg, gp, seenRes)
		if err != nil {
			return nil, nil, nil, err
		}
		fls, err := o.arrayAt(rg, gp, "flavors")
		if err != nil {
			return nil, nil, nil, err
		}
		if fls == nil || len(fls.vals) == 0 {
			return nil, nil, nil, o.fail(ErrInvalidValue, gp+".flavors", fls, "must list at least one flavor")
		}
		g := quota.ResourceGroup{Resources: res}
		for fi, f := range fls.vals {
			fp := index(gp+".flavors", fi)
			if f.kind != jsonObject {
				return nil, nil, nil, o.fail(ErrInvalidValue, fp, f, "must be an object")
			}
			name, _, err := o.stringAt(f, fp, "name")
			switch {
			case err != nil:
				return nil, nil, nil, err
			case name == "":
				return nil, nil, nil, o.failText(ErrInvalidValue, fp+".name", name, "must name a ResourceFlavor")
			case seenFl[name] != "":
				return nil, nil, nil, o.failText(ErrDuplicate, fp+".name", name, "is listed at "+seenFl[name]+" too; a flavor is in one group")
			}
			seenFl[name] = fp + ".name"
			r.refs = append(r.refs, reference{o: o, path: fp + ".name", to: "ResourceFlavor", name: name})
			fq, err := flavorQuotas(o, f, fp, res, hasParent, parentPath)
			if err != nil {
				return nil, nil, nil, err
			}
			for i, q := range fq {
				pair := quota.PairName(res[i], name)
				quotas[pair] = q
				pairs = append(pairs, pair)
			}
			g.Flavors = append(g.Flavors, name)
		}
		groups = append(groups, g)
	}
	return groups, quotas, pairs, nil
}

// coveredResources reads the covered resources of the group at gp, none of which an
// earlier group covers (seen maps each to where it was covered).
func coveredResources(o *object, rg *value, gp string, seen map[string]string) ([]string, error) {
	covered, err := o.arrayAt(rg, gp, "coveredResources")
	if err != nil {
		return nil, err
	}
	if covered == nil || len(covered.vals) == 0 {
		return nil, o.fail(ErrInvalidValue, gp+".coveredResources", covered, "must list at least one resource")
	}
	res := make([]string, len(covered.vals))
	for i, c := range covered.vals {
		cp := index(gp+".coveredResources", i)
		switch {
		case c.kind != jsonString || c.text == "":
			return nil, o.fail(ErrInvalidValue, cp, c, "must be a resource name")
		case strings.Contains(c.text, quota.PairSeparator):
			return nil, o.fail(ErrInvalidValue, cp, c, "must not hold "+quote(quota.PairSeparator)+", which joins a resource to its flavor in poolgate")
		case seen[c.text] != "":
			return nil, o.fail(ErrDuplicate, cp, c, "is covered at "+seen[c.text]+" too; a resource is in one group")
		}
		seen[c.text] = cp
		res[i] = c.text
	}
	return res, nil
}

// flavorQuotas reads the quotas of the flavor at fp, one per covered resource, in the
// order of res.
func flavorQuotas(o *object, f *value, fp string, res []string, hasParent bool, parentPath string) ([]quota.NodeQuota, error) {
	rs, err := o.arrayAt(f, fp, "resources")
	if err != nil {
		return nil, err
	}
	if rs == nil || len(rs.vals) != len(res) {
		return nil, o.fail(ErrInvalidValue, fp+".resources", rs,
			"must give the quotas of the "+strconv.Itoa(len(res))+" covered resources, in the order of coveredResources")
	}
	out := make([]quota.NodeQuota, len(res))
	for i, rq := range rs.vals {
		rp := index(fp+".resources", i)
		if rq.kind != jsonObject {
			return nil, o.fail(ErrInvalidValue, rp, rq, "must be an object")
		}
		name, _, err := o.stringAt(rq, rp, "name")
		if err != nil {
			return nil, err
		}
		if name != res[i] {
			return nil, o.failText(ErrInvalidValue, rp+".name", name, "must be "+quote(res[i])+", the covered resource at its place")
		}
		q := &out[i]
		if q.Nominal, _, err = o.quantityAt(rq, rp, "nominalQuota", name); err != nil {
			return nil, err
		}
		for _, lim := range [...]struct {
			key string
			out *quota.Limit
			why string
		}{{"borrowingLimit", &q.BorrowingLimit, "borrow from"}, {"lendingLimit", &q.LendingLimit, "lend to"}} {
			v, set, err := o.quantityAt(rq, rp, lim.key, name)
			switch {
			case err != nil:
				return nil, err
			case !set:
				continue
			case !hasParent:
				return nil, o.fail(ErrInvalidValue, rp+"."+lim.key, rq.peek(lim.key),
					"needs "+parentPath+": without a parent there is none to "+lim.why)
			case lim.key == "lendingLimit" && o.kind == "ClusterQueue" && v > q.Nominal:
				return nil, o.fail(ErrInvalidValue, rp+"."+lim.key, rq.peek(lim.key),
					"must not exceed the nominalQuota, "+q.Nominal.String())
			}
			*lim.out = quota.LimitOf(v)
		}
	}
	return out, nil
}

// fungibility reads spec.flavorFungibility.
func fungibility(o *object, spec *value, version string) (quota.Fungibility, error) {
	var f quota.Fungibility
	ff, err := o.objectAt(spec, "spec", "flavorFungibility")
	if err != nil || ff == nil {
		return f, err
	}
	const path = "spec.flavorFungibility"
	for _, step := range [...]struct {
		key, old string
		out      *quota.FlavorStep
	}{{"whenCanBorrow", "Borrow", &f.WhenCanBorrow}, {"whenCanPreempt", "Preempt", &f.WhenCanPreempt}} {
		s, _, err := o.stringAt(ff, path, step.key)
		if err != nil {
			return f, err
		}
		switch {
		case s == "":
		case s == "MayStopSearch" || (s == step.old && version == "v1beta1"):
			*step.out = quota.MayStopSearch
		case s == "TryNextFlavor":
			*step.out = quota.TryNextFlavor
		case s == step.old:
			return f, o.failText(ErrInvalidValue, path+"."+step.key, s,
				"is v1beta1's old name of MayStopSearch; a v1beta2 ClusterQueue takes MayStopSearch or TryNextFlavor")
		default:
			return f, o.failText(ErrInvalidValue, path+"."+step.key, s, "must be MayStopSearch or TryNextFlavor")
		}
	}
	pref, _, err := o.stringAt(ff, path, "preference")
	if err != nil {
		return f, err
	}
	switch pref {
	case "":
		return f, nil
	case "BorrowingOverPreemption":
		f.Preference = quota.BorrowingOverPreemption
	case "PreemptionOverBorrowing":
		f.Preference = quota.PreemptionOverBorrowing
	default:
		return f, o.failText(ErrInvalidValue, path+".preference", pref, "must be BorrowingOverPreemption or PreemptionOverBorrowing")
	}
	if r := f.Resolved(); r.WhenCanBorrow != quota.TryNextFlavor || r.WhenCanPreempt != quota.TryNextFlavor {
		return f, o.failText(ErrInvalidValue, path+".preference", pref, "needs whenCanBorrow and whenCanPreempt TryNextFlavor")
	}
	return f, nil
}

// link checks the references, adds the cohorts that are only named, and completes the
// Config.
func (r *kueueReader) link() error {
	var named []string
	for _, ref := range r.refs {
		switch ref.to {
		case "ResourceFlavor":
			if !r.flavors[ref.name] {
				return ref.o.failText(ErrUnknownReference, ref.path, ref.name, "names no ResourceFlavor of the inputs")
			}
		case "ClusterQueue":
			if r.kinds[ref.name] != "ClusterQueue" {
				return ref.o.failText(ErrUnknownReference, ref.path, ref.name, "names no ClusterQueue of the inputs")
			}
		case "Cohort":
			switch k, ok := r.kinds[ref.name]; {
			case !ok:
				// Kueue makes a cohort of a name that no Cohort object defines.
				r.kinds[ref.name] = "Cohort"
				r.cfg.origins[ref.name] = origin{kind: "Cohort"}
				named = append(named, ref.name)
			case k != "Cohort":
				return ref.o.failText(ErrDuplicate, ref.path, ref.name,
					"names a cohort that has the name of "+k+" "+quote(ref.name)+": poolgate's tree names cohorts and queues in one name space")
			}
		}
	}
	t := &r.cfg.Tree
	t.Nodes = r.nodes
	for _, name := range named {
		t.Nodes = append(t.Nodes, quota.CohortSpec(name, ""))
	}
	seen := map[string]bool{}
	for _, pairs := range r.pairs {
		for _, p := range pairs {
			if !seen[p] {
				seen[p] = true
				t.Resources = append(t.Resources, p)
			}
		}
	}
	return nil
}
