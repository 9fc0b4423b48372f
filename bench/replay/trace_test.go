package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const podHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"

// TestParseNodesFindsColumnsByName checks that columns may come in any order and that
// extra columns are ignored.
func TestParseNodesFindsColumnsByName(t *testing.T) {
	rows, err := ParseNodes(strings.NewReader("model,gpu,sn,rack,memory_mib,cpu_milli\nT4,2,n1,r7,1024,8000\n,0,n2,r7,0,0\n"))
	require.NoError(t, err)
	assert.Equal(t, []NodeRow{
		{SN: "n1", CPUMilli: 8000, MemoryMiB: 1024, GPU: 2, Model: "T4"},
		{SN: "n2"},
	}, rows)
}

// TestParsePods checks a pod of each kind: shared GPU with a gpu_spec, whole GPUs,
// CPU-only and never scheduled.
func TestParsePods(t *testing.T) {
	rows, err := ParsePods(strings.NewReader(podHeader +
		"a,8000,30517,1,500,V100M16|V100M32,LS,Running,10,20,12\n" +
		"b,16000,1024,2,1000,,BE,Failed,5,5,5\n" +
		"c,1000,1,0,0,,Burstable,Pending,7,9,\n"))
	require.NoError(t, err)
	assert.Equal(t, []PodRow{
		{Name: "a", CPUMilli: 8000, MemoryMiB: 30517, NumGPU: 1, GPUMilli: 500, GPUSpec: []string{"V100M16", "V100M32"},
			QoS: QoSLS, Phase: "Running", CreationTime: 10, DeletionTime: 20, ScheduledTime: 12, Scheduled: true},
		{Name: "b", CPUMilli: 16000, MemoryMiB: 1024, NumGPU: 2, GPUMilli: 1000, QoS: QoSBE, Phase: "Failed",
			CreationTime: 5, DeletionTime: 5, ScheduledTime: 5, Scheduled: true},
		{Name: "c", CPUMilli: 1000, MemoryMiB: 1, QoS: QoSBurstable, Phase: "Pending", CreationTime: 7, DeletionTime: 9},
	}, rows)
}

// TestParseErrors checks that every rule names its row, line, column and value, with
// the kind errors.Is matches.
func TestParseErrors(t *testing.T) {
	const nodeHeader = "sn,cpu_milli,memory_mib,gpu,model\n"
	pod := func(row string) string { return podHeader + "ok,1,1,0,0,,BE,Running,1,2,1\n" + row + "\n" }
	for _, tc := range []struct {
		name, input string
		nodes       bool
		want        string
		kind        error
	}{
		{"empty input", "", true, `input: has no header`, ErrMalformed},
		{"missing column", "sn,cpu_milli,memory_mib,model\nn1,1,1,T4\n", true,
			`line 1, column gpu "": is missing from the header "sn,cpu_milli,memory_mib,model"`, ErrMissingColumn},
		{"column twice", "sn,gpu,cpu_milli,memory_mib,gpu,model\n", true, `line 1, column gpu "gpu": is named twice in the header`, ErrMissingColumn},
		{"field count", nodeHeader + "n1,1,1,1\n", true, `row 1 (line 2): wrong number of fields`, ErrMalformed},
		{"bare quote", nodeHeader + "n\"1,1,1,1,T4\n", true, `row 1 (line 2): bare " in non-quoted-field`, ErrMalformed},
		{"not an integer", nodeHeader + "n1,1.5,1,1,T4\n", true, `row 1 (line 2), column cpu_milli "1.5": must be an integer`, ErrNotInteger},
		{"too large", nodeHeader + "n1,1,99999999999999999999,1,T4\n", true,
			`row 1 (line 2), column memory_mib "99999999999999999999": must be an integer`, ErrNotInteger},
		{"negative", nodeHeader + "n1,1,1,-2,T4\n", true, `row 1 (line 2), column gpu "-2": must not be negative`, ErrNegative},
		{"unlimited node cpu", nodeHeader + "n1,1,1,1,T4\nn2,9223372036854775807,1,1,T4\n", true,
			`row 2 (line 3), column cpu_milli "9223372036854775807": must be below 9223372036854775807, which the gate reads as unlimited`, ErrInvalidValue},
		{"unlimited node memory", nodeHeader + "n1,1,9223372036854775807,1,T4\n", true,
			`row 1 (line 2), column memory_mib "9223372036854775807": must be below 9223372036854775807, which the gate reads as unlimited`, ErrInvalidValue},
		{"unlimited node gpu", nodeHeader + "n1,1,1,9223372036854775807,T4\n", true,
			`row 1 (line 2), column gpu "9223372036854775807": must be below 9223372036854775807, which the gate reads as unlimited`, ErrInvalidValue},
		{"empty sn", nodeHeader + ",1,1,1,T4\n", true, `row 1 (line 2), column sn "": must not be empty`, ErrInvalidValue},
		{"duplicate sn", nodeHeader + "n1,1,1,1,T4\n\nn1,2,2,2,T4\n", true,
			`row 2 (line 4), column sn "n1": is the name of row 1 too`, ErrDuplicateName},
		{"control character", nodeHeader + "\"n\t1\",1,1,1,T4\n", true,
			`row 1 (line 2), column sn "n\t1": must be UTF-8 text without control characters`, ErrInvalidValue},
		{"deletion before creation", pod("p,1,1,0,0,,BE,Running,10,9,"), false,
			`row 2 (line 3), column deletion_time "9": must not be before creation_time 10`, ErrTimeOrder},
		{"scheduled after deletion", pod("p,1,1,0,0,,BE,Running,1,9,10"), false,
			`row 2 (line 3), column scheduled_time "10": must lie between creation_time 1 and deletion_time 9`, ErrTimeOrder},
		{"scheduled before creation", pod("p,1,1,0,0,,BE,Running,5,9,4"), false,
			`row 2 (line 3), column scheduled_time "4": must lie between creation_time 5 and deletion_time 9`, ErrTimeOrder},
		{"scheduled not an integer", pod("p,1,1,0,0,,BE,Running,5,9,x"), false,
			`row 2 (line 3), column scheduled_time "x": must be an integer`, ErrNotInteger},
		{"unlimited pod cpu", pod("p,9223372036854775807,1,0,0,,BE,Running,1,2,"), false,
			`row 2 (line 3), column cpu_milli "9223372036854775807": must be below 9223372036854775807, which the gate reads as unlimited`, ErrInvalidValue},
		{"unlimited pod memory", pod("p,1,9223372036854775807,0,0,,BE,Running,1,2,"), false,
			`row 2 (line 3), column memory_mib "9223372036854775807": must be below 9223372036854775807, which the gate reads as unlimited`, ErrInvalidValue},
		{"unlimited pod gpus", pod("p,1,1,9223372036854775807,0,,BE,Running,1,2,"), false,
			`row 2 (line 3), column num_gpu "9223372036854775807": must be below 9223372036854775807, which the gate reads as unlimited`, ErrInvalidValue},
		{"negative creation", pod("p,1,1,0,0,,BE,Running,-5,9,"), false,
			`row 2 (line 3), column creation_time "-5": must not be negative`, ErrNegative},
		{"share above one GPU", pod("p,1,1,1,1500,,BE,Running,1,2,"), false,
			`row 2 (line 3), column gpu_milli "1500": must be at most 1000, a share of one GPU`, ErrInvalidValue},
		{"empty model in gpu_spec", pod("p,1,1,1,500,T4||A10,BE,Running,1,2,"), false,
			`row 2 (line 3), column gpu_spec "T4||A10": must list GPU models separated by '|', none empty`, ErrInvalidValue},
		{"unknown qos", pod("p,1,1,1,500,,Spot,Running,1,2,"), false,
			`row 2 (line 3), column qos "Spot": must be LS, Guaranteed, Burstable or BE`, ErrInvalidValue},
		{"duplicate name", pod("ok,1,1,0,0,,BE,Running,1,2,"), false,
			`row 2 (line 3), column name "ok": is the name of row 1 too`, ErrDuplicateName},
		{"empty name", pod(",1,1,0,0,,BE,Running,1,2,"), false, `row 2 (line 3), column name "": must not be empty`, ErrInvalidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.nodes {
				_, err = ParseNodes(strings.NewReader(tc.input))
			} else {
				_, err = ParsePods(strings.NewReader(tc.input))
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, tc.kind)
			var pe *ParseError
			assert.True(t, errors.As(err, &pe), "a *ParseError")
		})
	}
}

// TestWriteParseRoundTrip checks that written lists parse back to the same rows.
func TestWriteParseRoundTrip(t *testing.T) {
	nodes := []NodeRow{{SN: "n,1", CPUMilli: 1, MemoryMiB: 2, GPU: 3, Model: "V100M32"}, {SN: `"n2"`}}
	pods := []PodRow{
		{Name: "p 1", CPUMilli: 1, MemoryMiB: 2, NumGPU: 1, GPUMilli: 500, GPUSpec: []string{"T4", "A10"}, QoS: QoSGuaranteed,
			Phase: "Running", CreationTime: 3, DeletionTime: 9, ScheduledTime: 4, Scheduled: true},
		{Name: "p2", QoS: QoSBE, CreationTime: 7, DeletionTime: 7},
	}
	var nb, pb strings.Builder
	require.NoError(t, WriteNodes(&nb, nodes))
	require.NoError(t, WritePods(&pb, pods))
	gotNodes, err := ParseNodes(strings.NewReader(nb.String()))
	require.NoError(t, err)
	gotPods, err := ParsePods(strings.NewReader(pb.String()))
	require.NoError(t, err)
	assert.Equal(t, nodes, gotNodes)
	assert.Equal(t, pods, gotPods)
}

// TestLoadTrace checks the embedded files: every row parses, with the counts the
// trace's README gives.
func TestLoadTrace(t *testing.T) {
	assert.Equal(t, []string{"cpu050", "gpushare40", "gpushare40_models"}, TraceNames())
	for name, pods := range map[string]int{"gpushare40": 8152, "cpu050": 7439, "gpushare40_models": 8152} {
		tr, err := LoadTrace(name)
		require.NoError(t, err, name)
		assert.Len(t, tr.Pods, pods, name)
		assert.Len(t, tr.Nodes, 1213, name)
		gpus := int64(0)
		for _, n := range tr.Nodes {
			gpus += n.GPU
		}
		assert.Equal(t, int64(6212), gpus)
		named := 0
		for _, p := range tr.Pods {
			if len(p.GPUSpec) > 0 {
				named++
			}
		}
		want := map[string]int{"gpushare40_models": 2399}[name]
		assert.Equal(t, want, named, "%s: pods that name their GPU models", name)
	}
	_, err := LoadTrace("../README")
	assert.ErrorIs(t, err, ErrUnknownTrace)
	_, err = LoadTrace("gpushare41")
	assert.ErrorIs(t, err, ErrUnknownTrace)
	assert.ErrorIs(t, err, ErrInvalidConfig)
}
