// Package manifests reads the queue configuration of Kueue and of KAI Scheduler, as
// `kubectl get -o json` prints their objects, into poolgate's: a quota.TreeSpec, the
// routes from the queues workloads name to the tree's queues, the queues' strategies
// and whether fair sharing is at work. It is the edge at which a host that runs beside
// Kueue or KAI, or migrates from one, hands their objects to the gate:
//
//	cfg, err := manifests.ReadKueue(flavors, cohorts, clusterQueues, localQueues)
//	…
//	for _, f := range cfg.Unmodelled {
//		log.Print(f) // what poolgate does not do
//	}
//	gate, err := cfg.Build(admission.Options{Cluster: cluster})
//
// ReadKueue reads ResourceFlavors, Cohorts, ClusterQueues and LocalQueues of Kueue's
// v1beta1 and v1beta2 APIs; ReadKAI reads KAI's v2 Queues. Their documentation gives
// the mapping, field by field, and where the two systems and poolgate differ.
//
// # Nothing dropped, nothing rounded
//
// Every field of an object is either read into the Config, or reported in
// Config.Unmodelled with its object, JSON path, value and a note on what poolgate does
// instead (a ClusterQueue's preemption policies, a flavor's taints, a KAI queue's
// priority), or refused with a *ReadError. Three things are not reported, as they are
// no configuration: an object's metadata other than its name and namespace (labels,
// annotations, uid, resourceVersion, managedFields, timestamps), its status (what the
// controller observed), and a KAI queue's displayName. A field whose value says what
// poolgate does anyway (a ClusterQueue's stopPolicy None, a namespaceSelector of {}
// that lets every namespace submit) is read, not reported. A field set to null is
// absent, as Kubernetes reads it.
//
// Input is UTF-8, as JSON is; bytes that are not are refused, never read as another
// character. Names are what an API server takes: a Cohort's, ClusterQueue's or
// LocalQueue's a Kubernetes object name (a DNS-1123 subdomain), a namespace a DNS-1123
// label, a ResourceFlavor's poolgate's pool-name rule.
//
// Quantities are read exactly (ParseQuantity): cpu in millicores, every other
// resource in whole base units, a fair-sharing weight in thousandths. A value that is
// not whole in its unit is refused where Kubernetes would round it.
//
// Errors are *ReadError values that say which object and field broke which rule, with
// a class for errors.Is (ErrSyntax, ErrUnknownKind, ErrInvalidValue, ErrDuplicate,
// ErrUnknownReference, ErrTree). The readers stop at the first error in input order.
// The readers apply the rules of Kueue's and KAI's webhooks and of poolgate's flavors
// that a single object or a reference breaks; the rules of the tree as a whole, such
// as a cycle of cohorts, are the tree's: Config.NewTree and Config.Build report them,
// naming the object, and are what a host calls rather than quota.NewTree itself.
//
// # Non-goals
//
// The package talks to no API server, watches nothing and keeps nothing: a host lists
// the objects (kubectl, a client library, files) and reads them again when they
// change. It reads JSON only; YAML manifests are converted by the host. It reads no
// Workloads or PodGroups (work is submitted to the gate), no Kueue Configuration (the
// host knows whether fair sharing is on; see Config.FairSharing) and nothing that
// places pods (topologies, taints, tolerations: give the gate a topology.Cluster).
//
// # Concurrency
//
// The functions are pure: they read their arguments, do no I/O, start no goroutines and
// keep no state, so any number may run at once. A Config is plain data owned by the
// caller; NewTree and Build only read it.
package manifests
