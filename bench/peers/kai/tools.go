//go:build tools

package kaipeer

// These imports keep KAI-Scheduler v0.13.0's scheduler actions, its test helpers and what
// the tests of pkg/scheduler/actions/integration_tests/reclaim import (gomock, gock) in
// this module's graph, so that `go test github.com/NVIDIA/KAI-scheduler/...` builds from a
// prepared copy of this module (prepare.sh) with this module's go.mod and go.sum. The
// tools tag keeps them out of every ordinary build.
import (
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions"
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions/allocate"
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions/consolidation"
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions/preempt"
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions/reclaim"
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/actions/stalegangeviction"
	_ "github.com/NVIDIA/KAI-scheduler/pkg/scheduler/test_utils"
	_ "go.uber.org/mock/gomock"
	_ "gopkg.in/h2non/gock.v1"
)
