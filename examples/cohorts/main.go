// Command cohorts replays the two user stories of KEP-79 (Kueue's hierarchical cohorts)
// on a quota tree, step by step: each step asks whether a request fits, admits it or
// says which node binds, and prints what every team could still take.
//
// Story 1: a research and a production organisation, 8 GPUs each; production may borrow
// research's idle GPUs, research may not borrow production's.
// Story 2: organisations with dedicated GPUs that never borrow from each other, and a
// "special" low-priority queue that borrows whatever is idle anywhere.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/poolgate/poolgate/quota"
)

func main() {
	w := os.Stdout
	fmt.Fprintln(w, "# Story 1: production borrows research's idle GPUs, not the other way round")
	fmt.Fprintln(w, "research's top cohort has borrowingLimit 0; production's teams may borrow up to 10.")
	s := newStory(w, story1(), "vision", "nlp", "serving", "batch")
	s.show()
	s.admit("serving", 14)
	s.note("production borrows research's idle GPUs; research's teams can still take the last 2")
	s.release("serving", 14)
	s.admit("vision", 6)
	s.admit("nlp", 2)
	s.admit("nlp", 1)
	s.note("research is full and its borrowing limit keeps it off production's idle GPUs")
	s.admit("batch", 8)
	fmt.Fprintln(w, "\nThe tree at the end:")
	fmt.Fprint(w, s.tr.Mermaid())

	fmt.Fprintln(w, "\n# Story 2: dedicated organisations and a special queue that borrows anything idle")
	fmt.Fprintln(w, "org-a and org-b have borrowingLimit 0; special sits under the top cohort with no limit.")
	s = newStory(w, story2(), "a-train", "a-infer", "b-train", "special")
	s.show()
	s.admit("b-train", 8)
	s.admit("b-train", 1)
	s.admit("special", 6)
	s.admit("a-train", 6)
	s.note("org-a reclaims its GPUs: the scheduler preempts special's low-priority work")
	s.release("special", 6)
	s.admit("a-train", 6)
	s.admit("special", 2)
	s.admit("special", 1)
}

// story is one story's tree and the queues it prints.
type story struct {
	w      io.Writer
	tr     *quota.Tree
	gpu    quota.ResourceID
	queues []string
}

func newStory(w io.Writer, tr *quota.Tree, queues ...string) *story {
	gpu, _ := tr.Resource("gpu")
	return &story{w: w, tr: tr, gpu: gpu, queues: queues}
}

// admit checks a request of n GPUs on a queue and records it if it fits.
func (s *story) admit(queue string, n quota.Quantity) {
	req := map[string]quota.Quantity{"gpu": n}
	fit, err := s.tr.FitsByName(queue, req)
	switch {
	case err != nil:
		fmt.Fprintf(s.w, "\n%s asks for %s: error: %v\n", queue, gpuText(n), err)
		return
	case !fit.OK:
		fmt.Fprintf(s.w, "\n%s asks for %s: %v\n", queue, gpuText(n), fit)
	default:
		fmt.Fprintf(s.w, "\n%s asks for %s: admitted\n", queue, gpuText(n))
		if err := s.tr.AddByName(queue, req); err != nil {
			fmt.Fprintln(s.w, "  error:", err)
		}
	}
	s.show()
}

// note prints a line of commentary.
func (s *story) note(text string) { fmt.Fprintf(s.w, "  → %s\n", text) }

// release returns n GPUs of a queue's usage, as when its work finishes or is preempted.
func (s *story) release(queue string, n quota.Quantity) {
	fmt.Fprintf(s.w, "\n%s releases %s\n", queue, gpuText(n))
	if err := s.tr.RemoveByName(queue, map[string]quota.Quantity{"gpu": n}); err != nil {
		fmt.Fprintln(s.w, "  error:", err)
	}
	s.show()
}

// show prints each queue's usage, whether it borrows, and what it could still take.
func (s *story) show() {
	var b strings.Builder
	for _, name := range s.queues {
		q, _ := s.tr.Node(name)
		borrowing := ""
		if s.tr.Borrowing(q, s.gpu) {
			borrowing = " (borrowing)"
		}
		fmt.Fprintf(&b, "  %-8s uses %2d of %2d, may take %2d more%s\n", name, s.tr.Usage(q, s.gpu),
			s.tr.SubtreeQuota(q, s.gpu), s.tr.Available(q, s.gpu), borrowing)
	}
	fmt.Fprint(s.w, b.String())
}

func gpuText(n quota.Quantity) string {
	if n == 1 {
		return "1 GPU"
	}
	return n.String() + " GPUs"
}

func gpus(nom quota.Quantity, borrow, lend quota.Limit) map[string]quota.NodeQuota {
	return map[string]quota.NodeQuota{"gpu": {Nominal: nom, BorrowingLimit: borrow, LendingLimit: lend}}
}

func cohort(name, parent string, q map[string]quota.NodeQuota) quota.NodeSpec {
	return quota.NodeSpec{Name: name, Parent: parent, Kind: quota.KindCohort, Quotas: q}
}

func queue(name, parent string, q map[string]quota.NodeQuota) quota.NodeSpec {
	return quota.NodeSpec{Name: name, Parent: parent, Kind: quota.KindQueue, Quotas: q}
}

func story1() *quota.Tree {
	none := quota.Limit{}
	return must(quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		cohort("company", "", gpus(0, none, none)),
		cohort("research", "company", gpus(0, quota.LimitOf(0), none)),
		queue("vision", "research", gpus(4, none, none)),
		queue("nlp", "research", gpus(4, none, none)),
		cohort("production", "company", gpus(0, none, none)),
		queue("serving", "production", gpus(6, quota.LimitOf(10), none)),
		queue("batch", "production", gpus(2, quota.LimitOf(10), none)),
	}}))
}

func story2() *quota.Tree {
	none := quota.Limit{}
	return must(quota.NewTree(quota.TreeSpec{Resources: []string{"gpu"}, Nodes: []quota.NodeSpec{
		cohort("top", "", gpus(0, none, none)),
		cohort("org-a", "top", gpus(0, quota.LimitOf(0), none)),
		queue("a-train", "org-a", gpus(6, none, none)),
		queue("a-infer", "org-a", gpus(2, none, none)),
		cohort("org-b", "top", gpus(0, quota.LimitOf(0), none)),
		queue("b-train", "org-b", gpus(8, none, none)),
		queue("special", "top", gpus(0, none, none)),
	}}))
}

func must[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	return v
}
