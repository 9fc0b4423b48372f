package admission

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// layers is the package's map, bottom first: each file of the package (tests aside)
// and the layer it belongs to. A file may refer to what its own layer and the layers
// below it declare, never to what a layer above declares. DESIGN.md explains each
// layer; a new file must be added here, in the layer of what it holds.
var layers = []struct {
	name  string
	files []string
}{
	{"words", []string{"errors.go", "decision.go", "enumtext.go", "event.go", "strategy.go", "authz.go", "poolref.go", "static.go",
		"poolset_tree.go", "cost.go", "workload.go", "signature.go", "seal.go", "ask.go", "flavor.go", "elasticpods.go"}},
	{"containers", []string{"pending.go", "capacitybook.go", "searchcache.go", "carry.go", "lowkeys.go", "lineage.go", "endindex.go", "sharing.go"}},
	{"state", []string{"gate.go", "state.go", "resolve.go", "elastic.go"}},
	{"planners", []string{"plans.go", "preempt.go", "footprint.go", "nodeplan.go", "fairpreempt.go", "possible.go", "cheapest.go", "cheapnode.go", "wholenodes.go", "ends.go", "future.go", "reserve.go"}},
	{"decisions", []string{"decideask.go", "assign.go", "elasticplan.go", "dynamic.go"}},
	{"cycles", []string{"elasticcycle.go", "walk.go", "fairwalk.go", "carryplans.go", "cycle.go"}},
	{"mutations", []string{"change.go", "eventlog.go", "aside.go", "commit.go", "apply.go", "nodes.go", "capacity.go", "pools.go",
		"strategies.go", "reservepolicy.go", "build.go", "reads.go", "usage.go", "snapshot.go", "elasticlive.go", "estimate.go"}},
}

// doc.go holds no code; it is in no layer.
const docFile = "doc.go"

// TestFilesReferOnlyToTheirLayerAndBelow type-checks the package and fails on every
// reference from a file to a name declared in a file of a higher layer, on two files
// that refer to each other, and on a file missing from the map.
func TestFilesReferOnlyToTheirLayerAndBelow(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, f := range l.files {
			layerOf[f] = i
		}
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		if _, ok := layerOf[n]; !ok && n != docFile {
			t.Errorf("%s is in no layer: add it to layers, in the layer of what it holds", n)
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("admission", fset, files, info)
	require.NoError(t, err)

	var up []string
	seen := map[string]bool{}
	edges := map[[2]string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		if v, ok := obj.(*types.Var); ok && !v.IsField() && obj.Parent() != pkg.Scope() {
			continue // a local variable or parameter
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to {
			edges[[2]string{from, to}] = true
		}
		lf, okf := layerOf[from]
		lt, okt := layerOf[to]
		if !okf || !okt || lt <= lf {
			continue
		}
		line := fmt.Sprintf("%s (%s) refers to %s of %s (%s)", from, layers[lf].name, obj.Name(), to, layers[lt].name)
		if !seen[line] {
			seen[line] = true
			up = append(up, line)
		}
	}
	slices.Sort(up)
	require.Empty(t, up, "references that run up the layers:\n%s", strings.Join(up, "\n"))

	// Within a layer too, no two files lean on each other: one of them holds what
	// both need, and the other builds on it.
	var mutual []string
	for e := range edges {
		if e[0] < e[1] && edges[[2]string{e[1], e[0]}] {
			mutual = append(mutual, e[0]+" and "+e[1])
		}
	}
	slices.Sort(mutual)
	require.Empty(t, mutual, "files that refer to each other")
}

// generations are the gate's change counters: held decisions and cycle results are
// checked against them, and only the door (change.go) moves them.
var generations = []string{"usageGen", "queueGen", "configGen"}

// TestOnlyTheDoorCountsChanges fails when a file other than change.go assigns or
// increments one of the gate's change counters: a mutation must report its change
// through Gate.changed, which bumps what its kind makes stale.
func TestOnlyTheDoorCountsChanges(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var writes []string
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") || n == "change.go" {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		counter := func(e ast.Expr) {
			if sel, ok := e.(*ast.SelectorExpr); ok && slices.Contains(generations, sel.Sel.Name) {
				writes = append(writes, fset.Position(e.Pos()).String()+": "+sel.Sel.Name)
			}
		}
		ast.Inspect(f, func(node ast.Node) bool {
			switch s := node.(type) {
			case *ast.AssignStmt:
				for _, l := range s.Lhs {
					counter(l)
				}
			case *ast.IncDecStmt:
				counter(s.X)
			case *ast.UnaryExpr:
				if s.Op == token.AND {
					counter(s.X) // a pointer to a counter would let anyone move it
				}
			}
			return true
		})
	}
	require.Empty(t, writes, "change counters moved outside change.go")
}
