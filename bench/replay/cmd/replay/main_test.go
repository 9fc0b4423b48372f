package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolgate/poolgate/admission"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunFromFiles replays small lists read from files, writes the chart and exits 0.
func TestRunFromFiles(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.csv")
	pods := filepath.Join(dir, "pods.csv")
	svg := filepath.Join(dir, "out.svg")
	require.NoError(t, os.WriteFile(nodes, []byte("sn,cpu_milli,memory_mib,gpu,model\nn0,8000,8192,2,T4\n"), 0o644))
	require.NoError(t, os.WriteFile(pods, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
		"a,1000,1024,1,500,T4|A10,LS,Running,1000,2000,1000\n"+
		"b,1000,1024,1,1000,,BE,Running,2000,3000,2000\n"), 0o644))
	var out, errOut strings.Builder
	code := run([]string{"-pods", pods, "-nodes", nodes, "-copies", "2", "-svg", svg}, &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "trace         2 pods × 2 copies on 1 node (2 GPUs)")
	assert.Contains(t, out.String(), "note          1 pod")
	assert.Contains(t, out.String(), "result        ok")
	chart, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(chart), "</svg>")

	// -no-checks runs the same replay and says that nothing was verified.
	out.Reset()
	code = run([]string{"-pods", pods, "-nodes", nodes, "-copies", "2", "-no-checks"}, &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "result        all work ran; nothing was checked")
	assert.NotContains(t, out.String(), "inversion check")

	// -flavors lets the gate choose the GPU class: T4 is legacy, and the list has no
	// recent node.
	out.Reset()
	code = run([]string{"-pods", pods, "-nodes", nodes, "-copies", "2", "-flavors"}, &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Contains(t, out.String(), "flavors       gpu in recent (no node) or legacy (T4: 1 node, 2 GPUs)")
	assert.Contains(t, out.String(), "result        ok")
}

// TestRunRefusesBadInput checks the exit code 2 and the message for bad flags and
// files.
func TestRunRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("sn,cpu_milli\n"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-trace", "nope"}, `invalid config trace "nope"`},
		{[]string{"-nodes", bad}, bad + `: line 1, column memory_mib "": is missing from the header`},
		{[]string{"-quota", "0.5,x"}, `-quota "0.5,x": "x" is not a number`},
		{[]string{"-squeeze", "0"}, "-copies, -pools, -squeeze and -period must be positive"},
		{[]string{"-pools", "0"}, "-copies, -pools, -squeeze and -period must be positive"},
		{[]string{"-pools", "3", "-quota", "0.5,0.5"}, `invalid config quota "0.5,0.5": must give one fraction per pool (3)`},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
	} {
		var out, errOut strings.Builder
		assert.Equal(t, 2, run(tc.args, &out, &errOut), "%v", tc.args)
		assert.Contains(t, errOut.String(), tc.want, "%v", tc.args)
	}
}

// TestMinRuntimeFlags: -min-runtime sets both minimum runtimes, each of
// -min-runtime-preempt and -min-runtime-reclaim overrides its own when set, and
// -patience goes with them.
func TestMinRuntimeFlags(t *testing.T) {
	m := time.Minute
	require.Equal(t, admission.MinRuntime{Preempt: 30 * m, Reclaim: 30 * m}, minRuntimeOf(30*m, -1, -1, 0))
	require.Equal(t, admission.MinRuntime{Preempt: 30 * m, Reclaim: 0}, minRuntimeOf(0, 30*m, -1, 0))
	require.Equal(t, admission.MinRuntime{Preempt: 10 * m, Reclaim: 0}, minRuntimeOf(10*m, -1, 0, 0))
	require.Equal(t, admission.MinRuntime{Preempt: 5 * m, Reclaim: 45 * m}, minRuntimeOf(20*m, 5*m, 45*m, 0))
	require.Equal(t, admission.MinRuntime{Preempt: 30 * m, Reclaim: 30 * m, Patience: 5 * m}, minRuntimeOf(30*m, -1, -1, 5*m))
}
