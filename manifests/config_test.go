package manifests

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/poolgate/poolgate/admission"
	"github.com/poolgate/poolgate/naming"
)

// Build takes the Config's strategies with the host's set over them, and fair sharing
// when either turns it on.
func TestBuildMergesOptions(t *testing.T) {
	cfg, err := ReadKueue(
		[]byte(kq("v1beta2", "ClusterQueue", "a", `{"queueingStrategy":"StrictFIFO"}`)),
		[]byte(kq("v1beta2", "ClusterQueue", "b", `{"queueingStrategy":"StrictFIFO"}`)))
	require.NoError(t, err)
	assert.False(t, cfg.FairSharing)

	gate, err := cfg.Build(admission.Options{Strategies: map[string]admission.Strategy{"b": admission.BestEffortFIFO}})
	require.NoError(t, err)
	for q, want := range map[string]admission.Strategy{"a": admission.StrictFIFO, "b": admission.BestEffortFIFO} {
		got, err := gate.Strategy(q)
		require.NoError(t, err)
		assert.Equal(t, want, got, q)
	}
	assert.False(t, gate.FairSharing())
	assert.Equal(t, admission.StrictFIFO, cfg.Strategies["b"], "Build leaves the Config as it was")

	cfg.FairSharing = true
	gate, err = cfg.Build(admission.Options{})
	require.NoError(t, err)
	assert.True(t, gate.FairSharing())

	cfg.Strategies = nil
	gate, err = cfg.Build(admission.Options{FairSharing: true, Strategies: map[string]admission.Strategy{"a": admission.StrictFIFO}})
	require.NoError(t, err)
	got, _ := gate.Strategy("a")
	assert.Equal(t, admission.StrictFIFO, got)
	assert.True(t, gate.FairSharing())

	// The gate's own refusals are admission's.
	_, err = cfg.Build(admission.Options{Strategies: map[string]admission.Strategy{"nope": admission.StrictFIFO}})
	assert.ErrorIs(t, err, admission.ErrUnknownQueue)
}

// A name refused by package naming keeps its rule for errors.Is.
func TestNamingRulesWrapped(t *testing.T) {
	_, err := ReadKAI([]byte(kai("a_b", `{"resources":{}}`)))
	assert.ErrorIs(t, err, naming.ErrObjectName)
	assert.ErrorIs(t, err, ErrInvalidValue)
	_, err = ReadKueue([]byte(kq("v1beta2", "ResourceFlavor", "spot--a", "")))
	assert.ErrorIs(t, err, ErrInvalidValue)
	var ne *naming.NameError
	assert.ErrorAs(t, err, &ne)
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct{ path, key, want string }{
		{"", "spec", "spec"},
		{"spec", "cohortName", "spec.cohortName"},
		{"spec.nodeLabels", "example.com/zone", `spec.nodeLabels["example.com/zone"]`},
		{"", "a.b", `["a.b"]`},
		{"spec", "", `spec[""]`},
		{"spec", "x1_y", "spec.x1_y"},
		{"spec", "1x", `spec["1x"]`},
	} {
		assert.Equal(t, tc.want, join(tc.path, tc.key))
	}
	assert.Equal(t, "spec.resourceGroups[2]", index("spec.resourceGroups", 2))
}

// Top-level fields no object has are reported too; metadata and status are not.
func TestUnknownTopLevelField(t *testing.T) {
	cfg, err := ReadKueue([]byte(`{"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":{"name":"c","annotations":{"a":"b"}},` +
		`"spec":{},"status":{"fairSharing":{"weightedShare":1}},"note":{"by":"hand"}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{`Cohort "c": note = {"by":"hand"}: not a field of a v1beta2 Cohort that ReadKueue knows`}, fieldTexts(cfg.Unmodelled))
	assert.True(t, cfg.FairSharing)
}
