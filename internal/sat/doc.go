// Package sat is saturating integer arithmetic for quantities.
//
// The largest value of the type stands for Unlimited and is sticky: Unlimited plus or
// minus any bounded value stays Unlimited. Every other result that would leave the
// type's range is clamped to its bounds instead of wrapping, so no sum of quotas or
// usages can overflow silently: quota arithmetic refuses or saturates, it never wraps.
//
// It returns no errors: AddChecked and MulChecked report a result that left the range,
// and the packages that must refuse such a sum return their own errors.
//
// The functions are pure and safe for concurrent use.
package sat
