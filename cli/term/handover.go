package term

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Ctrl-Z and the external editor hand the terminal over for a while: the
// keys stop being read, the terminal gets back the mode it had before the
// REPL, and once it is the editor's again the line is drawn anew where the
// cursor is.

// handOver ends the keys' run and gives the terminal its first mode back.
func (l *lineEdit) handOver() {
	l.scr.write(pasteOff)
	l.run.end()
	l.run = nil
	l.e.keys.handOver()
}

// takeBack makes the terminal the editor's again; false when the keys are
// closed.
func (l *lineEdit) takeBack() bool {
	run, err := l.e.keys.begin(l.e.out)
	if err != nil {
		return false
	}
	l.run = run
	l.cols, l.rows = l.e.size()
	l.scr.cols = l.cols
	l.scr.write(pasteOn)
	return true
}

// suspend stops cairn as Ctrl-Z stops a program at a shell; fg brings it
// back with the line as it was, drawn again below what the shell printed.
func (l *lineEdit) suspend() {
	l.scr.leave()
	l.handOver()
	suspend(l.quit)
	l.takeBack()
}

// externalEdit opens the text in the person's editor ($VISUAL, else
// $EDITOR, else vi) and takes back what it saved; the text stays as it was
// when the editor fails or saves nothing readable.
func (l *lineEdit) externalEdit() {
	f, err := os.CreateTemp("", "cairn-prompt-*.md")
	if err != nil {
		l.scr.printAbove("cairn: no editor: " + err.Error())
		return
	}
	path := f.Name()
	defer os.Remove(path)
	_, err = f.WriteString(l.buf.s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		l.scr.printAbove("cairn: no editor: " + err.Error())
		return
	}
	ed := os.Getenv("VISUAL")
	if strings.TrimSpace(ed) == "" {
		ed = os.Getenv("EDITOR")
	}
	if strings.TrimSpace(ed) == "" {
		ed = "vi"
	}
	// As git runs it: through the shell, so that "code --wait" or a path
	// with arguments works.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-l.quit:
			cancel() // leaving on a signal
		case <-ctx.Done():
		}
	}()
	cmd := exec.CommandContext(ctx, "sh", "-c", ed+` "$@"`, ed, path)
	tty := l.e.keys.in.f
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	l.scr.erase()
	l.scr.flush()
	l.handOver()
	err = cmd.Run()
	if !l.takeBack() {
		return
	}
	if err != nil {
		l.scr.printAbove(cleanText(fmt.Sprintf("cairn: %s: %v; the text is as it was", ed, err)))
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		l.scr.printAbove(cleanText(fmt.Sprintf("cairn: %v; the text is as it was", err)))
		return
	}
	// An editor ends the file with a line feed of its own.
	l.buf.set(strings.TrimSuffix(string(b), "\n"))
}
