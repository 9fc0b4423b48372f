package admission

import (
	"strings"

	"github.com/poolgate/poolgate/naming"
)

// sharedSuffix ends the queue name of every pool's direct-submission leaf.
const sharedSuffix = naming.Delimiter + naming.Shared

// isSharedLeaf reports whether name, a name a pool set's tree routes, is a
// {pool}--shared leaf's queue name rather than a pool or subpool name. No pool or
// subpool name ends so: pool names hold no delimiter and "shared" is no short name.
func isSharedLeaf(name string) bool { return strings.HasSuffix(name, sharedSuffix) }

// checkPoolReference refuses, for field, a name that a submission to the static gate
// could not give: one that does not parse as a pool or subpool name, such as the
// team--shared leaf's queue name or the root cohort's. The error is of kind
// ErrUnknownQueue and wraps the *naming.NameError, so errors.Is matches the naming rule
// (naming.ErrReserved) as it does on Check's StaticDecision.NameErr.
func checkPoolReference(field, name string) error {
	_, err := naming.Parse(name)
	if err == nil {
		return nil
	}
	return &InputError{Field: field, Value: name, Rule: "is not a valid pool name: " + err.Error(), Kind: ErrUnknownQueue, Err: err}
}
