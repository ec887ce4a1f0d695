package hookmark

import (
	"slices"
	"strings"

	"cairn/engine/internal/overlap"
	"cairn/internal/vfs"
)

// JobCall is the pending marker's call name of background shell job
// job: unique in the session, as job ids are in its ledger.
func JobCall(job string) string { return "cairn-bg-" + job }

// LeftJobs is the jobs, other than those in known, whose pending markers
// are in hooks folder dir.
func LeftJobs(fsys vfs.FS, dir string, known []string) []string {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil
	}
	var jobs []string
	for _, e := range ents {
		job, ok := strings.CutPrefix(e.Name(), JobCall(""))
		if job, ok2 := strings.CutSuffix(job, ".json"); ok && ok2 && !slices.Contains(known, job) {
			jobs = append(jobs, job)
		}
	}
	return jobs
}

// DropJobs removes the pending markers in hooks folder dir of background
// jobs that will not settle them, with their trees, and returns, when
// they ran (ran), their shell command markers, to be closed as stale.
// Best effort.
func DropJobs(fsys vfs.FS, dir string, ran bool, jobs ...string) []Exec {
	var stale []Exec
	for _, job := range jobs {
		name := Name(dir, JobCall(job))
		if p, ok := readExec(fsys, name); ok && ran {
			stale = append(stale, p)
		}
		fsys.Remove(name)
		fsys.Remove(overlap.TreeName(name))
	}
	return stale
}
