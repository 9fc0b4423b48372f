package replay

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstLines returns the first n lines of an embedded file, as a seed.
func firstLines(t interface{ Fatal(...any) }, file string, n int) []byte {
	b, err := traceFiles.ReadFile(traceDir + file)
	if err != nil {
		t.Fatal(err)
	}
	for i, end := 0, 0; i < len(b); i++ {
		if b[i] == '\n' {
			if end++; end == n {
				return b[:i+1]
			}
		}
	}
	return b
}

// FuzzParseNodes checks that no input makes ParseNodes panic, that every refusal is a
// *ParseError, and that whatever parses writes back to a list that parses to the same
// rows.
func FuzzParseNodes(f *testing.F) {
	f.Add(firstLines(f, nodeFile, 20))
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu,model\nn1,1,1,1,T4\nn1,1,1,1,T4\n"))
	f.Add([]byte("model,gpu,sn,memory_mib,cpu_milli,extra\n\"a,b\",0,\"x\"\"y\",0,0,\n"))
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu,model\nn1,-1,1,1,T4\n"))
	f.Add([]byte("\uFEFFsn,cpu_milli,memory_mib,gpu,model\r\nn1,1,1,1,\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseNodes(bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "%v is not a *ParseError", err)
			return
		}
		var b bytes.Buffer
		require.NoError(t, WriteNodes(&b, rows))
		again, err := ParseNodes(&b)
		require.NoError(t, err)
		assert.Equal(t, len(rows), len(again))
		if len(rows) > 0 {
			assert.Equal(t, rows, again)
		}
	})
}

// FuzzParsePods is FuzzParseNodes for pod lists, which have more rules: times in
// order, shares within one GPU, known QoS classes, non-empty models.
func FuzzParsePods(f *testing.F) {
	f.Add(firstLines(f, podPrefix+"gpushare40.csv", 20))
	f.Add(firstLines(f, podPrefix+"cpu050.csv", 20))
	f.Add([]byte(podHeader + "a,8000,30517,1,500,V100M16|V100M32,LS,Running,10,20,12\nc,1000,1,0,0,,Burstable,Pending,7,9,\n"))
	f.Add([]byte(podHeader + "a,1,1,1,500,T4||A10,BE,Running,1,2,\n"))
	f.Add([]byte(podHeader + "a,1,1,1,500,,BE,Running,5,2,3\n"))
	f.Add([]byte(podHeader + "a,1,1,1,1001,,Guaranteed,,5,5,5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParsePods(bytes.NewReader(data))
		if err != nil {
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "%v is not a *ParseError", err)
			return
		}
		for _, p := range rows {
			require.LessOrEqual(t, p.CreationTime, p.DeletionTime)
			require.GreaterOrEqual(t, p.Lifetime(), time.Duration(0), "no negative lifetime")
		}
		var b bytes.Buffer
		require.NoError(t, WritePods(io.Writer(&b), rows))
		again, err := ParsePods(&b)
		require.NoError(t, err)
		assert.Equal(t, len(rows), len(again))
		if len(rows) > 0 {
			assert.Equal(t, rows, again)
		}
	})
}
