package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  b1/r1        [2 | DW×2  ] [2 | DW×2  ] [0 | ·     ] [0 | ·     ]",
		"  b1/r2        [1 | DL×1  ] [1 | PL×1  ] [1 | ·     ] [0 | ·     ]",
		"decode-workers+decode-leaders   required block → block b1",
		"admission charges 10 GPUs for 10 pods; the gang is ready once they run: true",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
