package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkScaleQueues/queues=10/tree-2         	57259029	        20.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkScaleQueues/queues=10/tree-2         	57259029	        22.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkScaleQueues/queues=10/tree-2         	57259029	        30.00 ns/op	       0 B/op	       0 allocs/op
BenchmarkScaleQueues/queues=1000/naive-2      	  178113	      6716 ns/op	       0 B/op	       0 allocs/op
BenchmarkMemoryQueues/queues=1000/tree-2      	    3997	    361897 ns/op	       302.1 bytes/queue	  305240 B/op	     465 allocs/op
BenchmarkTreeFit/queues=10/depth=2/resources=2/tree-2 	3239822	        18.24 ns/op
BenchmarkEndToEndStages/check-2               	10029586	       110.8 ns/op
PASS
`

// TestParse checks which lines take part, how they are grouped and which metric a
// family plots.
func TestParse(t *testing.T) {
	fams, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 2 {
		t.Fatalf("%d families, want ScaleQueues and MemoryQueues only", len(fams))
	}
	sq := fams["ScaleQueues"]
	if sq.key != "queues" || len(sq.lines) != 2 || sq.unit() != "ns/op" {
		t.Fatalf("ScaleQueues: key %q, %d lines, unit %q", sq.key, len(sq.lines), sq.unit())
	}
	if got := median(sq.lines["tree"].points[10].samples["ns/op"]); got != 22 {
		t.Fatalf("median of the three runs = %v, want 22", got)
	}
	if u := fams["MemoryQueues"].unit(); u != "bytes/queue" {
		t.Fatalf("MemoryQueues plots %q, want bytes/queue", u)
	}
}

// TestRender checks that every family gets a titled panel and the baselines are dashed.
func TestRender(t *testing.T) {
	fams, _ := parse(strings.NewReader(sample))
	var b strings.Builder
	render(&b, fams)
	svg := b.String()
	for _, want := range []string{"<svg", "ScaleQueues — ns/op", "MemoryQueues — bytes/queue", `stroke-dasharray="6,4"`, "</svg>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}
