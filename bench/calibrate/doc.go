// Package calibrate measures how well package forecast predicts when waiting work
// starts, on the replays of Alibaba's GPU trace (bench/replay), and draws it.
//
// A replay runs with its checks off; every so often of its simulated time, while work
// waits, the queue as it stands is forecast (forecast.Run, ends grouped to the minute),
// the estimates being the recorded lifetimes — exact — or each times a factor drawn
// uniformly from [0.5, 2] — noisy, seeded so that runs repeat. Each workload is judged
// by the first forecast made while it waited, against the first admission the replay
// gives it from then on. The replay goes on with its arrivals, which no forecast knows
// of: later work of higher priority that goes first is part of the error measured.
// The error of a workload that waited over ten minutes is |forecast start − actual
// start| ÷ the wait it had, from its submission.
//
// Run measures one replay; WriteSVG draws several as a calibration chart: per replay,
// the actual wait against the forecast one (medians of equal-count bins, beside the
// diagonal of a perfect forecast), and the share of workloads within each error. The
// command cmd/calibrate runs the eight replays of the README and writes both the table
// and the chart; BenchmarkForecastCalibration reports the same figures as benchmark
// metrics.
//
// # Non-goals
//
// It is a measuring tool, not a library: nothing here is meant to be imported by a
// host, and it estimates no runtimes of its own.
//
// # Concurrency
//
// Run drives its own replay and gate and shares nothing; WriteSVG only reads its
// input. Neither starts goroutines.
package calibrate
