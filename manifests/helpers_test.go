package manifests

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kq returns a Kueue object of version v ("v1beta1", "v1beta2"): name is "ns/name"
// for a namespaced one, spec its JSON ("" for none).
func kq(v, kind, name, spec string) string {
	meta := `{"name":"` + name + `"}`
	if ns, n, ok := strings.Cut(name, "/"); ok {
		meta = `{"name":"` + n + `","namespace":"` + ns + `"}`
	}
	s := `{"apiVersion":"kueue.x-k8s.io/` + v + `","kind":"` + kind + `","metadata":` + meta
	if spec != "" {
		s += `,"spec":` + spec
	}
	return s + "}"
}

// kai returns a KAI Queue named name with spec.
func kai(name, spec string) string {
	return `{"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"` + name + `"},"spec":` + spec + "}"
}

// list returns a kubectl List of objects.
func list(objects ...string) string {
	return `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[` + strings.Join(objects, ",") + "]}"
}

func bytesOf(objects []string) [][]byte {
	out := make([][]byte, len(objects))
	for i, o := range objects {
		out[i] = []byte(o)
	}
	return out
}

// fieldTexts returns the String of every field.
func fieldTexts(fs []Field) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.String())
	}
	return out
}

// readFiles reads the test manifests matching pattern under testdata, in name order.
func readFiles(t testing.TB, pattern string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	require.NoError(t, err)
	require.NotEmpty(t, files, pattern)
	slices.Sort(files)
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		out = append(out, data)
	}
	return out
}

// classes are the classes a *ReadError may have.
var classes = []error{ErrSyntax, ErrUnknownKind, ErrInvalidValue, ErrDuplicate, ErrUnknownReference, ErrTree}

// checkReadError asserts that err is a *ReadError of one class, and of class want when
// want is set, that names where it is.
func checkReadError(t testing.TB, err error, want error) *ReadError {
	t.Helper()
	var re *ReadError
	require.ErrorAs(t, err, &re)
	n := 0
	for _, c := range classes {
		if errors.Is(err, c) {
			n++
		}
	}
	assert.Equal(t, 1, n, "classes of %v", err)
	if want != nil {
		assert.ErrorIs(t, err, want)
	}
	assert.True(t, re.Kind != "" || re.Input >= 0, "%v locates nothing", err)
	assert.NotEmpty(t, re.Rule)
	return re
}
