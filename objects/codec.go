package objects

import (
	"bufio"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Format constants: changing one changes what is written to disk.
const (
	// zstSuffix ends the name of a compressed object.
	zstSuffix = ".zst"
	// chunk is the share of a content that Put holds in memory: a content
	// up to this size is decided exactly; a larger one by its first chunk.
	chunk = 1 << 20
	// windowSize is the zstd window of frames Put writes; it bounds the
	// memory of a streaming encoder and of a decoder.
	windowSize = 2 << 20
	// maxWindow is the largest zstd window a reader accepts, so a hostile
	// frame cannot make Get allocate without bound.
	maxWindow = 64 << 20
)

// Compressible reports whether a compressed size meets the store's rule for
// keeping an object compressed: it saves at least one eighth of the raw size.
func Compressible(raw, compressed int64) bool { return compressed*8 <= raw*7 }

// level is the zstd level of the frames Put writes: the fastest, as Put
// sits on the path of every tool call; the default level makes objects about
// a tenth smaller at a clear cost in Put throughput (cairn-bench B7).
const level = zstd.SpeedFastest

var encOptions = []zstd.EOption{
	zstd.WithEncoderLevel(level),
	zstd.WithEncoderCRC(true),
	zstd.WithWindowSize(windowSize),
	zstd.WithEncoderConcurrency(1),
	zstd.WithLowerEncoderMem(true),
	zstd.WithZeroFrames(true),
}

// allEncoder compresses whole contents up to a chunk (EncodeAll is safe for
// concurrent use; it keeps a block encoder per GOMAXPROCS).
var allEncoder = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true), zstd.WithWindowSize(chunk), zstd.WithLowerEncoderMem(true))
	if err != nil {
		panic(err)
	}
	return e
})

// streamEncoders are reused streaming encoders for contents over a chunk.
var streamEncoders sync.Pool

func getStreamEncoder(w io.Writer, size int64) *zstd.Encoder {
	if e, ok := streamEncoders.Get().(*zstd.Encoder); ok {
		e.ResetContentSize(w, size)
		return e
	}
	e, err := zstd.NewWriter(nil, encOptions...)
	if err != nil {
		panic(err)
	}
	e.ResetContentSize(w, size)
	return e
}

func putStreamEncoder(e *zstd.Encoder) {
	e.Reset(nil)
	streamEncoders.Put(e)
}

// decoders are reused synchronous decoders.
var decoders sync.Pool

func getDecoder(r io.Reader) (*zstd.Decoder, error) {
	if d, ok := decoders.Get().(*zstd.Decoder); ok {
		if err := d.Reset(r); err != nil {
			decoders.Put(d)
			return nil, err
		}
		return d, nil
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow),
		zstd.WithDecoderLowmem(true))
	if err != nil {
		panic(err)
	}
	if err := d.Reset(r); err != nil {
		decoders.Put(d)
		return nil, err
	}
	return d, nil
}

func putDecoder(d *zstd.Decoder) {
	d.Reset(nil)
	decoders.Put(d)
}

// bufs are chunk-sized buffers (plus one byte, to tell a content of exactly
// a chunk from a longer one).
var bufs = sync.Pool{New: func() any { b := make([]byte, chunk+1); return &b }}

// zbufs hold the compressed form of a chunk.
var zbufs = sync.Pool{New: func() any { b := make([]byte, 0, chunk+chunk/64+64); return &b }}

// bufWriters gather a streaming encoder's output into large writes.
var bufWriters sync.Pool

func getBufWriter(w io.Writer) *bufio.Writer {
	if bw, ok := bufWriters.Get().(*bufio.Writer); ok {
		bw.Reset(w)
		return bw
	}
	return bufio.NewWriterSize(w, 256<<10)
}

func putBufWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	bufWriters.Put(bw)
}
