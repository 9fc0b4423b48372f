package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTreeHotPathAllocs holds the hot path at zero allocations: Fits (fitting and not),
// Add, Remove, Available, Potential, BorrowingLevel and the borrowing checks, on the
// depth-4 Kueue reference tree.
func TestTreeHotPathAllocs(t *testing.T) {
	f := buildKueueShape(t, kueueShapes[1])
	tr, q, req := f.tr, f.target, f.req
	huge := []Quantity{1 << 40, 0}
	checks := map[string]func(){
		"Fits":           func() { sinkFit, _ = tr.Fits(q, req) },
		"Fits refused":   func() { sinkFit, _ = tr.Fits(q, huge) },
		"Add+Remove":     func() { _ = tr.Add(q, req); _ = tr.Remove(q, req) },
		"Add to root":    func() { _ = tr.Add(f.toRoot, req); _ = tr.Remove(f.toRoot, req) },
		"Available":      func() { sinkQ = tr.Available(q, f.gpu) },
		"Potential":      func() { sinkQ = tr.Potential(q, f.cpu) },
		"BorrowingLevel": func() { h, _ := tr.BorrowingLevel(q, f.gpu, 100); sinkQ = Quantity(h) },
		"Borrowing":      func() { _ = tr.Borrowing(q, f.gpu) || tr.BorrowingWith(q, f.cpu, 9) },
	}
	for name, fn := range checks {
		assert.Zero(t, testing.AllocsPerRun(200, fn), name)
	}
}
