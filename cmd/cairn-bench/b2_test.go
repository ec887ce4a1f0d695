package main

import "testing"

// TestB2Parse reads the figures BenchmarkB2 reports into B2's rows.
func TestB2Parse(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkB2/generated-2         	       1	72303932840 ns/op	       276.2 cold-ms	      5001 files	      3522 first-ms	     18249 firstgit-ms	         8.055 peak-MiB	       216.8 record-ms	       756.5 shadow-ms	       260.1 status-ms	       109.4 warm-ms	         0.6229 watch-ms
PASS
`)
	trees, err := b2Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := trees["generated"]
	if !ok || len(trees) != 1 {
		t.Fatalf("trees %v, want generated only", trees)
	}
	if f["files"] != 5001 || f["warm-ms"] != 109.4 || f["status-ms"] != 260.1 || f["watch-ms"] != 0.6229 || f["peak-MiB"] != 8.055 {
		t.Fatalf("figures %v", f)
	}
	rows := b2Rows("generated: 5001 files", f)
	if len(rows) != 5 || rows[1].Size != "generated: 5001 files, warm walk (stat cache)" {
		t.Fatalf("rows %+v", rows)
	}
	if _, err := b2Parse([]byte("FAIL\n")); err == nil {
		t.Fatal("output without a tree parsed")
	}
}
