package term

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
)

// watchFirstFrame returns out with a watch: the first write of the
// picture's first line ("filter:") after drawn is set (the program has made
// its first picture) closes frame. Other writes set the terminal up or ask
// it questions. A terminal file stays one (its descriptor is passed on),
// so that the program still follows the window's size.
//
// start closes frame too: for a key pressed before a picture was seen to be
// written (a window too narrow for the mark).
func watchFirstFrame(out io.Writer, drawn *atomic.Bool, frame chan struct{}) (w io.Writer, start func()) {
	fw := &frameWatch{Writer: out, drawn: drawn, frame: frame}
	if f, ok := out.(terminalFile); ok {
		return &fileFrameWatch{frameWatch: fw, f: f}, fw.start
	}
	return fw, fw.start
}

// frameMark starts every picture of the picker: its filter line.
const frameMark = "filter:"

type frameWatch struct {
	io.Writer
	drawn *atomic.Bool
	frame chan struct{}
	once  sync.Once
}

func (w *frameWatch) Write(b []byte) (int, error) {
	n, err := w.Writer.Write(b)
	if w.drawn.Load() && bytes.Contains(b, []byte(frameMark)) {
		w.start()
	}
	return n, err
}

// start closes frame, once.
func (w *frameWatch) start() { w.once.Do(func() { close(w.frame) }) }

// terminalFile is what the terminal library takes for a terminal.
type terminalFile interface {
	io.ReadWriteCloser
	Fd() uintptr
}

type fileFrameWatch struct {
	*frameWatch
	f terminalFile
}

func (w *fileFrameWatch) Read(b []byte) (int, error) { return w.f.Read(b) }
func (w *fileFrameWatch) Close() error               { return w.f.Close() }
func (w *fileFrameWatch) Fd() uintptr                { return w.f.Fd() }
