package naming

import (
	"strconv"
	"strings"
)

// MaxObjectNameLen is the longest Kubernetes object name (a DNS-1123 subdomain).
const MaxObjectNameLen = 253

// The KAI queue names a namespace's pools map to:
//
//	osmo-default-{ns}                   the root
//	osmo-pool-{ns}-{pool}               a top-level pool
//	osmo-pool-{ns}-{parent}--{short}    a subpool
//	osmo-pool-{ns}-{parent}--shared     the parent's leaf for direct submissions
//
// A derived name that is not a valid Kubernetes object name is an error: a pool named
// Team_1 is a valid OSMO pool but has no KAI queue, and it is never silently lower-cased.
const (
	defaultQueuePrefix = "osmo-default-"
	poolQueuePrefix    = "osmo-pool-"
)

// DefaultQueue returns the root KAI queue of namespace ns: osmo-default-{ns}.
func DefaultQueue(ns string) (string, error) {
	return objectName(defaultQueuePrefix + ns)
}

// PoolQueue returns the KAI queue of pool n in namespace ns: osmo-pool-{ns}-{n}. For a
// top-level pool that is the pool's inner queue; for a subpool, its leaf.
func PoolQueue(ns string, n Name) (string, error) {
	if !n.IsValid() {
		return "", nameError("pool name", "", "", ErrEmpty, "")
	}
	return objectName(poolQueuePrefix + ns + "-" + n.String())
}

// SharedQueue returns the leaf that receives direct submissions to the top-level pool
// pool: osmo-pool-{ns}-{pool}--shared. A pool without subpools has it too, so that every
// submission lands in a leaf.
func SharedQueue(ns string, pool Name) (string, error) {
	if !pool.IsValid() || pool.IsSubpool() {
		return "", nameError("pool name", pool.String(), "", ErrNotTopLevel, "")
	}
	return objectName(poolQueuePrefix + ns + "-" + pool.String() + Delimiter + Shared)
}

// LeafQueue returns the leaf KAI queue a submission to target lands in: the subpool's
// own leaf, or the parent's --shared leaf for a top-level pool.
func LeafQueue(ns string, target Name) (string, error) {
	if target.IsSubpool() {
		return PoolQueue(ns, target)
	}
	return SharedQueue(ns, target)
}

// ValidateObjectName reports whether s is a valid Kubernetes object name: a DNS-1123
// subdomain of at most 253 characters, dot-separated labels of lower-case letters,
// digits and '-', each starting and ending with a letter or digit.
func ValidateObjectName(s string) error {
	_, err := objectName(s)
	return err
}

func objectName(s string) (string, error) {
	const what = "KAI queue name"
	switch {
	case s == "":
		return "", nameError(what, s, "", ErrObjectName, "empty")
	case len(s) > MaxObjectNameLen:
		return "", nameError(what, s, "", ErrObjectName, lengthDetail(len(s), MaxObjectNameLen))
	}
	for pos, label := 0, ""; pos <= len(s); pos += len(label) + 1 {
		label = s[pos:]
		if i := strings.IndexByte(label, '.'); i >= 0 {
			label = label[:i]
		}
		if label == "" {
			return "", nameError(what, s, "", ErrObjectName, "empty label at position "+strconv.Itoa(pos))
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || isDigit(rune(c)) || c == '-') {
				return "", nameError(what, s, "", ErrObjectName, quoteByteAt(s, pos+i))
			}
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return "", nameError(what, s, "", ErrObjectName, "label "+strconv.Quote(label)+" must start and end with a letter or digit")
		}
	}
	return s, nil
}

// quoteByteAt describes the character at byte offset i of s, whole even when it is
// not ASCII.
func quoteByteAt(s string, i int) string {
	r := []rune(s[i:])[0]
	return strconv.QuoteRune(r) + " at byte " + strconv.Itoa(i) + " is not a lower-case letter, digit, '-' or '.'"
}
