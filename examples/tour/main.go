// Command tour walks through every poolgate package on built-in example data and prints
// what each one decides. It is the README's main command: go run ./examples/tour.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// section is one stop of the tour: a title, one line on what it shows, and the walk.
type section struct {
	title string
	about string
	run   func(w io.Writer)
}

var sections = []section{
	{"naming", "pool and subpool names, KAI queue names, roles and access", tourNaming},
	{"pools and subpools", "quota partitions, their lifecycle, the pool list and the KAI queue set", tourPools},
	{"gang", "KAI PodGroups with SubGroups, minMember and minSubGroup", tourGang},
	{"topology", "placing gangs into block / rack trees", tourTopology},
	{"quota tree", "hierarchical cohorts with borrowing and lending limits (KEP-79)", tourQuotaTree},
	{"admission", "the static OSMO gate, usage-aware admission, preemption and the scheduling cycle", tourAdmission},
}

func main() {
	w := os.Stdout
	fmt.Fprintln(w, "poolgate tour: who may use which GPUs")
	for i, s := range sections {
		title := fmt.Sprintf("%d. %s — %s", i+1, s.title, s.about)
		fmt.Fprintf(w, "\n%s\n%s\n", title, strings.Repeat("=", len([]rune(title))))
		s.run(w)
	}
}
