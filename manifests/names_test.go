package manifests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKueueNamesAreKubernetesNames: a Cohort, ClusterQueue or LocalQueue whose name no
// API server takes is refused on metadata.name (or metadata.namespace) as an invalid
// value: bytes that are not UTF-8 (the decoder would read them as U+FFFD, so two
// names would read as one), poolgate's own separators, characters outside a DNS-1123
// name, names too long; and a LocalQueue whose name or namespace holds a '/', which
// would collide with another's.
func TestKueueNamesAreKubernetesNames(t *testing.T) {
	rf := kq("v1beta2", "ResourceFlavor", "f", "")
	for _, c := range []struct {
		kind, name, field string
	}{
		{"ClusterQueue", "a@b", "metadata.name"},
		{"ClusterQueue", "é", "metadata.name"},
		{"Cohort", "(root)", "metadata.name"},
		{"Cohort", strings.Repeat("a", 300), "metadata.name"},
		{"ClusterQueue", "Team", "metadata.name"},
		{"LocalQueue", "ns/x/y", "metadata.name"},
		{"LocalQueue", "ns.a/y", "metadata.namespace"},
		{"LocalQueue", strings.Repeat("n", 64) + "/y", "metadata.namespace"},
	} {
		_, err := ReadKueue([]byte(rf), []byte(kq("v1beta2", c.kind, c.name, "")))
		require.ErrorIs(t, err, ErrInvalidValue, "%s %q", c.kind, c.name)
		var re *ReadError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, c.field, re.Path, "%s %q", c.kind, c.name)
	}

	// Not UTF-8: refused as it is, not read as another name.
	_, err := ReadKueue([]byte(rf), []byte(kq("v1beta2", "ClusterQueue", "a\xffb", "")))
	require.ErrorIs(t, err, ErrSyntax)
	assert.ErrorContains(t, err, "is not UTF-8 (byte ")
	_, err = ReadKueue([]byte(rf), []byte(kq("v1beta2", "ClusterQueue", "a\xff", "")), []byte(kq("v1beta2", "ClusterQueue", "a\xfe", "")))
	require.ErrorIs(t, err, ErrSyntax)
	require.NotErrorIs(t, err, ErrDuplicate)

	// Valid names still read.
	_, err = ReadKueue([]byte(rf), []byte(kq("v1beta2", "ClusterQueue", "team-a.gpu", "")), []byte(kq("v1beta2", "LocalQueue", "ml-ns/train", `{"clusterQueue":"team-a.gpu"}`)))
	require.NoError(t, err)
}

// labelsObject returns a ResourceFlavor with n node labels, the last one repeating
// the first when repeat is set.
func labelsObject(n int, repeat bool) []byte {
	var b strings.Builder
	b.WriteString(`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"f","labels":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":"v"`, i)
	}
	if repeat {
		b.WriteString(`,"k0":"w"`)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// TestRepeatedKeysOfLargeObjects: past the few keys compared one by one, a repeated
// key is still refused, wherever it comes.
func TestRepeatedKeysOfLargeObjects(t *testing.T) {
	for _, n := range []int{fewKeys - 1, fewKeys, fewKeys + 1, 1000} {
		_, err := ReadKueue(labelsObject(n, false))
		require.NoError(t, err, n)
		_, err = ReadKueue(labelsObject(n, true))
		require.ErrorIs(t, err, ErrSyntax, n)
		assert.ErrorContains(t, err, `repeats the key "k0"`, n)
	}
}

// BenchmarkReadManyKeys: reading an object of many keys grows linearly with them (a
// hostile input of 40,000 labels took 4.4 s when each key was compared with all
// before it).
func BenchmarkReadManyKeys(b *testing.B) {
	for _, n := range []int{10_000, 40_000} {
		data := labelsObject(n, false)
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadKueue(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
