package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var b strings.Builder
	require.NoError(t, run(&b))
	out := b.String()
	assert.Contains(t, out, "inference-service needs 24 pods to start")
	assert.Contains(t, out, "23. pod of prefill-1 created  | bound [0 0 0 0] pending [8 8 0 7] ready=false next=Blocked\n")
	assert.Contains(t, out, "24. pod of prefill-3 created  -> Gang: bind 8×prefill-0 + 8×prefill-1 + 8×prefill-3 | bound [8 8 0 8] pending [0 0 0 0] ready=true next=None\n")
	assert.Contains(t, out, "32. pod of prefill-2 created  -> Replica: bind 8×prefill-2 | bound [8 8 8 8] pending [0 0 0 0] ready=true next=None\n")
}
