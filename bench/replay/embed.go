package replay

import (
	"embed"
	"strings"
)

//go:embed testdata/alibaba-gpu-v2023/*.csv
var traceFiles embed.FS

// The embedded files: Alibaba's cluster-trace-gpu-v2023 node list and its pod lists.
const (
	traceDir  = "testdata/alibaba-gpu-v2023/"
	nodeFile  = "openb_node_list_gpu_node.csv"
	podPrefix = "openb_pod_list_"
)

// Trace is a node list and a pod list, ready for New.
type Trace struct {
	// Name is the pod list's name, e.g. gpushare40.
	Name  string
	Nodes []NodeRow
	Pods  []PodRow
}

// TraceNames returns the names of the embedded pod lists, sorted: cpu050, gpushare40
// and gpushare40_models, from openb_pod_list_{name}.csv (the last derived from
// gpushare40: a third of its GPU pods name the GPU models they accept).
func TraceNames() []string {
	entries, _ := traceFiles.ReadDir(strings.TrimSuffix(traceDir, "/"))
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutPrefix(e.Name(), podPrefix); ok {
			out = append(out, strings.TrimSuffix(n, ".csv"))
		}
	}
	return out
}

// LoadTrace parses an embedded pod list, by name (see TraceNames), with the embedded
// node list. The files are Alibaba's cluster-trace-gpu-v2023, CC BY 4.0 (see
// testdata/alibaba-gpu-v2023/README.md). An unknown name is an error matching
// ErrUnknownTrace.
func LoadTrace(name string) (Trace, error) {
	if strings.ContainsAny(name, "/\\.") {
		return Trace{}, &ConfigError{Field: "trace", Value: name, Rule: "is not one of " + strings.Join(TraceNames(), ", "), Err: ErrUnknownTrace}
	}
	pf, err := traceFiles.Open(traceDir + podPrefix + name + ".csv")
	if err != nil {
		return Trace{}, &ConfigError{Field: "trace", Value: name, Rule: "is not one of " + strings.Join(TraceNames(), ", "), Err: ErrUnknownTrace}
	}
	defer pf.Close()
	pods, err := ParsePods(pf)
	if err != nil {
		return Trace{}, err
	}
	nodes, err := LoadNodes()
	if err != nil {
		return Trace{}, err
	}
	return Trace{Name: name, Nodes: nodes, Pods: pods}, nil
}

// LoadNodes parses the embedded node list, openb_node_list_gpu_node.csv.
func LoadNodes() ([]NodeRow, error) {
	nf, err := traceFiles.Open(traceDir + nodeFile)
	if err != nil {
		return nil, err
	}
	defer nf.Close()
	return ParseNodes(nf)
}
