// Command cairn-bench runs cairn's whole-system benchmarks side by side with
// their anchors and prints one table, or with --json one
// array with a row per case and anchor.
//
//	go run ./cmd/cairn-bench [--quick] [--json] [--case B4,B7] [--cpuprofile F] [--keep]
//
// Fixtures are generated from a fixed seed in a temporary folder. Absolute
// times on a shared machine are noise; the ratio measured in one run is the
// figure.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
)

// Row is one line of the report: one case against one anchor.
type Row struct {
	Case     string  `json:"case"`
	Size     string  `json:"size"`
	CairnMS  float64 `json:"cairn_ms"`
	Anchor   string  `json:"anchor"`
	AnchorMS float64 `json:"anchor_ms"`
	Ratio    float64 `json:"ratio"`
	Goal     string  `json:"goal"`
	Met      bool    `json:"met"`
	PeakMB   float64 `json:"peak_mb"`
	// CairnFlushes and AnchorFlushes are the disk cache flushes of a round
	// of each side (median), where the system counts them (flushes.go).
	CairnFlushes  *float64 `json:"cairn_flushes,omitempty"`
	AnchorFlushes *float64 `json:"anchor_flushes,omitempty"`
}

// Env is what a case gets: a scratch folder of its own and the size mode.
type Env struct {
	Dir   string
	Quick bool
}

// Case is one benchmark of the suite, with its goal.
type Case struct {
	Name string
	Run  func(env *Env) ([]Row, error)
}

var cases []Case

func register(c Case) { cases = append(cases, c) }

func main() {
	quick := flag.Bool("quick", false, "small sizes, for CI")
	asJSON := flag.Bool("json", false, "print one JSON array")
	only := flag.String("case", "", "comma-separated cases to run (default: all)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	keep := flag.Bool("keep", false, "keep each case's scratch folder (its fixtures), for profiling; the folders are named on stderr")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "cairn-bench:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	slices.SortFunc(cases, func(a, b Case) int { return strings.Compare(a.Name, b.Name) })
	var rows []Row
	failed := false
	for _, c := range cases {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), c.Name) {
			continue
		}
		dir, err := os.MkdirTemp("", "cairn-bench-"+c.Name+"-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "cairn-bench:", err)
			os.Exit(1)
		}
		r, err := c.Run(&Env{Dir: dir, Quick: *quick})
		if *keep {
			fmt.Fprintf(os.Stderr, "cairn-bench: %s kept in %s\n", c.Name, dir)
		} else {
			os.RemoveAll(dir)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "cairn-bench: %s: %v\n", c.Name, err)
			failed = true
			continue
		}
		rows = append(rows, r...)
	}
	if *asJSON {
		if rows == nil {
			rows = []Row{}
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(rows)
	} else {
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "case\tsize\tcairn ms\tanchor\tanchor ms\tratio\tgoal\tmet\tpeak MB\tflushes\t")
		for _, r := range rows {
			flushes := ""
			if r.CairnFlushes != nil && r.AnchorFlushes != nil {
				flushes = fmt.Sprintf("%.0f/%.0f", *r.CairnFlushes, *r.AnchorFlushes)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%s\t%.3f\t%.3f\t%s\t%v\t%.1f\t%s\t\n",
				r.Case, r.Size, r.CairnMS, r.Anchor, r.AnchorMS, r.Ratio, r.Goal, r.Met, r.PeakMB, flushes)
		}
		tw.Flush()
	}
	if failed {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
