package wire

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"
)

// The ways a frame or body can be wrong, for errors.Is on an *Error.
var (
	// ErrForeign: the bytes are not a snapshot of the expected kind (wrong magic).
	ErrForeign = errors.New("not a snapshot of this kind")
	// ErrVersion: a snapshot of a format version this code does not read.
	ErrVersion = errors.New("unknown snapshot version")
	// ErrCorrupt: the checksum does not match, a length runs past the end, a value is
	// out of range, or bytes are left over.
	ErrCorrupt = errors.New("corrupt snapshot")
)

// Error reports where a snapshot is wrong.
type Error struct {
	// Kind is ErrForeign, ErrVersion or ErrCorrupt.
	Kind error
	// Offset is the byte offset of the problem in the whole snapshot.
	Offset int
	// Detail says what was wrong.
	Detail string
}

// Error returns, e.g., "corrupt snapshot at byte 17: string length 900 runs past the end".
func (e *Error) Error() string {
	return e.Kind.Error() + " at byte " + strconv.Itoa(e.Offset) + ": " + e.Detail
}

// Unwrap returns the error's Kind.
func (e *Error) Unwrap() error { return e.Kind }

// Writer builds a frame's body.
type Writer struct {
	buf []byte
}

// NewWriter starts a frame of the given magic and version.
func NewWriter(magic string, version uint64) *Writer {
	w := &Writer{buf: make([]byte, 0, 4096)}
	w.buf = append(w.buf, magic...)
	w.Uint(version)
	return w
}

// Uint writes an unsigned varint.
func (w *Writer) Uint(v uint64) { w.buf = binary.AppendUvarint(w.buf, v) }

// Int writes a signed (zig-zag) varint.
func (w *Writer) Int(v int64) { w.buf = binary.AppendVarint(w.buf, v) }

// Bool writes a boolean as one byte.
func (w *Writer) Bool(b bool) {
	if b {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

// String writes a length and the bytes of s.
func (w *Writer) String(s string) {
	w.Uint(uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// Bytes writes a length and b.
func (w *Writer) Bytes(b []byte) {
	w.Uint(uint64(len(b)))
	w.buf = append(w.buf, b...)
}

// Raw appends b as it is: for tests that frame arbitrary bodies.
func (w *Writer) Raw(b []byte) { w.buf = append(w.buf, b...) }

// Finish appends the checksum and returns the frame. The Writer must not be used again.
func (w *Writer) Finish() []byte {
	return binary.BigEndian.AppendUint32(w.buf, crc32.ChecksumIEEE(w.buf))
}

// Reader reads a frame's body in the order it was written.
type Reader struct {
	data []byte // the whole frame, checksum excluded
	off  int
	err  error
}

// NewReader checks the frame — magic, version, checksum — and returns a Reader
// positioned at the body. The version must be one of versions; it is returned.
func NewReader(data []byte, magic string, versions ...uint64) (*Reader, uint64, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, 0, &Error{Kind: ErrForeign, Offset: 0, Detail: "the bytes do not start with " + strconv.Quote(magic)}
	}
	if len(data) < len(magic)+1+4 {
		return nil, 0, &Error{Kind: ErrCorrupt, Offset: len(data), Detail: "the snapshot is truncated"}
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, 0, &Error{Kind: ErrCorrupt, Offset: len(body), Detail: "the checksum does not match: the snapshot is corrupt or truncated"}
	}
	r := &Reader{data: body, off: len(magic)}
	v := r.Uint()
	if r.err != nil {
		return nil, 0, r.err
	}
	for _, k := range versions {
		if k == v {
			return r, v, nil
		}
	}
	return nil, 0, &Error{Kind: ErrVersion, Offset: len(magic), Detail: "version " + strconv.FormatUint(v, 10)}
}

// Err returns the first error of the reads so far.
func (r *Reader) Err() error { return r.err }

// Fail records a problem the caller found in what it read, at the current offset,
// unless an error is already recorded.
func (r *Reader) Fail(detail string) {
	if r.err == nil {
		r.err = &Error{Kind: ErrCorrupt, Offset: r.off, Detail: detail}
	}
}

// Done records an error when bytes are left after the last read.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.data) {
		r.Fail(strconv.Itoa(len(r.data)-r.off) + " bytes are left over")
	}
	return r.err
}

// Uint reads an unsigned varint; 0 after an error.
func (r *Reader) Uint() uint64 { return varint(r, binary.Uvarint) }

// Int reads a signed varint; 0 after an error.
func (r *Reader) Int() int64 { return varint(r, binary.Varint) }

// varint reads one varint with decode; 0 after an error.
func varint[T uint64 | int64](r *Reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.data[r.off:])
	if n <= 0 {
		r.Fail("a number is cut off or too long")
		return 0
	}
	r.off += n
	return v
}

// Len reads a count of items that each take at least min bytes, refusing one the
// bytes left cannot hold, so that a corrupt count never makes the caller allocate more
// than the input could describe.
func (r *Reader) Len(min int) int {
	n := r.Uint()
	if r.err != nil {
		return 0
	}
	if n > uint64(len(r.data)-r.off)/uint64(max(min, 1)) {
		r.Fail("a count of " + strconv.FormatUint(n, 10) + " runs past the end")
		return 0
	}
	return int(n)
}

// Bool reads a boolean.
func (r *Reader) Bool() bool {
	if r.err != nil {
		return false
	}
	if r.off >= len(r.data) {
		r.Fail("a flag is cut off")
		return false
	}
	b := r.data[r.off]
	if b > 1 {
		r.Fail("a flag is " + strconv.Itoa(int(b)) + ", not 0 or 1")
		return false
	}
	r.off++
	return b == 1
}

// String reads a string.
func (r *Reader) String() string { return string(r.bytes()) }

// Bytes reads a byte string into a new slice.
func (r *Reader) Bytes() []byte { return append([]byte(nil), r.bytes()...) }

func (r *Reader) bytes() []byte {
	n := r.Len(1)
	if r.err != nil {
		return nil
	}
	b := r.data[r.off : r.off+n]
	r.off += n
	return b
}
