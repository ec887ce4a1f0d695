package scope

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The arguments of the writing commands Parse knows: their options and
// the operands they write (shell.go parses the line).

// optionSpec says which options a writing command takes: flags on their
// own, and options that take a value (the next argument, or attached).
type optionSpec struct {
	flags, withValue string // short option letters
	long             []string
	longValue        []string // long options taking a value (--x=v or --x v)
}

var writers = sync.OnceValue(func() map[string]optionSpec {
	return map[string]optionSpec{
		"rm":    {flags: "fFrRidv", long: []string{"--force", "--recursive", "--dir", "--verbose", "--interactive"}},
		"mkdir": {flags: "pv", withValue: "m", long: []string{"--parents", "--verbose"}, longValue: []string{"--mode"}},
		"touch": {flags: "acmh", withValue: "dtr", long: []string{"--no-create", "--no-dereference"}, longValue: []string{"--date", "--reference"}},
		"tee":   {flags: "aip", long: []string{"--append", "--ignore-interrupts"}},
		"mv":    {flags: "finuvT", withValue: "t", long: []string{"--force", "--interactive", "--no-clobber", "--update", "--verbose", "--no-target-directory"}, longValue: []string{"--target-directory"}},
		"cp":    {flags: "aRrpfinuvTPLdlsx", withValue: "t", long: []string{"--archive", "--recursive", "--force", "--interactive", "--no-clobber", "--update", "--verbose", "--no-target-directory", "--preserve", "--no-dereference", "--dereference", "--link", "--symbolic-link", "--one-file-system"}, longValue: []string{"--target-directory"}},
		"ln":    {flags: "sfnvrTLP", withValue: "t", long: []string{"--symbolic", "--force", "--no-dereference", "--verbose", "--relative", "--no-target-directory", "--logical", "--physical"}, longValue: []string{"--target-directory"}},
		"sed":   {flags: "nEruzs", withValue: "ef", long: []string{"--quiet", "--silent", "--regexp-extended", "--unbuffered", "--null-data", "--separate", "--posix", "--debug", "--sandbox", "--follow-symlinks"}, longValue: []string{"--expression", "--file"}},
	}
})

// parsed is a writing command's arguments split by optionSpec.
type parsed struct {
	flags    string            // short flags seen
	values   map[string]string // option (short letter or long name) -> value
	operands []string
	inPlace  *string  // sed -i / --in-place, with its suffix ("" none)
	scripts  []string // sed: every -e and --expression, in order
	longs    []string // long options seen, without their values
}

// parseArgs splits args by spec; an option it does not know is an error
// (the whole workspace).
func (p *lineParser) parseArgs(name string, args []string) (parsed, bool) {
	spec := writers()[name]
	out := parsed{values: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out.operands = append(out.operands, args[i+1:]...)
			return out, true
		case strings.HasPrefix(a, "--"):
			key, val, hasVal := strings.Cut(a, "=")
			switch {
			case name == "sed" && key == "--in-place":
				out.inPlace = &val
			case slices.Contains(spec.long, key) && !hasVal:
			case slices.Contains(spec.longValue, key):
				if !hasVal {
					if i+1 >= len(args) {
						p.fail("option " + name + " " + a)
						return out, false
					}
					i++
					val = args[i]
				}
				out.values[key] = val
				if key == "--expression" {
					out.scripts = append(out.scripts, val)
				}
			default:
				p.fail("option " + name + " " + a)
				return out, false
			}
			out.longs = append(out.longs, key)
		case shortOption(a):
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch {
				case name == "sed" && c == 'i':
					suffix := a[j+1:]
					out.inPlace = &suffix
					j = len(a)
				case strings.IndexByte(spec.flags, c) >= 0:
					out.flags += string(c)
				case strings.IndexByte(spec.withValue, c) >= 0:
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							p.fail("option " + name + " " + a)
							return out, false
						}
						i++
						val = args[i]
					}
					out.values[string(c)] = val
					if name == "sed" && c == 'e' {
						out.scripts = append(out.scripts, val)
					}
					j = len(a)
				default:
					p.fail("option " + name + " -" + string(c))
					return out, false
				}
			}
		default:
			out.operands = append(out.operands, a)
		}
	}
	return out, true
}

func shortOption(a string) bool { return len(a) > 1 && a[0] == '-' && a[1] != '-' }

// operands records every operand: rm, mkdir, touch, tee.
func (p *lineParser) operands(name string, args []string) {
	a, ok := p.parseArgs(name, args)
	if !ok {
		return
	}
	for _, o := range a.operands {
		p.write(o)
	}
	p.writes = true
}

// copyLike records mv's sources and destination, and cp's and ln's
// destination; a destination folder (existing, or -t) is recorded whole.
func (p *lineParser) copyLike(name string, args []string) {
	a, ok := p.parseArgs(name, args)
	if !ok {
		return
	}
	p.writes = true
	from := len(p.names)
	defer func() {
		for _, n := range p.names[from:] {
			p.linkers = append(p.linkers, filepath.Clean(n))
		}
	}()
	ops := a.operands
	target, hasTarget := a.values["t"]
	if v, ok := a.values["--target-directory"]; ok {
		target, hasTarget = v, true
	}
	var sources []string
	switch {
	case hasTarget:
		sources = ops
		p.write(target) // a folder: recorded whole
	case name == "ln" && len(ops) == 1:
		// ln TARGET: a link named after the target, in the current folder.
		p.write(filepath.Base(ops[0]))
		return
	case len(ops) == 0:
		return
	default:
		// The destination: a file, or a folder recorded whole (a path
		// that is a folder stands for everything under it, so "into a
		// folder" needs no stat here).
		p.write(ops[len(ops)-1])
		sources = ops[:len(ops)-1]
	}
	if name == "mv" {
		for _, s := range sources {
			p.write(s)
		}
	}
}

// sed records its files when it edits them in place (-i), and the backup
// files a suffix makes; without -i sed is any other program.
func (p *lineParser) sed(args []string) {
	a, ok := p.parseArgs("sed", args)
	if !ok {
		return
	}
	if a.inPlace == nil {
		p.fail("program sed")
		return
	}
	if strings.ContainsRune(*a.inPlace, '*') || strings.ContainsRune(*a.inPlace, '/') {
		p.fail("option sed -i" + *a.inPlace)
		return
	}
	files := a.operands
	_, f := a.values["f"]
	_, file := a.values["--file"]
	scripts := a.scripts
	if len(scripts) == 0 && !f && !file {
		if len(files) == 0 {
			return
		}
		scripts, files = files[:1], files[1:] // the script
	}
	// A script can write other files (w, W, s///w) or run commands (e,
	// s///e): then it is any other program. --sandbox refuses those
	// commands; without it a script file cannot be read here.
	if !slices.Contains(a.longs, "--sandbox") {
		if f || file {
			p.fail("option sed -f")
			return
		}
		for _, sc := range scripts {
			if why := sedWrites(sc); why != "" {
				p.fail("sed script " + why)
				return
			}
		}
	}
	p.writes = true
	for _, name := range files {
		p.write(name)
		if *a.inPlace != "" {
			p.write(name + *a.inPlace)
		}
	}
}

// write records a written path, dropped from Paths when it is outside the
// workspace (Names keeps it: a link may lead it back in).
func (p *lineParser) write(name string) {
	p.writes = true
	if name != "" {
		p.names = append(p.names, p.absName(name))
	}
	rel, ok := p.resolve(name)
	if !ok {
		return
	}
	if rel == "." {
		p.fail("workspace root")
		return
	}
	p.paths = append(p.paths, rel)
}
