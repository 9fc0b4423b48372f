package replay

import (
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/poolgate/poolgate/topology"
)

// table reads a CSV table whose header names its columns; columns are found by name,
// in any order, and columns the caller does not ask for are ignored.
type table struct {
	r    *csv.Reader
	cols map[string]int
	row  int // data rows read so far
	rec  []string
	line int
}

// newTable reads the header and checks that it names every one of want, once.
func newTable(r io.Reader, want []string) (*table, error) {
	if r == nil {
		return nil, &ParseError{Rule: "is missing: the reader is nil", Kind: ErrMalformed}
	}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{Rule: "has no header", Kind: ErrMalformed}
	}
	if err != nil {
		return nil, csvError(err, 0)
	}
	t := &table{r: cr, cols: map[string]int{}}
	for i, name := range header {
		name = strings.TrimPrefix(name, "\uFEFF") // a byte-order mark some exporters write
		if _, dup := t.cols[name]; dup && name != "" {
			return nil, &ParseError{Line: 1, Column: name, Value: name, Rule: "is named twice in the header", Kind: ErrMissingColumn}
		}
		t.cols[name] = i
	}
	for _, name := range want {
		if _, ok := t.cols[name]; !ok {
			return nil, &ParseError{Line: 1, Column: name, Rule: "is missing from the header " + strconv.Quote(strings.Join(header, ",")), Kind: ErrMissingColumn}
		}
	}
	return t, nil
}

// next reads the next record; it returns false at the end of the input.
func (t *table) next() (bool, error) {
	rec, err := t.r.Read()
	if err == io.EOF {
		return false, nil
	}
	t.row++
	if err != nil {
		return false, csvError(err, t.row)
	}
	t.rec = rec
	t.line, _ = t.r.FieldPos(0)
	return true, nil
}

// csvError turns the csv package's syntax errors into a ParseError.
func csvError(err error, row int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Row: row, Line: pe.Line, Rule: pe.Err.Error(), Kind: ErrMalformed}
	}
	return &ParseError{Row: row, Rule: err.Error(), Kind: ErrMalformed}
}

// field returns the record's value of the named column.
func (t *table) field(col string) string { return t.rec[t.cols[col]] }

// fail builds the ParseError of the current record's column col.
func (t *table) fail(col, rule string, kind error) *ParseError {
	return &ParseError{Row: t.row, Line: t.line, Column: col, Value: t.field(col), Rule: rule, Kind: kind}
}

// text returns the column's value, which must not be empty or hold control
// characters: names and labels end up in IDs, node labels and explanations.
func (t *table) text(col string, allowEmpty bool) (string, error) {
	s := t.field(col)
	if s == "" && !allowEmpty {
		return "", t.fail(col, "must not be empty", ErrInvalidValue)
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 || !utf8.ValidString(s) {
		return "", t.fail(col, "must be UTF-8 text without control characters", ErrInvalidValue)
	}
	return s, nil
}

// quantity returns the column's value as a non-negative integer.
func (t *table) quantity(col string) (int64, error) {
	v, err := strconv.ParseInt(t.field(col), 10, 64)
	if err != nil {
		return 0, t.fail(col, "must be an integer", ErrNotInteger)
	}
	if v < 0 {
		return 0, t.fail(col, "must not be negative", ErrNegative)
	}
	return v, nil
}

// amount returns the column's value as an amount of a resource: a quantity below
// topology.Unlimited. The gate reads that value as no limit at all, so a node offering
// it would hold pods without counting them while the replay's model counts them, and
// the checks would report the difference as the gate's fault.
func (t *table) amount(col string) (int64, error) {
	v, err := t.quantity(col)
	if err == nil && v == topology.Unlimited {
		return 0, t.fail(col, "must be below "+strconv.FormatInt(topology.Unlimited, 10)+", which the gate reads as unlimited", ErrInvalidValue)
	}
	return v, err
}
