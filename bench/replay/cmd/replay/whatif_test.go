package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWhatIfFromFiles replays small lists twice, the base with fair sharing on, the
// change raising pool1's weight, and prints the table side by side with the verdict.
func TestWhatIfFromFiles(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.csv")
	pods := filepath.Join(dir, "pods.csv")
	require.NoError(t, os.WriteFile(nodes, []byte("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,4,T4\nn1,32000,65536,4,T4\n"), 0o644))
	list := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
	for _, p := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		list += p + ",1000,1024,1,1000,,BE,Running,0,600,0\n"
	}
	require.NoError(t, os.WriteFile(pods, []byte(list), 0o644))
	var out, errOut strings.Builder
	code := run([]string{"-pods", pods, "-nodes", nodes, "-squeeze", "1", "-quota", "0.25,0.25",
		"-whatif-base", "fair=on", "-whatif", "weight.pool1=3"}, &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	s := out.String()
	assert.Contains(t, s, "replaying "+pods+" on "+nodes+" twice\n")
	assert.Contains(t, s, "what-if       weight.pool1=3\n")
	assert.Contains(t, s, "base          2 pools of 2, 2 GPUs; fair sharing on; BestEffortFIFO; cycles ≥ 1s apart\n")
	assert.Contains(t, s, "changed       2 pools of 2, 2 GPUs; fair sharing on, weights pool1 3 (others 1); BestEffortFIFO; cycles ≥ 1s apart\n")
	assert.Contains(t, s, "pool     figure                               base        changed           diff\n")
	assert.Contains(t, s, "total    workloads                              12             12              0\n")
	assert.Contains(t, s, "result        ok: every check held after every cycle of both runs and all work ran\n")
	assert.Contains(t, s, "wall time     base ")
}

// TestWhatIfRefusesBadInput checks the exit code 2 and the message for bad changes and
// flags that do not go with -whatif.
func TestWhatIfRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-whatif", "fair=maybe"}, `replay: -whatif: whatif: invalid fair "maybe": must be on or off`},
		{[]string{"-whatif", "fair=on", "-whatif-base", "colour=red"}, `replay: -whatif-base: whatif: invalid setting "colour": is not a setting`},
		{[]string{"-whatif", "weight.pool2=3"}, `replay: whatif: invalid weight.pool2 "3": names no pool of the run, which has pool0 … pool1`},
		{[]string{"-whatif", "fair=on", "-whatif-base", "quota=0.5"}, `replay: -whatif-base: whatif: invalid quota "quota=0.5": must give one fraction per pool (2)`},
		{[]string{"-whatif-base", "fair=on"}, "replay: -whatif-base needs -whatif"},
		{[]string{"-whatif", "fair=on", "-no-checks"}, "-no-checks, -svg and -progress do not apply"},
		{[]string{"-whatif", "fair=on", "-flavors", "-whatif-base", "weight.pool0=2"}, `replay: whatif: base run: whatif: invalid weight.pool0 "2": needs a gate from pools`},
	} {
		var out, errOut strings.Builder
		assert.Equal(t, 2, run(tc.args, &out, &errOut), "%v", tc.args)
		assert.Contains(t, errOut.String(), tc.want, "%v", tc.args)
	}
}
