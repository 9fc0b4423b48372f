// Command calibrate replays both GPU pod lists of Alibaba's trace at 3× and 4×,
// forecasts their queues as package calibrate describes, with exact and with noisy
// estimates, prints the forecast error of each replay and writes the calibration
// chart:
//
//	go run ./bench/calibrate/cmd/calibrate -svg bench/forecast-calibration.svg
//
// The eight replays take several minutes on two cores.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/poolgate/poolgate/bench/calibrate"
)

func main() {
	svg := flag.String("svg", "", "write the calibration chart to this file")
	every := flag.Duration("every", 10*time.Minute, "simulated time between two forecasts of a replay")
	flag.Parse()
	if err := run(*svg, *every); err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

func run(svg string, every time.Duration) error {
	var rs []calibrate.Result
	fmt.Println("| pod list, load | estimates | forecasts | judged | no start | waits over 10 min | median error | p90 error |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, trace := range []string{"gpushare40", "gpushare40_models"} {
		for _, copies := range []int{3, 4} {
			for _, noisy := range []bool{false, true} {
				r, err := calibrate.Run(trace, copies, noisy, every)
				if err != nil {
					return err
				}
				rs = append(rs, r)
				errs, est := r.Errors(), "exact"
				if noisy {
					est = "noisy"
				}
				fmt.Printf("| %s %d× | %s | %d | %d | %d | %d | %.1f %% | %.1f %% |\n", trace, copies, est, r.Forecasts, r.Judged, r.NoStart,
					len(r.Waits), 100*calibrate.Quantile(errs, 0.5), 100*calibrate.Quantile(errs, 0.9))
			}
		}
	}
	if svg == "" {
		return nil
	}
	var b bytes.Buffer
	if err := calibrate.WriteSVG(&b, rs); err != nil {
		return err
	}
	return os.WriteFile(svg, b.Bytes(), 0o644)
}
